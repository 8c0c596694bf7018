"""One executable file: the author's module and the kit in a zipapp.

    python3 -m ramabana_plugin bundle hello_plugin.py --python /usr/bin/python3
    # -> dist/ramabana-plugin-hello

`ramabana-mcp plugin install` copies exactly one file, and the host passes
a plugin no PYTHONPATH: the bundle is a zip file (Python's zipapp format)
behind a `#!` line, holding the author's module (and any --include files
or packages), this kit, and a __main__ that runs the module as
__main__. Only grpcio and protobuf come from the interpreter's own
packages.

The file is written beside its final name and renamed over it (never a
half-written plugin), with fixed timestamps so the same sources give the
same bytes. Unless told not to, the bundle is first started as the host
starts a plugin and described, with the host's checks (ramabana_plugin.
testing.launch): a bundle that does not serve is not written. Its default
name, ramabana-plugin-<name>, comes from that description.
"""

import io
import os
import stat
import sys
import tempfile
import zipfile

DEFAULT_PYTHON = "/usr/bin/env python3"
_EPOCH = (1980, 1, 1, 0, 0, 0)


class BundleError(Exception):
    """A bundle that could not be made; the message says why and what to do."""


def _main_py(module):
    return ('"""Runs the plugin module %s (a ramabana-mcp plugin bundle)."""\n'
            "import runpy\n\n"
            "runpy.run_module(%r, run_name=\"__main__\", alter_sys=True)\n" % (module, module))


def _kit_files():
    """(archive name, bytes) of every .py file of this kit."""
    here = os.path.dirname(os.path.abspath(__file__))
    if not os.path.isdir(here):
        raise BundleError("the kit runs from %s, not a folder: bundle from a source tree or an installed kit" % here)
    out = []
    for name in sorted(os.listdir(here)):
        if name.endswith(".py"):
            with open(os.path.join(here, name), "rb") as f:
                out.append(("ramabana_plugin/" + name, f.read()))
    return out


def _tree(path, arc_base):
    """(archive name, bytes) of a file, or of every file under a folder
    (caches and hidden files left out)."""
    if os.path.isfile(path):
        with open(path, "rb") as f:
            return [(arc_base, f.read())]
    out = []
    for root, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        for name in sorted(files):
            if name.startswith(".") or name.endswith((".pyc", ".pyo")):
                continue
            full = os.path.join(root, name)
            rel = os.path.relpath(full, path).replace(os.sep, "/")
            with open(full, "rb") as f:
                out.append((arc_base + "/" + rel, f.read()))
    return out


def build_zip(source, include=()):
    """The zip bytes of a bundle of source (the plugin's main module, a .py
    file) with include (more files or package folders, placed at the
    archive's root under their own names) and the kit."""
    if not source.endswith(".py") or not os.path.isfile(source):
        raise BundleError("%s is not a Python file: give the plugin's main module, e.g. hello_plugin.py" % source)
    module = os.path.basename(source)[:-3]
    if not module.isidentifier():
        raise BundleError("%s: the module name %r is not a Python identifier" % (source, module))
    if module in ("ramabana_plugin", "__main__", "grpc", "google"):
        raise BundleError("%s: a plugin module may not be named %s" % (source, module))
    entries = {}

    def add(items, what):
        for arc, data in items:
            if arc in entries:
                raise BundleError("%s: %s is in the bundle twice" % (what, arc))
            entries[arc] = data

    add(_tree(source, module + ".py"), source)
    for inc in include:
        inc = inc.rstrip("/")
        if not os.path.exists(inc):
            raise BundleError("--include %s: no such file or folder" % inc)
        add(_tree(inc, os.path.basename(inc)), inc)
    if "ramabana_plugin" in {a.split("/")[0] for a in entries}:
        raise BundleError("the kit is added by bundle itself: do not --include ramabana_plugin")
    add(_kit_files(), "the kit")
    add([("__main__.py", _main_py(module).encode())], "__main__")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for arc in sorted(entries):
            info = zipfile.ZipInfo(arc, date_time=_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (stat.S_IFREG | 0o644) << 16
            z.writestr(info, entries[arc])
    return buf.getvalue()


def bundle(source, output=None, python=DEFAULT_PYTHON, include=(), check=True, out_dir="dist"):
    """Writes the bundle of source (see build_zip) to output, executable,
    with the shebang `#!<python>`, and returns its path. With check, the
    bundle is first launched and described as the host would (needs the
    interpreter the shebang names); output defaults to
    <out_dir>/ramabana-plugin-<the described name>. Without check, output
    is required."""
    if not check and not output:
        raise BundleError("give --output when the bundle is not checked: its name comes from its description")
    if not python or "\n" in python:
        raise BundleError("--python %r is not an interpreter" % python)
    data = b"#!" + python.encode() + b"\n" + build_zip(source, include)
    target_dir = os.path.dirname(os.path.abspath(output)) if output else os.path.abspath(out_dir)
    os.makedirs(target_dir, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".bundle-", suffix=".tmp", dir=target_dir)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fchmod(f.fileno(), 0o755)
            os.fsync(f.fileno())
        if check:
            name = _check(tmp)
            output = output or os.path.join(target_dir, "ramabana-plugin-" + name)
        os.replace(tmp, output)
    except BaseException:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise
    try:
        dfd = os.open(target_dir, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass
    return output


def _check(path):
    """Launches the bundle at path as the host does and describes it;
    returns the plugin's name. BundleError with its stderr if it fails."""
    try:
        from . import testing
    except ImportError as e:
        raise BundleError("cannot check the bundle without grpcio and protobuf (%s); install them, or use "
                          "--no-check" % e) from None
    try:
        with testing.launch([path]) as plugin:
            return plugin.name
    except Exception as e:
        raise BundleError("the bundle does not serve: %s\n(the interpreter in its #! line must have grpcio and "
                          "protobuf; --python names another)" % e) from None


def main(argv):
    """`python3 -m ramabana_plugin bundle ...`."""
    import argparse
    ap = argparse.ArgumentParser(prog="python3 -m ramabana_plugin bundle",
                                 description="Makes one executable file of a plugin: its module, --include'd "
                                             "files and this kit, in a zipapp.")
    ap.add_argument("source", help="the plugin's main module, a .py file that calls serve() under __main__")
    ap.add_argument("-o", "--output", help="the file to write (default: dist/ramabana-plugin-<name>)")
    ap.add_argument("--python", default=DEFAULT_PYTHON,
                    help="the interpreter of the #! line (default: %(default)s); one that has grpcio and protobuf")
    ap.add_argument("--include", action="append", default=[], metavar="PATH",
                    help="another module or package folder to bundle (repeatable)")
    ap.add_argument("--no-check", dest="check", action="store_false",
                    help="do not start and describe the bundle before writing it")
    args = ap.parse_args(argv)
    try:
        out = bundle(args.source, args.output, args.python, args.include, args.check)
    except BundleError as e:
        print("bundle: %s" % e, file=sys.stderr)
        return 1
    print("built %s" % out)
    return 0
