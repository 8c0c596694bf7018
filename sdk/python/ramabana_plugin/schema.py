"""JSON Schemas from Python type hints, and arguments checked against them.

A typed tool's input schema is derived from its handler's signature: one
property per parameter, in order, typed by its hint; required unless it has
a default; described by Annotated metadata. Its output schema comes from the
return annotation when that is a dataclass, a TypedDict or a dict type.

    def top_words(
        text: Annotated[str, "the text to look at"],
        n: Annotated[int, Field("how many to list", minimum=1, maximum=100)] = 10,
        order: Literal["count", "alpha"] = "count",
        stop: Optional[list[str]] = None,
    ) -> WordList: ...

Supported hints: str, int, float, bool, list[T] (and List, Sequence),
dict / dict[str, T] (and Mapping), Optional[T] / T | None, Literal[...]
(an enum), enum.Enum subclasses (their values), dataclasses and TypedDicts
(nested objects), Any. Annotated[T, "description"] describes a parameter;
Annotated[T, Field(...)] also bounds it. Any other hint is an error when the
tool is declared, naming the parameter and the tool.

The schema's root is {"type": "object", "properties": ..., "required":
[...], "additionalProperties": false}. As the Go sdk does (PlainSchema), an
optional parameter that may be None is of its one type, and a top-level
property's description also says its default and bounds, "(default 10, 1
to 100)", since some clients strip those keywords before the model reads
the schema.

validate() checks a value against a schema (the subset of JSON Schema
these schemas use, plus anyOf, oneOf, allOf, const and pattern) and returns
the first problem in words a model can act on; bind() then turns JSON
values into the hinted Python types.
"""

import dataclasses
import enum
import json
import math
import re
import typing
from typing import Any, Union

try:  # Python >= 3.10: int | None
    from types import UnionType as _UnionType
except ImportError:  # pragma: no cover
    _UnionType = None

from .checks import SpecError

__all__ = ["Field", "input_schema", "output_schema", "validate", "bind", "to_json", "expected"]


class Field:
    """Describes and bounds a parameter or a dataclass field, as Annotated
    metadata: Annotated[int, Field("how many", minimum=1, maximum=100)].
    A plain string in Annotated is a description too. Bounds are JSON
    Schema's: minimum/maximum (inclusive), exclusive_minimum/
    exclusive_maximum, min_length/max_length and pattern (strings),
    min_items/max_items (lists); examples is a list of example values."""

    __slots__ = ("description", "minimum", "maximum", "exclusive_minimum", "exclusive_maximum",
                 "min_length", "max_length", "pattern", "min_items", "max_items", "examples")

    def __init__(self, description=None, *, minimum=None, maximum=None, exclusive_minimum=None,
                 exclusive_maximum=None, min_length=None, max_length=None, pattern=None,
                 min_items=None, max_items=None, examples=None):
        self.description = description
        self.minimum = minimum
        self.maximum = maximum
        self.exclusive_minimum = exclusive_minimum
        self.exclusive_maximum = exclusive_maximum
        self.min_length = min_length
        self.max_length = max_length
        self.pattern = pattern
        self.min_items = min_items
        self.max_items = max_items
        self.examples = examples

    def __repr__(self):
        set_ = ", ".join("%s=%r" % (k, getattr(self, k)) for k in self.__slots__ if getattr(self, k) is not None)
        return "Field(%s)" % set_

    def keywords(self):
        """The JSON Schema keywords this Field sets."""
        out = {}
        for attr, key in (("description", "description"), ("minimum", "minimum"), ("maximum", "maximum"),
                          ("exclusive_minimum", "exclusiveMinimum"), ("exclusive_maximum", "exclusiveMaximum"),
                          ("min_length", "minLength"), ("max_length", "maxLength"), ("pattern", "pattern"),
                          ("min_items", "minItems"), ("max_items", "maxItems"), ("examples", "examples")):
            v = getattr(self, attr)
            if v is not None:
                out[key] = v
        return out


_NONE = type(None)
_MISSING = object()


def _strip_annotated(tp):
    """(the type under Annotated, [metadata...])."""
    meta = []
    while typing.get_origin(tp) is typing.Annotated:
        meta.extend(tp.__metadata__)
        tp = typing.get_args(tp)[0]
    return tp, meta


