"""python3 -m ramabana_plugin bundle: one executable file that serves on
its own, with no PYTHONPATH, written atomically."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from helpers import SDK, fixture

from ramabana_plugin import testing


def run_bundle(*args, cwd):
    """The bundle command as an author runs it, the kit on PYTHONPATH."""
    env = dict(os.environ, PYTHONPATH=SDK)
    return subprocess.run([sys.executable, "-m", "ramabana_plugin", "bundle"] + list(args), cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


class BundleTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="bundle-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        for name in ("greeter_plugin.py", "greeter_words.py", "broken_plugin.py"):
            shutil.copy(fixture(name), self.dir)

    def test_bundle_serves_alone(self):
        r = run_bundle("greeter_plugin.py", "--include", "greeter_words.py", "--python", sys.executable, cwd=self.dir)
        self.assertEqual(r.returncode, 0, r.stderr)
        out = os.path.join(self.dir, "dist", "ramabana-plugin-greeter")
        self.assertEqual(r.stdout.strip(), "built " + out)
        self.assertTrue(os.stat(out).st_mode & 0o111, "executable")
        with open(out, "rb") as f:
            self.assertEqual(f.readline(), b"#!" + sys.executable.encode() + b"\n")
        # Alone in another folder, started with the host's environment only.
        elsewhere = tempfile.mkdtemp(prefix="bundle-alone-")
        self.addCleanup(shutil.rmtree, elsewhere, True)
        alone = shutil.copy(out, os.path.join(elsewhere, "ramabana-plugin-greeter"))
        with testing.launch([alone], cwd="/") as p:
            self.assertEqual((p.name, p.version), ("greeter", "0.2.0"))
            self.assertEqual(p.call("greet", {"name": "Ada"}).text, "Hello, Ada!")
            p.check_token_demanded()
        self.assertEqual(p.exit_code, 0)
        self.assertEqual(os.listdir(os.path.join(self.dir, "dist")), ["ramabana-plugin-greeter"], "no temporary file left")

    def test_reproducible_and_default_shebang(self):
        a = os.path.join(self.dir, "a")
        b = os.path.join(self.dir, "b")
        for out in (a, b):
            r = run_bundle("greeter_plugin.py", "--include", "greeter_words.py", "--no-check", "-o", out, cwd=self.dir)
            self.assertEqual(r.returncode, 0, r.stderr)
        with open(a, "rb") as fa, open(b, "rb") as fb:
            da, db = fa.read(), fb.read()
        self.assertEqual(da, db)
        self.assertTrue(da.startswith(b"#!/usr/bin/env python3\n"))

    def test_a_bundle_that_does_not_serve_is_not_written(self):
        out = os.path.join(self.dir, "dist", "ramabana-plugin-broken")
        r = run_bundle("broken_plugin.py", "--python", sys.executable, "-o", out, cwd=self.dir)
        self.assertEqual(r.returncode, 1)
        self.assertIn("the bundle does not serve", r.stderr)
        self.assertIn("broken on purpose", r.stderr)
        self.assertEqual(os.listdir(os.path.join(self.dir, "dist")), [], "neither the bundle nor a temporary file")
        # A missing --include'd module fails the same way.
        r = run_bundle("greeter_plugin.py", "--python", sys.executable, cwd=self.dir)
        self.assertEqual(r.returncode, 1)
        self.assertIn("greeter_words", r.stderr)

    def test_usage_errors(self):
        for args, want in [(["missing.py"], "is not a Python file"),
                           (["greeter_plugin.py", "--no-check"], "give --output"),
                           (["greeter_plugin.py", "--include", "nope.py", "-o", "x"], "no such file"),
                           (["greeter_plugin.py", "--include", "greeter_plugin.py", "-o", "x", "--no-check"], "twice")]:
            with self.subTest(args=args):
                r = run_bundle(*args, cwd=self.dir)
                self.assertEqual(r.returncode, 1, r.stdout)
                self.assertIn(want, r.stderr)


class CheckCommandTest(unittest.TestCase):
    def test_check(self):
        env = dict(os.environ, PYTHONPATH=SDK)
        r = subprocess.run([sys.executable, "-m", "ramabana_plugin", "check", sys.executable,
                            fixture("kitchen_plugin.py")], env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("kitchen 1.2.3: The kit's test plugin.", r.stdout)
        self.assertIn("  policies: read, context", r.stdout)
        r = subprocess.run([sys.executable, "-m", "ramabana_plugin", "check", "/bin/true"], env=env,
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 1)
        self.assertIn("did not hand-shake", r.stderr)


if __name__ == "__main__":
    unittest.main()
