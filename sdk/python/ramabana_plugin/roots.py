"""Confining the paths a tool takes to the folders the host serves.

A relative path is relative to the first root; an absolute one must lie in
a root. Symlinks are followed, but never out of the root: the check is made
by the access itself, beneath a file descriptor of the root's folder held
since the Roots was made, so a symlink or directory swapped in between a
check and the access leads nowhere.

- Where the kernel has openat2 (Linux 5.6+), a read opens in one system
  call with RESOLVE_BENEATH: the kernel refuses any lookup that would leave
  the folder (through "..", an absolute symlink or any symlink pointing
  out), renames racing the lookup included.
- Otherwise, and for what openat2 refuses (an absolute symlink, which may
  still point inside), the path is walked one component at a time with
  openat(O_NOFOLLOW) from the held folder: each symlink is read and
  resolved by the kit itself, and a step out of the folder ("..", or a
  target outside every root) is refused. Writes always walk: they need
  the real path for their FileChange, and may create folders.

Reads may leave the roots only when the host allows it (read_outside); then
a path outside is opened by its name. Writes never leave them.

Like the Go sdk's os.Root, the walk does not defend against a directory
being renamed out of the root while a call holds it.

    text = call.roots.read_text("notes/todo.md")
    change = call.roots.write_file("notes/todo.md", text + "- more\\n")
    call.record(change)
"""

import ctypes
import errno
import os
import secrets
import stat
import threading

from .results import FileChange, ToolError

MAX_LINKS = 40
"""Symlinks followed in one path, as the kernel's limit."""

_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_PATH = getattr(os, "O_PATH", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_NOCTTY = getattr(os, "O_NOCTTY", 0)


class RootsError(ToolError):
    """A served folder that cannot be served: not absolute, missing, not a
    folder, or changed since the host resolved it."""


class OutsideError(ToolError):
    """A path outside the served folders (for a read, unless the host
    allows reads outside)."""

    def __init__(self, path, roots, how=""):
        self.path = path
        self.roots = tuple(roots)
        where = ", ".join(roots) if roots else "none are served"
        msg = "path %s is outside the served folders (%s)" % (_q(path), where)
        if how:
            msg += "; " + how
        super().__init__(msg)


class PathError(ToolError):
    """A path inside the roots that cannot be accessed: missing, a folder
    where a file is wanted, refused by the system. errno is the system's
    error number (errno.ENOENT, ...), or 0."""

    def __init__(self, message, path, err=0):
        super().__init__(message)
        self.path = path
        self.errno = err


class _Escape(Exception):
    """The walk would leave the root (internal)."""


# --- openat2 -----------------------------------------------------------------

_SYS_OPENAT2 = 437  # the same number on every Linux architecture
_RESOLVE_NO_MAGICLINKS = 0x02
_RESOLVE_BENEATH = 0x08


class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]


_libc = None
_libc_lock = threading.Lock()


def _syscall():
    global _libc
    with _libc_lock:
        if _libc is None:
            try:
                _libc = ctypes.CDLL(None, use_errno=True)
                _libc.syscall.restype = ctypes.c_long
            except (OSError, AttributeError):
                _libc = False
    return _libc.syscall if _libc else None


def _openat2(dirfd, path, flags, mode):
    """openat2(dirfd, path, {flags, mode, RESOLVE_BENEATH|NO_MAGICLINKS});
    OSError as os.open raises it."""
    sc = _syscall()
    if sc is None:
        raise OSError(errno.ENOSYS, "openat2 is not available")
    how = _OpenHow(flags | _O_CLOEXEC, mode if flags & os.O_CREAT else 0, _RESOLVE_BENEATH | _RESOLVE_NO_MAGICLINKS)
    while True:
        fd = sc(ctypes.c_long(_SYS_OPENAT2), ctypes.c_int(dirfd), ctypes.c_char_p(os.fsencode(path)),
                ctypes.byref(how), ctypes.c_size_t(ctypes.sizeof(how)))
        if fd >= 0:
            return fd
        e = ctypes.get_errno()
        if e != errno.EINTR:
            raise OSError(e, os.strerror(e), path)