def _is_union(tp):
    o = typing.get_origin(tp)
    return o is Union or (_UnionType is not None and o is _UnionType)


def _is_typeddict(tp):
    if hasattr(typing, "is_typeddict"):
        return typing.is_typeddict(tp)
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__total__")  # pragma: no cover


def _hints(obj):
    return typing.get_type_hints(obj, include_extras=True)


def _describe_meta(meta, schema, where):
    for m in meta:
        if isinstance(m, str):
            schema["description"] = m
        elif isinstance(m, Field):
            schema.update(m.keywords())
        # other metadata (a library's own) is left alone


def type_schema(tp, where, output=False):
    """The JSON Schema of values of the type hint tp. where names the
    parameter for errors; output keeps None as null (an output says null,
    an input leaves the argument out)."""
    tp, meta = _strip_annotated(tp)
    schema = _plain_type_schema(tp, where, output)
    _describe_meta(meta, schema, where)
    return schema


def _plain_type_schema(tp, where, output):
    if tp is Any or tp is object:
        return {}
    if tp is str:
        return {"type": "string"}
    if tp is bool:
        return {"type": "boolean"}
    if tp is int:
        return {"type": "integer"}
    if tp is float:
        return {"type": "number"}
    if tp is _NONE:
        return {"type": "null"}
    if _is_union(tp):
        args = [a for a in typing.get_args(tp)]
        nullable = _NONE in args
        rest = [a for a in args if a is not _NONE]
        subs = [type_schema(a, where, output) for a in rest]
        if len(subs) == 1:
            s = dict(subs[0])
        elif all(set(s) == {"type"} and isinstance(s["type"], str) for s in subs):
            s = {"type": [x["type"] for x in subs]}
        else:
            s = {"anyOf": subs}
        if nullable:
            s = _with_null(s)
        return s
    origin = typing.get_origin(tp)
    if origin is typing.Literal:
        values = list(typing.get_args(tp))
        for v in values:
            if not isinstance(v, (str, int, float, bool)) and v is not None:
                raise SpecError("%s: Literal value %r is not a JSON value" % (where, v))
        types = []
        for v in values:
            t = _json_type(v)
            if t not in types:
                types.append(t)
        return {"type": types[0] if len(types) == 1 else types, "enum": values}
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        values = [m.value for m in tp]
        types = []
        for v in values:
            if not isinstance(v, (str, int, float)) or isinstance(v, bool):
                raise SpecError("%s: enum %s has a value %r that is not a string or number" % (where, tp.__name__, v))
            t = _json_type(v)
            if t not in types:
                types.append(t)
        return {"type": types[0] if len(types) == 1 else types, "enum": values}
    if origin in (list, typing.List, tuple) or tp in (list, tuple) or origin in _sequence_origins():
        args = typing.get_args(tp)
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            raise SpecError("%s: %s: only tuple[T, ...] is supported; use list[T]" % (where, _name(tp)))
        s = {"type": "array"}
        if args:
            s["items"] = type_schema(args[0], where + "[]", output)
        return s
    if tp is dict or origin in (dict, typing.Dict) or origin in _mapping_origins():
        args = typing.get_args(tp)
        s = {"type": "object"}
        if args:
            if _strip_annotated(args[0])[0] is not str:
                raise SpecError("%s: %s: JSON object keys are strings: use dict[str, ...]" % (where, _name(tp)))
            s["additionalProperties"] = type_schema(args[1], where + "{}", output)
        return s
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return _object_schema(tp, where, output, _dataclass_fields(tp))
    if _is_typeddict(tp):
        hints = _hints(tp)
        required = getattr(tp, "__required_keys__", frozenset(hints))
        return _object_schema(tp, where, output, [(k, h, k in required, _MISSING) for k, h in hints.items()])
    raise SpecError("%s: type %s is not supported: use str, int, float, bool, list[...], dict[str, ...], "
                    "Optional[...], Literal[...], an Enum, a dataclass or a TypedDict" % (where, _name(tp)))


def _sequence_origins():
    import collections.abc as abc
    return (abc.Sequence, abc.MutableSequence, typing.Sequence)


def _mapping_origins():
    import collections.abc as abc
    return (abc.Mapping, abc.MutableMapping, typing.Mapping)


