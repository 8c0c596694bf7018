"""Roots: paths confined to the served folders, with openat2 and with the
component walk, against the usual attacks."""

import errno
import hashlib
import os
import shutil
import tempfile
import threading
import time
import unittest

import helpers  # noqa: F401  (the kit on sys.path)

from ramabana_plugin import OutsideError, PathError, Roots, RootsError, ToolError
from ramabana_plugin.roots import openat2_works

SECRET = "the secret outside\n"


def have_openat2():
    fd = os.open("/", os.O_RDONLY | os.O_DIRECTORY)
    try:
        return openat2_works(fd)
    finally:
        os.close(fd)


class Tree:
    """A served root and a folder outside it, each with files and links."""

    def __init__(self):
        self.base = os.path.realpath(tempfile.mkdtemp(prefix="roots-"))
        self.root = os.path.join(self.base, "root")
        self.out = os.path.join(self.base, "outside")
        for d in (self.root, self.out, os.path.join(self.root, "sub")):
            os.mkdir(d)
        self.put("root/a.txt", "inside a\n")
        self.put("root/sub/b.txt", "inside b\n")
        self.put("outside/secret.txt", SECRET)
        self.put("outside/b.txt", SECRET)
        os.symlink("sub/b.txt", self.p("root/rel-link"))                      # relative, inside
        os.symlink(self.p("root/sub/b.txt"), self.p("root/abs-link"))         # absolute, inside
        os.symlink("../outside/secret.txt", self.p("root/out-rel"))           # relative, out
        os.symlink(self.p("outside/secret.txt"), self.p("root/out-abs"))      # absolute, out
        os.symlink(self.out, self.p("root/out-dir"))                          # a folder out
        os.symlink("../a.txt", self.p("root/sub/up-and-in"))                  # up, then back down
        os.symlink("sub/../../outside/secret.txt", self.p("root/zigzag"))
        os.symlink(self.p("outside/new.txt"), self.p("root/dangling-out"))    # dangling, out
        os.symlink("sub/created.txt", self.p("root/dangling-in"))             # dangling, in
        os.symlink("loop2", self.p("root/loop1"))
        os.symlink("loop1", self.p("root/loop2"))

    def p(self, rel):
        return os.path.join(self.base, rel)

    def put(self, rel, text):
        with open(self.p(rel), "w") as f:
            f.write(text)

    def close(self):
        shutil.rmtree(self.base, ignore_errors=True)


