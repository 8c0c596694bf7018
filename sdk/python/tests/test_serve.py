"""serve over real gRPC: the fixture plugin started as a child process with
the environment the host gives (ramabana_plugin.testing.launch)."""

import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from helpers import PATIENCE, fixture

from ramabana_plugin import testing
from ramabana_plugin.server import MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE, TOKEN_ENV

KITCHEN = [sys.executable, fixture("kitchen_plugin.py")]


def gone(pid):
    """Whether process pid has exited (a zombie counts)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def wait_gone(pid, timeout=PATIENCE):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if gone(pid):
            return True
        time.sleep(0.05)
    return False


class ServeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = tempfile.mkdtemp(prefix="kitchen-root-")
        cls.plugin = testing.launch(KITCHEN, roots=[cls.root], write=True, web=True, config_dir="/cfg",
                                    host_version="9.9")

    @classmethod
    def tearDownClass(cls):
        cls.plugin.close()

    def test_handshake(self):
        p = self.plugin
        self.assertRegex(p.handshake, r"^1\|1\|unix\|/[^|]+\|grpc\|$")
        self.assertEqual(os.path.dirname(p.socket_path), p.socket_dir, "the socket is in PLUGIN_UNIX_SOCKET_DIR")

    def test_describe(self):
        p = self.plugin
        self.assertEqual((p.name, p.version), ("kitchen", "1.2.3"))
        self.assertEqual(p.groups, [("kitchen-extra", "opt-in"), ("kitchen", "default")], "in declaration order")
        echo = p.tools["echo"]
        self.assertEqual((echo.kind, echo.task, echo.description), ("read", "completion", "Echo text back."))
        self.assertEqual(echo.input_schema, {"type": "object", "properties": {"text": {"type": "string", "description": "what to echo"}},
                                             "required": ["text"], "additionalProperties": False})
        pol = p.tools["policies"]
        self.assertEqual((pol.group, pol.task), ("kitchen-extra", "context"))
        self.assertEqual(p.tools["write"].kind, "write")

    def test_host_context_kept(self):
        out = self.plugin.call("host_info")
        self.assertEqual(out.structured, {"roots": [self.root], "read_outside": False, "web": True, "write": True,
                                          "commands": False, "no_sandbox": False, "config_dir": "/cfg",
                                          "host_version": "9.9"})

    def test_call(self):
        out = self.plugin.call("echo", {"text": "héllo"})
        self.assertEqual((out.text, out.is_error, out.structured), ("héllo", False, None))

    def test_progress_and_logs(self):
        out = self.plugin.call("steps", {"n": 3})
        self.assertEqual(out.progress, [(1.0, 3.0, "step 1"), (2.0, 3.0, "step 2"), (3.0, 3.0, "step 3")])
        self.assertEqual(out.logs, [("warning", "did 3 steps")])
        self.assertEqual(out.text, "done")

    def test_tool_error_is_a_result(self):
        out = self.plugin.call("fail", {"how": "tool"})
        self.assertEqual((out.is_error, out.text), (True, "no such thing: give another"))

    def test_fault_is_internal_with_traceback_logged(self):
        with self.assertRaises(testing.CallFailed) as cm:
            self.plugin.call("fail", {"how": "bug"})
        self.assertEqual(cm.exception.code, "INTERNAL")
        self.assertIn("ZeroDivisionError: the handler divided by zero", cm.exception.details)
        # Wait for this fault's own line: another test's (a failed describe)
        # may have logged a traceback before it.
        def fault_lines():
            return [ln for ln in self.plugin.stderr.splitlines() if "Traceback" in ln and "ZeroDivisionError" in ln]
        deadline = time.monotonic() + PATIENCE
        while not fault_lines() and time.monotonic() < deadline:
            time.sleep(0.05)
        lines = fault_lines()
        self.assertEqual(len(lines), 1, self.plugin.stderr)
        self.assertTrue(lines[0].startswith("level=ERROR msg="), lines[0])
        self.assertIn("ZeroDivisionError", lines[0])

    def test_unknown_tool(self):
        with self.assertRaises(testing.CallFailed) as cm:
            self.plugin.call("nope")
        self.assertEqual(cm.exception.code, "NOT_FOUND")
        self.assertIn('"nope"', cm.exception.details)

    def test_bad_arguments(self):
        p = self.plugin
        self.assertEqual(p.call("echo", {}, check=False).text, 'echo needs "text", a string')
        out = p.call("echo", {"text": 1}, check=True)
        self.assertEqual(out.text, 'invalid arguments for echo: "text" must be a string; got a number')
        # Not JSON at all: straight through the stub.
        req = p._W.CallRequest(tool="echo", arguments=b"{", call_id="x")
        stream = p._method(p._W.TOOL_GROUP_SERVICE, "Call")(req, metadata=p._metadata())
        res = [ev for ev in stream][-1].result
        self.assertTrue(res.is_error)
        self.assertTrue(res.content[0].text.startswith("arguments are not valid JSON"))

    def test_token_demanded(self):
        self.plugin.check_token_demanded()

    def test_token_removed_from_environment(self):
        out = self.plugin.call("env", {"name": TOKEN_ENV})
        self.assertEqual(out.text, "process=<unset> child=<unset>")
        self.assertNotIn(self.plugin.token, self.plugin.stderr)

    def test_health(self):
        p = self.plugin
        self.assertEqual(p.health("plugin"), "SERVING")
        self.assertEqual(p.health(""), "SERVING")
        with self.assertRaises(testing.CallFailed) as cm:
            p.health("ramabana.plugin.v1.Nope")
        self.assertEqual(cm.exception.code, "NOT_FOUND")
        resp = p._unary(p._W.HEALTH_SERVICE, "List", p._W.HealthListRequest())
        self.assertEqual(sorted(resp.statuses), ["", "plugin"])

    def test_large_messages(self):
        """Over gRPC's default 4 MiB, both ways."""
        data = "x" * (6 << 20)
        out = self.plugin.call("size", {"data": data}, timeout=60)
        self.assertEqual(out.structured["length"], len(data))
        self.assertEqual(len(out.structured["data"]), len(data))

    def test_stdout_stays_clean(self):
        out = self.plugin.call("chatter")
        self.assertEqual(out.text, "chattered")
        deadline = time.monotonic() + PATIENCE
        while "a child's stdout" not in self.plugin.stderr and time.monotonic() < deadline:
            time.sleep(0.05)
        for s in ("a stray print", "a stray write to fd 1", "a child's stdout"):
            self.assertIn(s, self.plugin.stderr)
        self.assertEqual(self.plugin.stdout_after_handshake(), b"")

    def test_cancellation(self):
        for tool, want in (("wait_cancel", "sync c-sync True"), ("wait_cancel_async", "async c-async")):
            with self.subTest(tool=tool):
                pending = self.plugin.start(tool, {}, call_id=want.split()[1])
                self.assertTrue(pending.wait_progress(1, timeout=PATIENCE), "the call started")
                pending.cancel()
                with self.assertRaises(testing.CallFailed) as cm:
                    pending.result(PATIENCE)
                self.assertEqual(cm.exception.code, "CANCELLED")
                # The handler sees its cancellation after the client does.
                deadline = time.monotonic() + PATIENCE
                while want not in self.plugin.call("cancelled_calls").text and time.monotonic() < deadline:
                    time.sleep(0.05)
                self.assertIn(want, self.plugin.call("cancelled_calls").text)

    def test_roots_through_the_wire(self):
        out = self.plugin.call("write", {"path": "a/b.txt", "text": "one\n"})
        self.assertFalse(out.is_error, out.text)
        self.assertEqual(out.text, "wrote a/b.txt")
        ch = out.changes[0]
        self.assertEqual((ch.path, ch.before_sha256, ch.after), (os.path.join(self.root, "a/b.txt"), "", b"one\n"))
        self.assertEqual(self.plugin.call("read", {"path": "a/b.txt"}).text, "one\n")
        out = self.plugin.call("read", {"path": "/etc/hostname"})
        self.assertTrue(out.is_error)
        self.assertIn("outside the served folders", out.text)

    def test_describe_hook_failure(self):
        with self.assertRaises(testing.CallFailed) as cm:
            self.plugin.describe(config_dir="/refuse")
        self.assertEqual(cm.exception.code, "FAILED_PRECONDITION")
        self.assertIn("config dir /refuse is refused", cm.exception.details)
        self.plugin.describe(roots=(self.root,), write=True, web=True, config_dir="/cfg", host_version="9.9")