def _dataclass_fields(cls):
    hints = _hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        default = f.default
        if default is dataclasses.MISSING and f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        out.append((f.name, hints[f.name], default is dataclasses.MISSING, _MISSING if default is dataclasses.MISSING else default))
    return out


def _object_schema(cls, where, output, fields):
    """fields: (name, hint, required, default)."""
    props, required = {}, []
    for name, hint, req, default in fields:
        sub = where + "." + name if where else name
        if output:
            # An output always carries every field (None as null).
            props[name] = type_schema(hint, sub, output=True)
            required.append(name)
            continue
        props[name] = _param_schema(hint, sub, default)
        if req:
            required.append(name)
    s = {"type": "object", "properties": props}
    if required:
        s["required"] = required
    s["additionalProperties"] = False
    doc = _own_doc(cls)
    if doc:
        s["description"] = doc
    return s


def _own_doc(cls):
    """A class's own docstring, not the one dataclass() makes up."""
    doc = cls.__dict__.get("__doc__")
    if not doc or (dataclasses.is_dataclass(cls) and doc.startswith(cls.__name__ + "(")):
        return ""
    import inspect
    return inspect.cleandoc(doc)


def _param_schema(hint, where, default):
    """A parameter's (or input field's) schema: with a None default, an
    Optional is of its one type (left out rather than null); a default
    is said when it is JSON."""
    s = type_schema(hint, where)
    if default is None:
        s = _without_null(s)
    elif default is not _MISSING:
        try:
            s["default"] = json.loads(json.dumps(to_json(default)))
        except (TypeError, ValueError):
            pass  # a default JSON cannot carry is just not said
    return s


def _with_null(s):
    s = dict(s)
    if "enum" in s and None not in s["enum"]:
        s["enum"] = s["enum"] + [None]
    t = s.get("type")
    if isinstance(t, str):
        s["type"] = [t, "null"] if t != "null" else t
    elif isinstance(t, list):
        if "null" not in t:
            s["type"] = t + ["null"]
    elif "anyOf" in s:
        s["anyOf"] = s["anyOf"] + [{"type": "null"}]
    elif s:
        s = {"anyOf": [s, {"type": "null"}]}
    return s


def _without_null(s):
    s = dict(s)
    t = s.get("type")
    if isinstance(t, list) and "null" in t:
        rest = [x for x in t if x != "null"]
        s["type"] = rest[0] if len(rest) == 1 else rest
    if "enum" in s and None in s["enum"]:
        s["enum"] = [v for v in s["enum"] if v is not None]
    if "anyOf" in s:
        rest = [x for x in s["anyOf"] if x != {"type": "null"}]
        if len(rest) == 1:
            del s["anyOf"]
            s.update(rest[0])
        else:
            s["anyOf"] = rest
    return s


def _name(tp):
    return getattr(tp, "__name__", None) or repr(tp)


# --- tools -------------------------------------------------------------------

class Param:
    """One parameter of a typed handler: its name, hint and default."""

    __slots__ = ("name", "hint", "default")

    def __init__(self, name, hint, default):
        self.name, self.hint, self.default = name, hint, default

    @property
    def required(self):
        """Whether the parameter has no default."""
        return self.default is _MISSING


def input_schema(fn, tool, skip=()):
    """(the input schema of handler fn of tool, its [Param...]). Parameters
    whose hint is one of skip (the Call type) are left out of the schema:
    the kit passes them itself. Raises SpecError naming the tool and the
    parameter for what cannot be described."""
    import inspect
    sig = inspect.signature(fn)
    try:
        hints = _hints(fn)
    except Exception as e:  # a hint naming something undefined
        raise SpecError("tool %s: cannot read its type hints: %s" % (_q(tool), e)) from None
    props, required, params = {}, [], []
    for p in sig.parameters.values():
        where = "tool %s: parameter %s" % (_q(tool), _q(p.name))
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise SpecError("%s: *args and **kwargs cannot be described; name each parameter" % where)
        if p.name not in hints:
            raise SpecError("%s has no type hint: annotate it (str, int, list[str], ...)" % where)
        hint = hints[p.name]
        if _strip_annotated(hint)[0] in skip:
            params.append(Param(p.name, hint, _MISSING))
            continue
        if p.kind is p.POSITIONAL_ONLY:
            raise SpecError("%s is positional-only; arguments come by name" % where)
        default = _MISSING if p.default is p.empty else p.default
        try:
            props[p.name] = _param_schema(hint, p.name, default)
        except SpecError as e:
            raise SpecError("tool %s: parameter %s" % (_q(tool), e)) from None
        says_bounds(props[p.name])
        if default is _MISSING:
            required.append(p.name)
        params.append(Param(p.name, hint, default))
    schema = {"type": "object", "properties": props}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema, params