class RootsMixin:
    """The tests, run once with openat2 (where the kernel has it) and once
    walking component by component."""

    beneath = None

    def setUp(self):
        self.t = Tree()
        self.r = Roots([self.t.root], beneath=self.beneath)
        self.addCleanup(self.t.close)
        self.addCleanup(self.r.close)

    def test_reads_inside(self):
        self.assertEqual(self.r.read_text("a.txt"), "inside a\n")
        self.assertEqual(self.r.read_text(self.t.p("root/sub/b.txt")), "inside b\n")
        self.assertEqual(self.r.read_text("sub/../a.txt"), "inside a\n")
        self.assertEqual(self.r.read_text("rel-link"), "inside b\n")
        self.assertEqual(self.r.read_text("abs-link"), "inside b\n", "an absolute link inside the root is followed")
        self.assertEqual(self.r.read_text("sub/up-and-in"), "inside a\n")
        with self.r.open("a.txt", "r") as f:
            self.assertEqual(f.read(), "inside a\n")
        self.assertEqual(self.r.list_dir("sub"), ["b.txt", "up-and-in"])
        self.assertEqual(self.r.stat("rel-link").st_size, len("inside b\n"))

    def test_symlink_out_of_the_root(self):
        for path in ("out-rel", "out-abs", "out-dir/secret.txt", "zigzag", "loop1/../out-abs"):
            with self.subTest(path=path):
                with self.assertRaises(OutsideError) as cm:
                    self.r.read_text(path)
                self.assertIn("outside the served folders", str(cm.exception))
                self.assertIsInstance(cm.exception, ToolError)

    def test_dotdot_escapes(self):
        for path in ("../outside/secret.txt", "sub/../../outside/secret.txt", "../../../../../../etc/hostname",
                     self.t.root + "/../outside/secret.txt"):
            with self.subTest(path=path):
                with self.assertRaises(OutsideError):
                    self.r.read_text(path)

    def test_absolute_path_outside(self):
        for path in (self.t.p("outside/secret.txt"), "/etc/hostname", self.t.root + "-evil/x"):
            with self.subTest(path=path):
                with self.assertRaises(OutsideError):
                    self.r.read_bytes(path)

    def test_symlink_swapped_in_after_the_roots_opened(self):
        """The check is the open itself: a folder replaced by a link to
        outside after everything was set up leads nowhere."""
        self.assertEqual(self.r.read_text("sub/b.txt"), "inside b\n")
        shutil.rmtree(self.t.p("root/sub"))
        os.symlink(self.t.out, self.t.p("root/sub"))
        with self.assertRaises(OutsideError):
            self.r.read_text("sub/b.txt")
        os.remove(self.t.p("root/a.txt"))
        os.symlink(self.t.p("outside/secret.txt"), self.t.p("root/a.txt"))
        with self.assertRaises(OutsideError):
            self.r.read_text("a.txt")
        with self.assertRaises(OutsideError):
            self.r.write_file("sub/b.txt", "x")
        with open(self.t.p("outside/b.txt")) as f:
            self.assertEqual(f.read(), SECRET, "the write did not go through the swapped link")

    def test_symlink_swap_race(self):
        """A thread flips a folder between a real one and a link to outside
        while reads run: no read ever returns the outside file."""
        sub, parked = self.t.p("root/sub"), self.t.p("root/parked")
        stop = threading.Event()

        def flip():
            while not stop.is_set():
                os.rename(sub, parked)
                os.symlink(self.t.out, sub)
                os.remove(sub)
                os.rename(parked, sub)

        th = threading.Thread(target=flip)
        th.start()
        seen = {"inside": 0, "refused": 0}
        try:
            deadline = time.monotonic() + 1.0
            while time.monotonic() < deadline:
                try:
                    text = self.r.read_text("sub/b.txt")
                except (OutsideError, PathError):
                    seen["refused"] += 1
                    continue
                self.assertNotEqual(text, SECRET, "read the outside file through a swapped link")
                seen["inside"] += 1
        finally:
            stop.set()
            th.join()
        self.assertGreater(seen["inside"] + seen["refused"], 10)

    def test_read_outside_allowed(self):
        r = Roots([self.t.root], read_outside=True, beneath=self.beneath)
        self.addCleanup(r.close)
        self.assertEqual(r.read_text(self.t.p("outside/secret.txt")), SECRET)
        self.assertEqual(r.read_text("out-rel"), SECRET)
        self.assertEqual(r.read_text("../outside/secret.txt"), SECRET)
        with self.assertRaises(OutsideError, msg="writes never leave the roots"):
            r.write_file(self.t.p("outside/new.txt"), "x")
        with self.assertRaises(OutsideError):
            r.write_file("out-abs", "x")
        self.assertFalse(os.path.exists(self.t.p("outside/new.txt")))

    def test_errors_a_model_can_act_on(self):
        for path, code in (("missing.txt", errno.ENOENT), ("sub", errno.EISDIR), ("loop1", errno.ELOOP),
                           ("a.txt/x", errno.ENOTDIR)):
            with self.subTest(path=path):
                with self.assertRaises(PathError) as cm:
                    self.r.read_text(path)
                self.assertEqual(cm.exception.errno, code, str(cm.exception))
                self.assertIn(path, str(cm.exception))
        for bad in ("", "a\x00b"):
            with self.assertRaises(ToolError):
                self.r.read_text(bad)
        self.t.put("root/latin1.txt", "")
        with open(self.t.p("root/latin1.txt"), "wb") as f:
            f.write(b"caf\xe9")
        with self.assertRaises(PathError) as cm:
            self.r.read_text("latin1.txt")
        self.assertIn("not utf-8 text", str(cm.exception))
        self.assertEqual(self.r.read_text("latin1.txt", encoding="latin-1"), "café")
        with self.assertRaises(PathError):
            self.r.read_bytes("a.txt", limit=3)

    def test_fifo_is_not_read(self):
        os.mkfifo(self.t.p("root/fifo"))
        with self.assertRaises(PathError) as cm:
            self.r.read_bytes("fifo")  # must not block
        self.assertIn("named pipe", str(cm.exception))


class WithOpenat2(RootsMixin, unittest.TestCase):
    beneath = True

    def setUp(self):
        if not have_openat2():
            self.skipTest("this kernel has no openat2")
        super().setUp()
        self.assertTrue(self.r.uses_openat2)


class WithTheWalk(RootsMixin, unittest.TestCase):
    beneath = False

    def setUp(self):
        super().setUp()
        self.assertFalse(self.r.uses_openat2)


