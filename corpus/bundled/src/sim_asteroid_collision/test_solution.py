from solution import asteroid_collision
import pytest


@pytest.mark.parametrize("asteroids,expected", [
    ([5, 10, -5], [5, 10]),
    ([8, -8], []),
    ([10, 2, -5], [10]),
    ([], []),
    ([-2, -1, 1, 2], [-2, -1, 1, 2]),
    ([1, -2, -2, -2], [-2, -2, -2]),
    ([3], [3]),
    ([1, 2, 3, -3], [1, 2]),
    ([-5, 4, 6, -7, 2], [-5, -7, 2]),
    ([2, -1, 1, -2], []),
])
def test_asteroid_collision(asteroids, expected):
    assert asteroid_collision(asteroids) == expected
