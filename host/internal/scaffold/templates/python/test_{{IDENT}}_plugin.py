"""The plugin's tools over real gRPC, by the host's rules (the kit's harness).
Run: /usr/bin/python3 -m unittest"""

import unittest

from ramabana_plugin import testing

import {{IDENT}}_plugin


class GreetTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Serves the toolbox in this process and describes it as the host
        # would, with the host's checks (names, kinds, schemas, tasks).
        cls.plugin = testing.connect({{IDENT}}_plugin.box)

    @classmethod
    def tearDownClass(cls):
        cls.plugin.close()

    def test_greet(self):
        out = self.plugin.call("{{IDENT}}_greet", {"name": "Ada"})
        self.assertEqual((out.text, out.is_error), ("Hello, Ada!", False))

    def test_empty_name_is_a_tool_error(self):
        out = self.plugin.call("{{IDENT}}_greet", {"name": " "})
        self.assertTrue(out.is_error)
        self.assertIn("say who to greet", out.text)

    def test_arguments_are_checked_as_the_host_checks_them(self):
        out = self.plugin.call("{{IDENT}}_greet", {})
        self.assertTrue(out.is_error)
        self.assertIn('needs "name"', out.text)

    def test_token_demanded(self):
        self.plugin.check_token_demanded()


if __name__ == "__main__":
    unittest.main()