def output_schema(tp, tool):
    """The output schema of a typed output tp (a dataclass, a TypedDict or
    a dict type), whose root is an object as MCP requires; SpecError for
    any other type."""
    bare = _strip_annotated(tp)[0]
    is_dict = bare is dict or typing.get_origin(bare) in (dict, typing.Dict)
    if not (dataclasses.is_dataclass(bare) or _is_typeddict(bare) or is_dict):
        raise SpecError("tool %s: output type %s is not a dataclass, TypedDict or dict; the output schema's root "
                        "must be an object (return str for text, or ramabana_plugin.Result to build the result)"
                        % (_q(tool), _name(bare)))
    try:
        return type_schema(tp, "", output=True)
    except SpecError as e:
        raise SpecError("tool %s: output %s" % (_q(tool), e)) from None


def says_bounds(p):
    """Appends to p's description what its keywords say of a call that
    leaves it out or goes beyond it, "(default 2000, at least 1)", as the
    Go sdk's SaysBounds: a description already saying "default" keeps it
    said once; a false default and a minimum length of 1 go unsaid."""
    parts = []
    desc = p.get("description", "")
    if "default" in p and p["default"] is not False and "default" not in desc.lower():
        parts.append("default " + json.dumps(p["default"], ensure_ascii=False, separators=(",", ":")))
    lo, hi = p.get("minimum"), p.get("maximum")
    if lo is not None and hi is not None:
        parts.append("%s to %s" % (_g(lo), _g(hi)))
    elif lo is not None:
        parts.append("at least %s" % _g(lo))
    elif hi is not None:
        parts.append("at most %s" % _g(hi))
    if p.get("minLength", 0) > 1:
        parts.append("at least %d characters" % p["minLength"])
    if "maxLength" in p:
        parts.append("at most %d characters" % p["maxLength"])
    if p.get("format"):
        parts.append("format " + p["format"])
    if not parts:
        return
    said = "(" + ", ".join(parts) + ")"
    if said in desc:
        return
    p["description"] = said if not desc else desc + " " + said


def _g(x):
    """x as Go's %g prints it."""
    if isinstance(x, int) and not isinstance(x, bool):
        return "%g" % x if abs(x) >= 1e21 else str(x)
    return "%g" % x if not float(x).is_integer() or abs(x) >= 1e21 else str(int(x))


# --- checking ----------------------------------------------------------------

def _json_type(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, (list, tuple)):
        return "array"
    return "object"


def _is(v, t):
    """Whether the JSON value v is of JSON Schema type t."""
    if t == "integer":
        return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())
    if t == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
    return _json_type(v) == t


_ARTICLE = {"string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false",
            "array": "an array", "object": "an object", "null": "null"}
_GOT = {"string": "a string", "integer": "a number", "number": "a number", "boolean": "a boolean",
        "array": "an array", "object": "an object", "null": "null"}


def expected(s):
    """What schema s asks for, in words: "an integer from 1 to 100",
    "a string of at most 80 characters", "one of "a", "b"". """
    if not isinstance(s, dict) or not s:
        return "any value"
    if "enum" in s:
        return "one of " + ", ".join(_show(v) for v in s["enum"])
    if "const" in s:
        return _show(s["const"])
    if "anyOf" in s or "oneOf" in s:
        return " or ".join(expected(x) for x in s.get("anyOf") or s.get("oneOf"))
    types = s.get("type")
    types = types if isinstance(types, list) else [types] if types else []
    if not types:
        return "any value"
    words = []
    for t in types:
        w = _ARTICLE.get(t, t)
        if t in ("integer", "number"):
            w += _bounds(s)
        elif t == "string":
            w += _lengths(s, "minLength", "maxLength", "characters")
            if "pattern" in s:
                w += " matching %s" % _show(s["pattern"])
        elif t == "array":
            w += _lengths(s, "minItems", "maxItems", "items")
            if isinstance(s.get("items"), dict) and s["items"]:
                w += " of " + _plural(expected(s["items"]))
        words.append(w)
    return " or ".join(words)


