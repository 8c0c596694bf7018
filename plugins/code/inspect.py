# inspect_python's helper: resolves sys.argv[1], a dotted name, by
# importing the longest importable module prefix and getting the rest as
# attributes, and prints one JSON object after a marker line on the
# original stdout. Whatever imported code prints goes to stderr.
import difflib
import importlib
import inspect
import json
import os
import sys
import traceback

MARKER = "\x00ramabana-inspect\x00"
MAX_DOC = 6000
MAX_MEMBERS = 120
MAX_LINE = 160

out = sys.stdout
sys.stdout = sys.stderr


def emit(obj):
    out.write(MARKER + json.dumps(obj) + "\n")
    out.flush()


def last_line(exc):
    lines = traceback.format_exception_only(type(exc), exc)
    return lines[-1].strip() if lines else type(exc).__name__


def cut(s, n):
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1] + "…"


def kind_of(obj):
    if inspect.ismodule(obj):
        return "package" if hasattr(obj, "__path__") else "module"
    if inspect.isclass(obj):
        return "class"
    if isinstance(obj, (staticmethod,)):
        return "staticmethod"
    if isinstance(obj, (classmethod,)):
        return "classmethod"
    if isinstance(obj, property):
        return "property"
    if inspect.iscoroutinefunction(obj):
        return "async function"
    if inspect.isgeneratorfunction(obj):
        return "generator function"
    if inspect.ismethod(obj):
        return "method"
    if inspect.isfunction(obj):
        return "function"
    if inspect.isbuiltin(obj):
        return "builtin function"
    if inspect.ismethoddescriptor(obj) or inspect.isdatadescriptor(obj):
        return "descriptor"
    if callable(obj):
        return "callable " + type(obj).__name__
    return "value of type " + type(obj).__module__ + "." + type(obj).__qualname__


def signature(obj):
    target = obj
    if isinstance(obj, (staticmethod, classmethod)):
        target = obj.__func__
    if isinstance(obj, property):
        target = obj.fget
    try:
        return str(inspect.signature(target))
    except (TypeError, ValueError):
        return None


def source_of(obj):
    target = obj
    if isinstance(obj, (staticmethod, classmethod)):
        target = obj.__func__
    if isinstance(obj, property):
        target = obj.fget
    target = inspect.unwrap(target) if callable(target) else target
    info = {}
    try:
        info["file"] = inspect.getsourcefile(target) or inspect.getfile(target)
    except TypeError:
        return info
    try:
        lines, start = inspect.getsourcelines(target)
        info["line"] = start if start else 1
        info["end_line"] = (start if start else 1) + len(lines) - 1
    except (OSError, TypeError):
        pass
    return info


def first_doc_line(obj):
    """The first line of obj's own docstring, not one it inherits."""
    if isinstance(obj, property):
        obj = obj.fget
    doc = getattr(obj, "__doc__", None)
    if not isinstance(doc, str) or not doc.strip():
        return ""
    return doc.strip().splitlines()[0].strip()


def member_line(name, value):
    kind = kind_of(value)
    line = kind + " " + name
    if kind != "class" and not kind.startswith("value") and kind not in ("module", "package"):
        sig = signature(value)
        if sig is not None:
            line += sig
    elif kind == "class":
        sig = signature(value)
        if sig is not None:
            line += sig
    elif kind.startswith("value"):
        try:
            line += " = " + cut(repr(value), 80)
        except Exception:
            pass
    line = cut(line, MAX_LINE)
    doc = first_doc_line(value) if not kind.startswith("value") else ""
    if doc and len(line) < MAX_LINE - 10:
        line += "  # " + cut(doc, MAX_LINE - len(line) - 4)
    return line


def class_members(cls):
    members = []
    for name, value in vars(cls).items():
        if name.startswith("_") and name != "__init__" and name != "__call__":
            continue
        members.append((name, value))
    inherited = []
    for base in cls.__mro__[1:]:
        if base is object:
            continue
        for name, value in vars(base).items():
            if name.startswith("_") or name in vars(cls) or any(n == name for n, _, _ in inherited):
                continue
            inherited.append((name, value, base.__qualname__))
    return members, inherited


def module_members(mod):
    names = getattr(mod, "__all__", None)
    filtered = False
    if names is None:
        names = [n for n in vars(mod) if not n.startswith("_")]
        kept = []
        for n in names:
            v = vars(mod)[n]
            if inspect.ismodule(v):
                if not v.__name__.startswith(mod.__name__ + "."):
                    filtered = True
                    continue
            else:
                owner = getattr(v, "__module__", None)
                if isinstance(owner, str) and owner != mod.__name__ and not owner.startswith(mod.__name__ + ".") \
                        and (inspect.isclass(v) or inspect.isfunction(v)):
                    filtered = True
                    continue
            kept.append(n)
        names = kept
    out = []
    for n in names:
        try:
            out.append((n, getattr(mod, n)))
        except AttributeError:
            continue
    return out, filtered


