import pytest
from solution import add, mean, Stack, shout


@pytest.mark.parametrize("a,b,expected", [(1, 2, 3), (0, 0, 0), (-1, 1, 0)])
def test_add(a, b, expected):
    assert add(a, b) == expected


def test_mean_approx():
    assert mean([0.1, 0.2, 0.3]) == pytest.approx(0.2)


def test_pop_empty_raises():
    with pytest.raises(IndexError):
        Stack().pop()


@pytest.fixture
def stack():
    s = Stack()
    s.push(7)
    return s


def test_fixture_stack(stack):
    assert stack.pop() == 7


class TestGroup:
    def test_in_class(self):
        assert add(2, 2) == 4


def test_capsys(capsys):
    shout("hi")
    assert capsys.readouterr().out == "HI\n"


def test_tmp_path(tmp_path):
    p = tmp_path / "a.txt"
    p.write_text("x")
    assert p.read_text() == "x"
