import unittest
import fixtures

from shapes import area


class ShapesTest(unittest.TestCase):
    def test_square(self):
        self.assertEqual(area(fixtures.SIDE, fixtures.SIDE), 9)
