import unittest

from gui import draw


class GuiTest(unittest.TestCase):
    def test_draw(self):
        self.assertEqual(draw(), 1)
