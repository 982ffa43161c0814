import unittest

from dice import roll


class DiceTest(unittest.TestCase):
    def test_range(self):
        self.assertIn(roll(), range(1, 7))