def resolve(target):
    parts = target.split(".")
    mod, used = None, 0
    # Import a.b.c as far as it goes: a, then a.b, ...; the first prefix
    # that is not a module ends the imports, the rest are attributes. A
    # module that exists but fails to import is an error.
    for i in range(1, len(parts) + 1):
        name = ".".join(parts[:i])
        try:
            mod = importlib.import_module(name)
            used = i
        except ModuleNotFoundError as e:
            if e.name == name:
                if i == 1:
                    return None, {"error": "no_module", "module": name, "message": last_line(e)}
                break
            return None, {"error": "import", "module": name, "message": last_line(e)}
        except BaseException as e:  # SyntaxError, ImportError, SystemExit...
            return None, {"error": "import", "module": name, "message": last_line(e)}
    obj, path = mod, parts[0:used]
    owner = None
    for attr in parts[used:]:
        if inspect.isclass(obj):
            # Prefer the raw class attribute: staticmethod, classmethod and
            # property keep what they are.
            raw = None
            for klass in obj.__mro__:
                if attr in vars(klass):
                    raw = vars(klass)[attr]
                    break
            if raw is not None:
                owner, obj = obj, raw
                path.append(attr)
                continue
        try:
            owner, obj = obj, getattr(obj, attr)
        except AttributeError:
            try:
                names = dir(obj)
            except Exception:
                names = []
            close = difflib.get_close_matches(attr, names, n=5)
            return None, {"error": "attribute", "owner": ".".join(path), "name": attr,
                          "owner_kind": kind_of(obj), "suggestions": close}
        except BaseException as e:
            return None, {"error": "attribute", "owner": ".".join(path), "name": attr,
                          "owner_kind": kind_of(obj), "message": last_line(e), "suggestions": []}
        path.append(attr)
    return (obj, ".".join(parts[:used])), None


def isolate(roots):
    """Project code must not be imported: python3 runs with -I -S, so
    neither cwd, PYTHONPATH nor site (whose .pth files run code and add
    editable installs of the project) is on sys.path. The installed
    packages' folders are added back, unless they lie inside a served
    folder (a virtualenv in the repository)."""
    real_roots = [os.path.realpath(r) for r in roots]

    def inside(p):
        p = os.path.realpath(p)
        return any(p == r or p.startswith(r.rstrip(os.sep) + os.sep) for r in real_roots)

    import sysconfig
    paths = sysconfig.get_paths()
    for key in ("purelib", "platlib"):
        p = paths.get(key)
        if p and os.path.isdir(p) and not inside(p) and p not in sys.path:
            sys.path.append(p)


def main():
    target = sys.argv[1]
    cwd = sys.argv[2]
    if cwd and cwd not in sys.path:
        sys.path.insert(0, cwd)
    if not cwd:
        isolate(json.loads(sys.argv[3]))
    resolved, err = resolve(target)
    if err is not None:
        emit(err)
        return
    obj, module = resolved
    res = {"target": target, "module": module, "kind": kind_of(obj),
           "python": sys.version.split()[0]}
    sig = None
    if not inspect.ismodule(obj):
        sig = signature(obj)
    if sig is not None:
        res["signature"] = sig
    try:
        doc = inspect.getdoc(obj)
    except Exception:
        doc = None
    if doc and (inspect.ismodule(obj) or inspect.isclass(obj) or callable(obj)
                or isinstance(obj, (property, staticmethod, classmethod))):
        res["doc"] = doc if len(doc) <= MAX_DOC else doc[:MAX_DOC] + "\n… (docstring cut)"
    res.update(source_of(obj))
    if res["kind"].startswith("value"):
        try:
            res["value"] = cut(repr(obj), 2000)
        except Exception as e:
            res["value"] = "<repr failed: %s>" % last_line(e)
    if inspect.isclass(obj):
        res["bases"] = [b.__module__ + "." + b.__qualname__ if b.__module__ != "builtins" else b.__qualname__
                        for b in obj.__bases__]
        own, inherited = class_members(obj)
        res["members"] = [member_line(n, v) for n, v in own[:MAX_MEMBERS]]
        res["members_left"] = max(0, len(own) - MAX_MEMBERS)
        res["inherited"] = ["%s (from %s)" % (n, b) for n, _, b in inherited[:MAX_MEMBERS]]
        res["inherited_left"] = max(0, len(inherited) - MAX_MEMBERS)
    elif inspect.ismodule(obj):
        members, filtered = module_members(obj)
        res["members"] = [member_line(n, v) for n, v in members[:MAX_MEMBERS]]
        res["members_left"] = max(0, len(members) - MAX_MEMBERS)
        res["imported_left_out"] = filtered
        res["has_all"] = hasattr(obj, "__all__")
    emit(res)


try:
    main()
except BaseException as e:  # report, never a traceback the caller cannot parse
    emit({"error": "internal", "message": last_line(e)})
# Threads an import started must not keep the process alive.
os._exit(0)