class LifetimeTest(unittest.TestCase):
    """Each way the host ends a plugin: it exits 0 and removes its socket."""

    def end_with(self, end):
        p = testing.launch(KITCHEN)
        try:
            self.assertEqual(p.health(), "SERVING")
            end(p)
            try:
                code = p.process.wait(PATIENCE)
            except subprocess.TimeoutExpired:
                self.fail("the plugin did not exit; stderr:\n" + p.stderr)
            self.assertEqual(code, 0, p.stderr)
            self.assertFalse(os.path.exists(p.socket_path), "socket left behind")
        finally:
            p.close()

    def test_stdin_eof(self):
        self.end_with(lambda p: p.process.stdin.close())

    def test_sigterm(self):
        self.end_with(lambda p: p.process.send_signal(signal.SIGTERM))

    def test_sigint(self):
        self.end_with(lambda p: p.process.send_signal(signal.SIGINT))

    def test_shutdown(self):
        self.end_with(lambda p: p.shutdown())

    def test_stdin_eof_during_a_call(self):
        def end(p):
            pending = p.start("wait_cancel")
            self.assertTrue(pending.wait_progress(1, timeout=PATIENCE))
            p.process.stdin.close()
        self.end_with(end)

    def test_parent_death(self):
        """A plugin whose parent dies (stdin not a pipe: no lifeline) exits."""
        with tempfile.TemporaryDirectory() as d:
            env = testing.host_env(d, "tok")
            spawn = ("import subprocess, sys\n"
                     "p = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)\n"
                     "print(p.stdout.readline().decode().strip(), p.pid, flush=True)\n")
            out = subprocess.run([sys.executable, "-c", spawn] + KITCHEN, env=env, capture_output=True, text=True,
                                 timeout=30)
            handshake, pid = out.stdout.split()
            self.assertRegex(handshake, r"^1\|1\|unix\|")
            self.assertTrue(wait_gone(int(pid)), "the plugin outlived its parent")