def openat2_works(dirfd):
    """Whether openat2 with RESOLVE_BENEATH works here: a kernel without it
    (ENOSYS) or a seccomp filter refusing it (EPERM) is found once."""
    if not hasattr(os, "O_PATH"):
        return False
    try:
        os.close(_openat2(dirfd, ".", _O_PATH, 0))
        return True
    except OSError:
        return False


# --- Roots -------------------------------------------------------------------

class Roots:
    """The served folders, each held open, through which a tool reaches
    the paths it is given. Safe for concurrent use; close() when done (the
    toolbox keeps one per host context).

    beneath=False turns openat2 off (every access walks), for tests; the
    default uses it where the kernel has it."""

    def __init__(self, dirs, read_outside=False, beneath=None):
        self._dirs, self._fds = [], []
        self._read_outside = bool(read_outside)
        try:
            for d in dirs:
                self._add(d)
        except BaseException:
            self.close()
            raise
        use = beneath if beneath is not None else True
        self._beneath = bool(use and self._fds and openat2_works(self._fds[0]))

    def _add(self, d):
        d = os.fspath(d)
        if not os.path.isabs(d):
            raise RootsError("served folder %s: not an absolute path" % _q(d))
        clean = _clean(d)
        try:
            real = os.path.realpath(clean, strict=True) if _has_strict() else os.path.realpath(clean)
        except OSError as e:
            raise RootsError("served folder %s: %s" % (_q(d), e.strerror)) from None
        if real != clean:
            raise RootsError("served folder %s: the served folder changed: it now resolves to %s through a "
                             "symbolic link; restart the server to serve it anew" % (_q(d), _q(real)))
        try:
            fd = os.open(clean, os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC)
        except OSError as e:
            raise RootsError("served folder %s: %s" % (_q(d), e.strerror)) from None
        self._dirs.append(clean)
        self._fds.append(fd)

    def close(self):
        """Closes the folders held open."""
        fds, self._fds = self._fds, []
        for fd in fds:
            try:
                os.close(fd)
            except OSError:
                pass

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def dirs(self):
        """The served folders, in the host's order."""
        return tuple(self._dirs)

    @property
    def read_outside(self):
        """Whether reads may leave the roots."""
        return self._read_outside

    @property
    def uses_openat2(self):
        """Whether reads open with openat2 (else every access walks)."""
        return self._beneath

    def abspath(self, path):
        """path made absolute against the first root and cleaned
        lexically, without touching the file system (symlinks are not
        resolved). OutsideError for a relative path when nothing is served."""
        p = _check_path(path)
        if os.path.isabs(p):
            return _clean(p)
        if not self._dirs:
            raise OutsideError(p, self._dirs)
        return _clean(os.path.join(self._dirs[0], p))

    def root_of(self, path):
        """The served folder containing path (lexically, after abspath), or
        None."""
        i = self._index(self.abspath(path))
        return self._dirs[i] if i >= 0 else None

    def rel(self, path):
        """The path to show for path: relative to the first root when it is
        inside it ("." for the root itself), else absolute, so that what
        rel shows resolves back to the same file."""
        a = self.abspath(path)
        if self._dirs and _within(self._dirs[0], a):
            return os.path.relpath(a, self._dirs[0])
        return a

    def _index(self, abs_path):
        for i, d in enumerate(self._dirs):
            if _within(d, abs_path):
                return i
        return -1

    # -- reading ------------------------------------------------------------
    def open(self, path, mode="rb", encoding=None, errors=None):
        """Opens the regular file at path for reading ("rb" or "r", with
        encoding and errors as the built-in open takes them) and returns
        the file object. OutsideError, or PathError for a file that is
        missing or not a regular file."""
        if mode not in ("r", "rb", "rt"):
            raise ValueError("Roots.open reads (mode 'r' or 'rb'); write with write_file")
        fd = self._open_read(path)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise PathError("%s is %s, not a file" % (_q(path), _what(st.st_mode)), path,
                                errno.EISDIR if stat.S_ISDIR(st.st_mode) else errno.EINVAL)
            _blocking(fd)
            if mode == "rb":
                return os.fdopen(fd, "rb")
            return os.fdopen(fd, "r", encoding=encoding or "utf-8", errors=errors)
        except BaseException:
            os.close(fd)
            raise

    def read_bytes(self, path, limit=None):
        """The content of the regular file at path. With limit, a file
        larger than limit bytes is a PathError (EFBIG) saying so."""
        with self.open(path, "rb") as f:
            data = f.read() if limit is None else f.read(limit + 1)
        if limit is not None and len(data) > limit:
            raise PathError("%s is larger than %d bytes" % (_q(path), limit), path, errno.EFBIG)
        return data

    def read_text(self, path, encoding="utf-8", errors="strict", limit=None):
        """The text of the file at path (UTF-8 unless encoding says
        otherwise). Text that does not decode is a PathError saying so."""
        data = self.read_bytes(path, limit)
        try:
            return data.decode(encoding, errors)
        except UnicodeDecodeError as e:
            raise PathError("%s is not %s text (byte %d): %s" % (_q(path), encoding, e.start, e.reason),
                            path, errno.EILSEQ) from None

    def stat(self, path):
        """os.stat of path, symlinks followed inside the roots."""
        fd = self._open_read(path, flags=_O_PATH or os.O_RDONLY)
        try:
            return os.fstat(fd)
        finally:
            os.close(fd)

    def list_dir(self, path="."):
        """The names in the folder at path, sorted."""
        fd = self._open_read(path, flags=os.O_RDONLY | _O_DIRECTORY)
        try:
            return sorted(os.listdir(fd))
        finally:
            os.close(fd)

    def _open_read(self, path, flags=os.O_RDONLY | _O_NONBLOCK | _O_NOCTTY):
        p = _check_path(path)
        a = self.abspath(p)
        i = self._index(a)
        try:
            if i < 0:
                if not self._read_outside:
                    raise OutsideError(p, self._dirs)
                return os.open(a, flags | _O_CLOEXEC)
            rel = os.path.relpath(a, self._dirs[i])
            try:
                return self._open_beneath(i, rel, flags)
            except _Escape as e:
                if not self._read_outside:
                    raise OutsideError(p, self._dirs, str(e)) from None
                return os.open(a, flags | _O_CLOEXEC)
        except OSError as e:
            raise _path_error(p, e) from None

    def _open_beneath(self, i, rel, flags, mode=0o666):
        if self._beneath:
            for _ in range(16):
                try:
                    return _openat2(self._fds[i], rel, flags, mode)
                except OSError as e:
                    if e.errno == errno.EAGAIN:
                        continue  # a rename raced the lookup: the kernel asks to retry
                    if e.errno != errno.EXDEV:
                        raise
                    break  # leaves the folder, or an absolute symlink: the walk decides
        return self._walk(i, rel, flags, mode)[0]

    def _walk(self, i, rel, flags, mode=0o666, mkdir=False):
        """Opens rel beneath root i one component at a time, resolving
        symlinks itself. Returns (fd, its real absolute path). _Escape
        when a step leaves the root."""
        stack = [os.dup(self._fds[i])]
        names = []  # the real components below the root, as stack holds them
        parts = _split(rel)
        links = 0
        try:
            while parts:
                c = parts.pop(0)
                if c in ("", "."):
                    continue
                if c == "..":
                    if len(stack) == 1:
                        raise _Escape("a \"..\" in it, or in a symbolic link, leads out of %s" % self._dirs[i])
                    os.close(stack.pop())
                    names.pop()
                    continue
                last = not parts
                cur = stack[-1]
                try:
                    fd = os.open(c, _O_PATH | _O_NOFOLLOW | _O_CLOEXEC, dir_fd=cur)
                except FileNotFoundError:
                    if last and flags & os.O_CREAT:
                        fd = os.open(c, flags | _O_NOFOLLOW | _O_CLOEXEC, mode, dir_fd=cur)
                        return fd, os.path.join(self._dirs[i], *names, c)
                    if mkdir and (not last or flags & _O_DIRECTORY):
                        try:
                            os.mkdir(c, 0o777, dir_fd=cur)
                        except FileExistsError:
                            pass
                        parts.insert(0, c)
                        continue
                    raise
                st = os.fstat(fd)
                if stat.S_ISLNK(st.st_mode):
                    try:
                        target = os.readlink("", dir_fd=fd)
                    finally:
                        os.close(fd)
                    links += 1
                    if links > MAX_LINKS:
                        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), rel)
                    if os.path.isabs(target):
                        j, rest = self._root_prefix(target)
                        if j < 0:
                            raise _Escape("a symbolic link in it points to %s" % target)
                        for fd_ in stack:
                            os.close(fd_)
                        stack, names, i = [os.dup(self._fds[j])], [], j
                        parts = rest + parts
                    else:
                        parts = _split(target) + parts
                    continue
                if not last:
                    if not stat.S_ISDIR(st.st_mode):
                        os.close(fd)
                        raise OSError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), rel)
                    stack.append(fd)
                    names.append(c)
                    continue
                real = os.path.join(self._dirs[i], *names, c)
                if flags & _O_PATH and _O_PATH:
                    return fd, real
                os.close(fd)
                try:
                    return os.open(c, flags | _O_NOFOLLOW | _O_CLOEXEC, mode, dir_fd=cur), real
                except OSError as e:
                    if e.errno not in (errno.ELOOP, errno.ENOTDIR):
                        raise
                    parts.insert(0, c)  # swapped for a symlink meanwhile: resolve it
                    links += 1
                    if links > MAX_LINKS:
                        raise
            # rel was the root itself, or ended in ".."
            real = os.path.join(self._dirs[i], *names) if names else self._dirs[i]
            return os.open(".", flags | _O_CLOEXEC, mode, dir_fd=stack[-1]), real
        finally:
            for fd_ in stack:
                os.close(fd_)

    def _root_prefix(self, target):
        """(root index, the components after it) of an absolute symlink
        target naming a path in a root; (-1, None) otherwise."""
        comps = [c for c in _split(target) if c not in ("", ".")]
        for j, d in enumerate(self._dirs):
            dc = _split(d)
            dc = [c for c in dc if c]
            if comps[:len(dc)] == dc and ".." not in comps[:len(dc)]:
                return j, comps[len(dc):]
        return -1, None

    # -- writing ------------------------------------------------------------
    def write_file(self, path, data, make_dirs=False, encoding="utf-8"):
        """Writes data (bytes, or str encoded with encoding) to the file at
        path, atomically: a temporary file beside it, written and synced,
        renamed over it, the folder synced; a reader sees the old content
        or the new, never part of it. A symlink at path is written through,
        inside the roots only. An existing file keeps its permissions; a
        new one gets 0666 less the umask. With make_dirs, missing folders
        are created. Returns the FileChange (record it with call.record).
        OutsideError for a path outside the roots, whatever read_outside
        says; PathError when it cannot be written."""
        if isinstance(data, str):
            data = data.encode(encoding)
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError("write_file takes bytes or str, not %s" % type(data).__name__)
        data = bytes(data)
        p = _check_path(path)
        target = p
        for _ in range(MAX_LINKS + 1):
            a = self.abspath(target)
            i = self._index(a)
            if i < 0:
                raise OutsideError(p, self._dirs, "writes stay inside them" if target == p else
                                   "a symbolic link at it points to %s" % a)
            rel = os.path.relpath(a, self._dirs[i])
            if rel == ".":
                raise PathError("%s is a served folder itself, not a file in one" % _q(p), p, errno.EISDIR)
            parent, name = os.path.split(rel)
            try:
                dfd, real_parent = self._walk(i, parent or ".", os.O_RDONLY | _O_DIRECTORY, mkdir=make_dirs)
            except _Escape as e:
                raise OutsideError(p, self._dirs, str(e)) from None
            except FileNotFoundError:
                raise PathError("the folder of %s does not exist (make_dirs=True creates it)" % _q(p), p,
                                errno.ENOENT) from None
            except OSError as e:
                raise _path_error(p, e) from None
            try:
                link = self._link_at(dfd, name)
                if link is None:
                    return self._replace(dfd, real_parent, name, data, p)
            finally:
                os.close(dfd)
            # A symlink at the name: write through it, confined as any path.
            target = link if os.path.isabs(link) else os.path.join(real_parent, link)
        raise PathError("%s: too many levels of symbolic links" % _q(p), p, errno.ELOOP)

    @staticmethod
    def _link_at(dfd, name):
        try:
            st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
        except FileNotFoundError:
            return None
        if stat.S_ISLNK(st.st_mode):
            return os.readlink(name, dir_fd=dfd)
        return None

    def _replace(self, dfd, real_parent, name, data, shown):
        abs_path = os.path.join(real_parent, name)
        before, perm = None, 0o666
        try:
            fd = os.open(name, os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_NOCTTY | _O_CLOEXEC, dir_fd=dfd)
        except FileNotFoundError:
            fd = None
        except OSError as e:
            raise _path_error(shown, e) from None
        if fd is not None:
            try:
                st = os.fstat(fd)
                if not stat.S_ISREG(st.st_mode):
                    raise PathError("%s is %s, not a file" % (_q(shown), _what(st.st_mode)), shown,
                                    errno.EISDIR if stat.S_ISDIR(st.st_mode) else errno.EINVAL)
                _blocking(fd)
                with os.fdopen(os.dup(fd), "rb") as f:
                    before = f.read()
                perm = stat.S_IMODE(st.st_mode)
            finally:
                os.close(fd)
        tmp = ".%s.%s.tmp" % (name[:200], secrets.token_hex(6))
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | _O_CLOEXEC, perm, dir_fd=dfd)
        except OSError as e:
            raise _path_error(shown, e) from None
        try:
            try:
                if before is not None:
                    os.fchmod(fd, perm)
                view = memoryview(data)
                while view:
                    n = os.write(fd, view)
                    view = view[n:]
                os.fsync(fd)
            finally:
                os.close(fd)
            os.rename(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except BaseException as e:
            try:
                os.unlink(tmp, dir_fd=dfd)
            except OSError:
                pass
            if isinstance(e, OSError):
                raise _path_error(shown, e) from None
            raise
        try:
            os.fsync(dfd)
        except OSError:
            pass  # some file systems cannot sync a folder; the rename is done
        return FileChange.of(abs_path, before, data)


# --- helpers -----------------------------------------------------------------

def _check_path(path):
    try:
        p = os.fspath(path)
    except TypeError:
        raise ToolError("a path must be a string; got %s" % type(path).__name__) from None
    if isinstance(p, bytes):
        p = os.fsdecode(p)
    if p == "":
        raise ToolError("empty path: give a file's path, relative to the first served folder or absolute")
    if "\x00" in p:
        raise ToolError("path %s contains a NUL byte" % _q(p))
    return p


def _clean(p):
    c = os.path.normpath(p)
    if c.startswith("//"):
        c = "/" + c.lstrip("/")
    return c


def _split(p):
    return [c for c in p.split("/") if c != ""] if p not in ("", ".") else []


def _within(root, p):
    if p == root:
        return True
    if root.endswith("/"):
        return p.startswith(root)
    return p.startswith(root + "/")


def _has_strict():
    import sys
    return sys.version_info >= (3, 10)


def _blocking(fd):
    if _O_NONBLOCK:
        import fcntl
        fl = fcntl.fcntl(fd, fcntl.F_GETFL)
        fcntl.fcntl(fd, fcntl.F_SETFL, fl & ~_O_NONBLOCK)


def _what(mode):
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


_ERRNO_WORDS = {
    errno.ENOENT: "does not exist",
    errno.ENOTDIR: "has a file where a folder is expected",
    errno.EISDIR: "is a folder",
    errno.EACCES: "is not accessible (permission denied)",
    errno.EPERM: "is not accessible (operation not permitted)",
    errno.ELOOP: "has too many levels of symbolic links",
    errno.ENAMETOOLONG: "is too long",
    errno.EEXIST: "already exists",
    errno.ENOSPC: "cannot be written: the disk is full",
    errno.EROFS: "is on a read-only file system",
}


def _path_error(path, e):
    if isinstance(e, ToolError):
        return e
    words = _ERRNO_WORDS.get(e.errno, e.strerror or str(e))
    return PathError("%s %s" % (_q(path), words), path, e.errno or 0)


def _q(s):
    import json
    return json.dumps(s, ensure_ascii=False)