def _plural(phrase):
    for a, b in (("a string", "strings"), ("an integer", "integers"), ("a number", "numbers"),
                 ("an array", "arrays"), ("an object", "objects"), ("true or false", "booleans")):
        if phrase.startswith(a):
            return b + phrase[len(a):]
    return phrase


def _bounds(s):
    lo, hi = s.get("minimum"), s.get("maximum")
    xlo, xhi = s.get("exclusiveMinimum"), s.get("exclusiveMaximum")
    parts = []
    if lo is not None and hi is not None:
        return " from %s to %s" % (_g(lo), _g(hi))
    if lo is not None:
        parts.append("at least %s" % _g(lo))
    if xlo is not None:
        parts.append("greater than %s" % _g(xlo))
    if hi is not None:
        parts.append("at most %s" % _g(hi))
    if xhi is not None:
        parts.append("less than %s" % _g(xhi))
    return (" " + " and ".join(parts)) if parts else ""


def _lengths(s, lo_key, hi_key, unit):
    lo, hi = s.get(lo_key), s.get(hi_key)
    if lo is not None and hi is not None:
        return " of %d to %d %s" % (lo, hi, unit)
    if lo is not None and lo > (1 if unit == "characters" else 0):
        return " of at least %d %s" % (lo, unit)
    if lo == 1:
        return " (not empty)"
    if hi is not None:
        return " of at most %d %s" % (hi, unit)
    return ""


