"""The wordcount tools through the kit's harness: in-process over real gRPC,
with the host's checks. Run: /usr/bin/python3 -m unittest (in this folder)."""

import unittest

from ramabana_plugin import testing

import wordcount_plugin


class WordcountTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.plugin = testing.connect(wordcount_plugin.box)

    @classmethod
    def tearDownClass(cls):
        cls.plugin.close()

    def test_count_words(self):
        out = self.plugin.call("count_words", {"text": "one two  three\nfour\n"})
        self.assertEqual((out.text, out.structured), ("4 words, 2 lines", {"words": 4, "lines": 2}))
        self.assertEqual(self.plugin.call("count_words", {"text": "word"}).text, "1 word, 1 line")

    def test_top_words(self):
        out = self.plugin.call("top_words", {"text": "b a_c a b", "n": 2})
        self.assertEqual(out.text, "5 words, 3 distinct; the 2 most frequent:\na: 2\nb: 2")
        self.assertEqual(out.progress, [(1.0, 2.0, "counted 5 words")])

    def test_the_host_refuses_bad_arguments(self):
        out = self.plugin.call("top_words", {"text": "a", "n": 0})
        self.assertTrue(out.is_error)
        self.assertIn('"n" must be an integer from 1 to 100', out.text)

    def test_token(self):
        self.plugin.check_token_demanded()


if __name__ == "__main__":
    unittest.main()