class ByHandTest(unittest.TestCase):
    def run_plugin(self, env):
        return subprocess.run(KITCHEN, env=env, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)

    def test_refuses_to_run_by_hand(self):
        with tempfile.TemporaryDirectory() as d:
            good = testing.host_env(d, "")
            for name, env, want in [
                ("no cookie", {"PATH": os.environ["PATH"]}, "not meant to be run by hand"),
                ("wrong cookie", dict(good, **{MAGIC_COOKIE_KEY: "nope"}), "not meant to be run by hand"),
                ("no protocol 1", dict(good, PLUGIN_PROTOCOL_VERSIONS="2,3"),
                 "speaks plugin protocol versions 2,3; this plugin speaks 1"),
            ]:
                with self.subTest(name):
                    r = self.run_plugin(env)
                    self.assertEqual(r.returncode, 1, r.stderr)
                    self.assertIn(want, r.stderr)
                    self.assertEqual(r.stdout, "")
        self.assertEqual(good[MAGIC_COOKIE_KEY], MAGIC_COOKIE_VALUE)

    def test_log_level(self):
        for level, debug in (("ERROR", False), ("debug", True), ("Info", False)):
            with self.subTest(level=level):
                p = testing.launch(KITCHEN, log_level=level)
                p.call("echo", {"text": "x"})
                p.close()
                has_debug = bool(re.search(r"^level=DEBUG msg=", p.stderr, re.M))
                self.assertEqual(has_debug, debug, p.stderr)

    def test_without_token(self):
        """A host that passes no token gets answers without one."""
        p = testing.launch(KITCHEN, token=False)
        try:
            self.assertEqual(p.call("echo", {"text": "x"}).text, "x")
            with self.assertRaises(AssertionError):
                p.check_token_demanded()
        finally:
            p.close()


if __name__ == "__main__":
    unittest.main()