def _show(v, limit=60):
    """v as JSON, cut to about limit characters."""
    text = json.dumps(v, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "..."


def _label(path):
    return '"%s"' % path


class _Problem(Exception):
    pass


def validate(schema, value, tool):
    """The first problem with the arguments value (a decoded JSON object)
    under the tool's input schema, as a sentence a model can act on; None
    when there is none. Arguments the tool does not take come first, then
    missing ones, then each argument in the schema's order."""
    if not isinstance(value, dict):
        return "arguments must be a JSON object; got %s" % _GOT[_json_type(value)]
    try:
        _check(schema, value, "", tool)
    except _Problem as p:
        return str(p)
    return None


def _check(s, v, path, tool):
    if s is False:
        raise _Problem("%s is not allowed" % _label(path))
    if not isinstance(s, dict) or not s:
        return
    for sub in s.get("allOf") or []:
        _check(sub, v, path, tool)
    if "anyOf" in s or "oneOf" in s:
        subs = s.get("anyOf") or s.get("oneOf")
        ok = 0
        for sub in subs:
            try:
                _check(sub, v, path, tool)
                ok += 1
            except _Problem:
                pass
        if ok == 0 or ("oneOf" in s and ok > 1):
            raise _Problem("%s must be %s; got %s" % (_label(path), expected(s), _got(s, v)))
    types = s.get("type")
    if types is not None:
        tl = types if isinstance(types, list) else [types]
        if not any(_is(v, t) for t in tl):
            raise _Problem("%s must be %s; got %s" % (_label(path), expected(s), _got(s, v)))
    if "enum" in s and not any(_same(v, e) for e in s["enum"]):
        raise _Problem("%s must be %s; got %s" % (_label(path), expected(s), _show(v)))
    if "const" in s and not _same(v, s["const"]):
        raise _Problem("%s must be %s; got %s" % (_label(path), expected(s), _show(v)))
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        if (("minimum" in s and v < s["minimum"]) or ("maximum" in s and v > s["maximum"])
                or ("exclusiveMinimum" in s and v <= s["exclusiveMinimum"])
                or ("exclusiveMaximum" in s and v >= s["exclusiveMaximum"])):
            raise _Problem("%s must be %s; got %s" % (_label(path), expected(s), _show(v)))
    elif isinstance(v, str):
        if ("minLength" in s and len(v) < s["minLength"]) or ("maxLength" in s and len(v) > s["maxLength"]):
            raise _Problem("%s must be %s; got %d characters" % (_label(path), expected(s), len(v)))
        if "pattern" in s and not re.search(s["pattern"], v):
            raise _Problem("%s must be %s; got %s" % (_label(path), expected(s), _show(v)))
    elif isinstance(v, list):
        if ("minItems" in s and len(v) < s["minItems"]) or ("maxItems" in s and len(v) > s["maxItems"]):
            raise _Problem("%s must be %s; got %d items" % (_label(path), expected(s), len(v)))
        items = s.get("items")
        if isinstance(items, (dict, bool)):
            for i, item in enumerate(v):
                _check(items, item, "%s[%d]" % (path, i), tool)
    elif isinstance(v, dict):
        _check_object(s, v, path, tool)


def _check_object(s, v, path, tool):
    props = s.get("properties") or {}
    extra = s.get("additionalProperties", True)
    takes = ", ".join(props) if props else "no arguments" if not path else "no members"
    if extra is False:
        for k in v:
            if k not in props:
                if not path:
                    raise _Problem('unknown argument "%s": %s takes %s' % (k, tool, takes))
                raise _Problem('unknown member "%s" in %s: it takes %s' % (k, _label(path), takes))
    for k in s.get("required") or []:
        if k not in v:
            want = expected(props.get(k, {}))
            if not path:
                raise _Problem('%s needs "%s", %s' % (tool, k, want))
            raise _Problem('%s needs "%s", %s' % (_label(path), k, want))
    for k, sub in props.items():
        if k in v:
            _check(sub, v[k], k if not path else path + "." + k, tool)
    if isinstance(extra, dict):
        for k, item in v.items():
            if k not in props:
                _check(extra, item, k if not path else path + "." + k, tool)


def _same(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return a == b


def _got(s, v):
    """What the model sent, for a message: the value itself for a numeric
    parameter (1.5 shows why it is not an integer), else its JSON type."""
    types = s.get("type")
    types = types if isinstance(types, list) else [types]
    if any(t in ("integer", "number") for t in types) and (v is None or isinstance(v, (bool, int, float))):
        return _show(v)
    return _GOT[_json_type(v)]


# --- binding -----------------------------------------------------------------

def bind(hint, value):
    """value, a JSON value that validate() accepted for hint's schema, as
    the Python value hint names: 1.0 for an int is 1, an int for a float
    is a float, an object for a dataclass is an instance, a value for an
    Enum is its member; lists and dicts bind their items."""
    tp, _ = _strip_annotated(hint)
    if value is None:
        return None
    if tp is int and isinstance(value, float):
        return int(value)
    if tp is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if _is_union(tp):
        rest = [a for a in typing.get_args(tp) if a is not _NONE]
        for a in rest:
            try:
                if validate_value(type_schema(a, ""), value):
                    return bind(a, value)
            except SpecError:
                continue
        return value
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return tp(value)
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if isinstance(value, list):
        item = args[0] if args else Any
        return [bind(item, x) for x in value]
    if isinstance(value, dict):
        if dataclasses.is_dataclass(tp) and isinstance(tp, type):
            hints = _hints(tp)
            return tp(**{k: bind(hints[k], x) for k, x in value.items()})
        if _is_typeddict(tp):
            hints = _hints(tp)
            return {k: bind(hints.get(k, Any), x) for k, x in value.items()}
        if args and origin in (dict, typing.Dict) + _mapping_origins():
            return {k: bind(args[1], x) for k, x in value.items()}
    return value


def validate_value(schema, value):
    """Whether value fits schema."""
    try:
        _check(schema, value, "", "")
    except _Problem:
        return False
    return True


def to_json(value):
    """value as JSON values: a dataclass as an object of its fields, in
    order; an Enum as its value; tuples as lists. Anything else JSON
    cannot carry is a TypeError."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise TypeError("%r is not a finite number: JSON cannot carry it" % value)
        return value
    if isinstance(value, enum.Enum):
        return to_json(value.value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise TypeError("object key %r is not a string" % (k,))
            out[k] = to_json(v)
        return out
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    raise TypeError("%s is not a JSON value" % type(value).__name__)


def _q(v):
    return json.dumps(v, ensure_ascii=False)

