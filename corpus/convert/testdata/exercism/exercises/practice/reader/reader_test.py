import unittest
from unittest import mock

from reader import first_line
from test_helpers import fake_open


class ReaderTest(unittest.TestCase):
    def test_first_line(self):
        with mock.patch("reader.open", side_effect=fake_open, create=True):
            self.assertEqual(first_line("any.txt"), "hello")
