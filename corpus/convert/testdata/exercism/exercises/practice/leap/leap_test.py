import unittest

from leap import (
    leap_year,
)


class LeapTest(unittest.TestCase):
    def test_year_not_divisible_by_4(self):
        self.assertIs(leap_year(2015), False)

    @unittest.skip("extra-credit")
    def test_far_future(self):
        self.assertIs(leap_year(4_000_000), True)

    def test_year_divisible_by_400(self):
        self.assertIs(leap_year(2000), True)
