import unittest
import tally


class TallyTest(unittest.TestCase):
    def test_ones(self):
        self.assertEqual(tally.score([1, 1, 2], tally.ONES), 2)

    def test_module_name_is_data(self):
        self.assertEqual("tally", "tal" + "ly")