class WriteTest(unittest.TestCase):
    def setUp(self):
        self.t = Tree()
        self.r = Roots([self.t.root])
        self.addCleanup(self.t.close)
        self.addCleanup(self.r.close)

    def read(self, rel):
        with open(self.t.p(rel), "rb") as f:
            return f.read()

    def test_create_and_replace(self):
        ch = self.r.write_file("new.txt", "one\n")
        self.assertEqual(ch.path, self.t.p("root/new.txt"))
        self.assertEqual((ch.before_sha256, ch.before), ("", b""))
        self.assertEqual(ch.after_sha256, hashlib.sha256(b"one\n").hexdigest())
        self.assertEqual(ch.after, b"one\n")
        os.chmod(self.t.p("root/new.txt"), 0o600)
        ch = self.r.write_file("new.txt", b"two\n")
        self.assertEqual((ch.before, ch.after), (b"one\n", b"two\n"))
        self.assertEqual(ch.before_sha256, hashlib.sha256(b"one\n").hexdigest())
        self.assertEqual(self.read("root/new.txt"), b"two\n")
        self.assertEqual(os.stat(self.t.p("root/new.txt")).st_mode & 0o777, 0o600, "permissions kept")
        self.assertEqual(sorted(os.listdir(self.t.root)).count("new.txt"), 1)
        self.assertFalse([n for n in os.listdir(self.t.root) if n.endswith(".tmp")], "no temporary file left")

    def test_binary_and_large_content_not_carried(self):
        ch = self.r.write_file("bin", b"\xff\xfe")
        self.assertEqual((ch.after, len(ch.after_sha256)), (b"", 64))
        big = b"x" * ((1 << 20) + 1)
        ch = self.r.write_file("big", big)
        self.assertEqual(ch.after, b"")

    def test_make_dirs(self):
        with self.assertRaises(PathError) as cm:
            self.r.write_file("x/y/z.txt", "z")
        self.assertIn("make_dirs", str(cm.exception))
        ch = self.r.write_file("x/y/z.txt", "z", make_dirs=True)
        self.assertEqual(ch.path, self.t.p("root/x/y/z.txt"))
        self.assertEqual(self.read("root/x/y/z.txt"), b"z")

    def test_through_links_inside(self):
        ch = self.r.write_file("rel-link", "via link\n")
        self.assertEqual(ch.path, self.t.p("root/sub/b.txt"))
        self.assertTrue(os.path.islink(self.t.p("root/rel-link")), "the link stays a link")
        self.assertEqual(self.read("root/sub/b.txt"), b"via link\n")
        ch = self.r.write_file("dangling-in", "made\n")
        self.assertEqual(ch.path, self.t.p("root/sub/created.txt"))
        ch = self.r.write_file("abs-link", "abs\n")
        self.assertEqual(ch.path, self.t.p("root/sub/b.txt"))

    def test_never_out(self):
        for path in ("out-rel", "out-abs", "dangling-out", "out-dir/new.txt", "../outside/new.txt",
                     self.t.p("outside/new.txt"), "zigzag"):
            with self.subTest(path=path):
                with self.assertRaises(OutsideError):
                    self.r.write_file(path, "pwned")
        self.assertEqual(self.read("outside/secret.txt"), SECRET.encode())
        self.assertFalse(os.path.exists(self.t.p("outside/new.txt")))

    def test_not_a_file(self):
        with self.assertRaises(PathError):
            self.r.write_file("sub", "x")
        with self.assertRaises(PathError):
            self.r.write_file(".", "x")

    def test_concurrent_readers_see_whole_files(self):
        old, new = b"o" * 200000, b"n" * 300000
        self.r.write_file("f", old)
        stop = threading.Event()
        bad = []

        def reader():
            while not stop.is_set():
                data = self.r.read_bytes("f")
                if data not in (old, new):
                    bad.append(len(data))

        th = threading.Thread(target=reader)
        th.start()
        try:
            for i in range(30):
                self.r.write_file("f", new if i % 2 else old)
        finally:
            stop.set()
            th.join()
        self.assertEqual(bad, [])


class RootsSetupTest(unittest.TestCase):
    def test_served_folders(self):
        t = Tree()
        self.addCleanup(t.close)
        with self.assertRaises(RootsError):
            Roots(["relative/path"])
        with self.assertRaises(RootsError):
            Roots([t.p("missing")])
        link = t.p("root-link")
        os.symlink(t.root, link)
        with self.assertRaises(RootsError) as cm:
            Roots([link])
        self.assertIn("changed", str(cm.exception))

    def test_rel_and_several_roots(self):
        t = Tree()
        self.addCleanup(t.close)
        with Roots([t.root, t.out]) as r:
            self.assertEqual(r.rel(t.p("root/sub/b.txt")), "sub/b.txt")
            self.assertEqual(r.rel("sub/b.txt"), "sub/b.txt")
            self.assertEqual(r.rel(t.root), ".")
            self.assertEqual(r.rel(t.p("outside/secret.txt")), t.p("outside/secret.txt"), "a later root: absolute")
            self.assertEqual(r.root_of(t.p("outside/b.txt")), t.out)
            self.assertEqual(r.read_text(t.p("outside/secret.txt")), SECRET)
            self.assertEqual(r.read_text("out-abs"), SECRET, "a link into another served folder")
            self.assertEqual(r.dirs, (t.root, t.out))

    def test_nothing_served(self):
        with Roots([]) as r:
            with self.assertRaises(OutsideError) as cm:
                r.read_text("a.txt")
            self.assertIn("none are served", str(cm.exception))
        with Roots([], read_outside=True) as r:
            self.assertTrue(r.read_text("/etc/hostname") is not None)


if __name__ == "__main__":
    unittest.main()
