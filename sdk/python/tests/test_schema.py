"""Input and output schemas derived from type hints; arguments checked and
bound by them."""

import dataclasses
import enum
import typing
import unittest
from typing import Annotated, Any, Dict, List, Literal, Optional, TypedDict

import helpers  # noqa: F401

from ramabana_plugin import Field, SpecError
from ramabana_plugin.schema import bind, expected, input_schema, output_schema, validate


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclasses.dataclass
class Point:
    """A point on the page."""

    x: int
    y: Annotated[int, "down from the top"] = 0


class Opts(TypedDict, total=False):
    mode: Literal["fast", "slow"]
    limit: int


@dataclasses.dataclass
class Out:
    count: Annotated[int, "how many"]
    names: List[str]
    note: Optional[str] = None
    where: Optional[Point] = None


def schema_of(fn):
    return input_schema(fn, "t")[0]


class InputSchemaTest(unittest.TestCase):
    def test_scalars_required_and_defaults(self):
        def f(s: str, i: int, x: float, b: bool, n: int = 3, flag: bool = False, name: str = "a"):
            pass
        self.assertEqual(schema_of(f), {
            "type": "object",
            "properties": {
                "s": {"type": "string"}, "i": {"type": "integer"}, "x": {"type": "number"}, "b": {"type": "boolean"},
                "n": {"type": "integer", "default": 3, "description": "(default 3)"},
                "flag": {"type": "boolean", "default": False},
                "name": {"type": "string", "default": "a", "description": '(default "a")'},
            },
            "required": ["s", "i", "x", "b"],
            "additionalProperties": False,
        })

    def test_descriptions_and_bounds(self):
        def f(text: Annotated[str, "the text"],
              n: Annotated[int, Field("how many", minimum=1, maximum=100)] = 10,
              ratio: Annotated[float, Field(exclusive_minimum=0, maximum=1.5)] = 0.5,
              word: Annotated[str, Field("a word", min_length=2, max_length=20, pattern="^[a-z]+$")] = "ab",
              tags: Annotated[List[str], Field("labels", min_items=1, max_items=3)] = ("x",),
              default_said: Annotated[int, "count, default 5"] = 5):
            pass
        p = schema_of(f)["properties"]
        self.assertEqual(p["text"], {"type": "string", "description": "the text"})
        self.assertEqual(p["n"], {"type": "integer", "description": "how many (default 10, 1 to 100)",
                                  "minimum": 1, "maximum": 100, "default": 10})
        self.assertEqual(p["ratio"]["exclusiveMinimum"], 0)
        self.assertEqual(p["ratio"]["description"], "(default 0.5, at most 1.5)")
        self.assertEqual(p["word"]["description"], 'a word (default "ab", at least 2 characters, at most 20 characters)')
        self.assertEqual((p["word"]["minLength"], p["word"]["maxLength"], p["word"]["pattern"]), (2, 20, "^[a-z]+$"))
        self.assertEqual(p["tags"], {"type": "array", "items": {"type": "string"}, "description": 'labels (default ["x"])',
                                     "minItems": 1, "maxItems": 3, "default": ["x"]})
        self.assertEqual(p["default_said"]["description"], "count, default 5")

    def test_optional_literal_enum_containers(self):
        def f(maybe: Optional[int] = None, nullable: Optional[str] = ..., mode: Literal["a", "b"] = "a",
              color: Color = Color.RED, nums: List[int] = (), table: Dict[str, float] = None,
              anything: Any = None, raw: dict = None, point: Point = None, opts: Opts = None):
            pass
        f.__defaults__ = (None, "x", "a", Color.RED, (), None, None, None, None, None)
        p = schema_of(f)["properties"]
        self.assertEqual(p["maybe"], {"type": "integer"}, "an optional None default is of its one type")
        self.assertEqual(p["nullable"]["type"], ["string", "null"])
        self.assertEqual(p["mode"]["enum"], ["a", "b"])
        self.assertEqual(p["color"], {"type": "string", "enum": ["red", "blue"], "default": "red",
                                      "description": '(default "red")'})
        self.assertEqual(p["nums"]["items"], {"type": "integer"})
        self.assertEqual(p["table"], {"type": "object", "additionalProperties": {"type": "number"}})
        self.assertEqual(p["anything"], {})
        self.assertEqual(p["raw"], {"type": "object"})
        self.assertEqual(p["point"], {"type": "object", "properties": {
            "x": {"type": "integer"}, "y": {"type": "integer", "description": "down from the top", "default": 0}},
            "required": ["x"], "additionalProperties": False, "description": "A point on the page."})
        self.assertEqual(p["opts"]["properties"]["mode"], {"type": "string", "enum": ["fast", "slow"]})
        self.assertNotIn("required", p["opts"])

    @unittest.skipIf(not hasattr(typing, "get_origin") or __import__("sys").version_info < (3, 10), "needs X | None")
    def test_pep604_union(self):
        ns = {}
        exec("def f(a: int | None = None, b: str | int = 1): pass", ns)
        p = schema_of(ns["f"])["properties"]
        self.assertEqual(p["a"], {"type": "integer"})
        self.assertEqual(p["b"]["type"], ["string", "integer"])

    def test_what_cannot_be_described(self):
        def no_hint(x):
            pass

        def varargs(*a: int):
            pass

        def setarg(s: set):
            pass

        def bytes_arg(b: bytes):
            pass

        def int_keys(d: Dict[int, str]):
            pass

        for fn, want in [(no_hint, 'parameter "x" has no type hint'), (varargs, "*args and **kwargs"),
                         (setarg, "type set is not supported"), (bytes_arg, "type bytes is not supported"),
                         (int_keys, "keys are strings")]:
            with self.subTest(fn.__name__):
                with self.assertRaises(SpecError) as cm:
                    input_schema(fn, "t")
                self.assertIn('tool "t"', str(cm.exception))
                self.assertIn(want, str(cm.exception))


class OutputSchemaTest(unittest.TestCase):
    def test_dataclass(self):
        self.assertEqual(output_schema(Out, "t"), {
            "type": "object",
            "properties": {
                "count": {"type": "integer", "description": "how many"},
                "names": {"type": "array", "items": {"type": "string"}},
                "note": {"type": ["string", "null"]},
                "where": {"type": ["object", "null"], "properties": {
                    "x": {"type": "integer"}, "y": {"type": "integer", "description": "down from the top"}},
                    "required": ["x", "y"], "additionalProperties": False, "description": "A point on the page."},
            },
            "required": ["count", "names", "note", "where"],
            "additionalProperties": False,
        })

    def test_typeddict_and_dict(self):
        class TD(TypedDict):
            a: int
        self.assertEqual(output_schema(TD, "t")["required"], ["a"])
        self.assertEqual(output_schema(Dict[str, int], "t"), {"type": "object", "additionalProperties": {"type": "integer"}})

    def test_not_an_object(self):
        for tp in (int, List[str], str):
            with self.assertRaises(SpecError) as cm:
                output_schema(tp, "t")
            self.assertIn("root must be an object", str(cm.exception))


class ValidateTest(unittest.TestCase):
    def setUp(self):
        def f(text: str, n: Annotated[int, Field(minimum=1, maximum=100)] = 10,
              mode: Literal["a", "b"] = "a", word: Annotated[str, Field(max_length=3)] = "",
              tags: List[str] = (), point: Optional[Point] = None, ratio: float = 0.5, flag: bool = False):
            pass
        self.schema, self.params = input_schema(f, "tool")

    def problem(self, args):
        return validate(self.schema, args, "tool")

    def test_messages(self):
        for args, want in [
            ({"text": "a"}, None),
            ({}, 'tool needs "text", a string'),
            ({"text": "a", "extra": 1}, 'unknown argument "extra": tool takes text, n, mode, word, tags, point, ratio, flag'),
            ({"text": 7}, '"text" must be a string; got a number'),
            ({"text": "a", "n": 0}, '"n" must be an integer from 1 to 100; got 0'),
            ({"text": "a", "n": 1.5}, '"n" must be an integer from 1 to 100; got 1.5'),
            ({"text": "a", "n": True}, '"n" must be an integer from 1 to 100; got true'),
            ({"text": "a", "n": "5"}, '"n" must be an integer from 1 to 100; got a string'),
            ({"text": "a", "n": 1.0}, None),
            ({"text": "a", "mode": "c"}, '"mode" must be one of "a", "b"; got "c"'),
            ({"text": "a", "word": "long"}, '"word" must be a string of at most 3 characters; got 4 characters'),
            ({"text": "a", "tags": ["x", 2]}, '"tags[1]" must be a string; got a number'),
            ({"text": "a", "point": {"y": 1}}, '"point" needs "x", an integer'),
            ({"text": "a", "point": {"x": 1, "z": 1}}, 'unknown member "z" in "point": it takes x, y'),
            ({"text": "a", "ratio": 1}, None),
            ({"text": "a", "flag": "yes"}, '"flag" must be true or false; got a string'),
        ]:
            with self.subTest(args=args):
                self.assertEqual(self.problem(args), want)
        self.assertEqual(validate(self.schema, [1], "tool"), "arguments must be a JSON object; got an array")

    def test_expected(self):
        self.assertEqual(expected({"type": "array", "items": {"type": "integer", "minimum": 0}}),
                         "an array of integers at least 0")
        self.assertEqual(expected({"type": ["string", "null"]}), "a string or null")
        self.assertEqual(expected({"type": "number", "exclusiveMinimum": 0}), "a number greater than 0")

    def test_bind(self):
        hints = {p.name: p.hint for p in self.params}
        self.assertEqual(bind(hints["n"], 3.0), 3)
        self.assertIsInstance(bind(hints["n"], 3.0), int)
        self.assertIsInstance(bind(hints["ratio"], 1), float)
        self.assertEqual(bind(hints["point"], {"x": 1}), Point(1, 0))
        self.assertEqual(bind(Color, "blue"), Color.BLUE)
        self.assertEqual(bind(List[Point], [{"x": 2, "y": 3}]), [Point(2, 3)])
        self.assertEqual(bind(Dict[str, Color], {"k": "red"}), {"k": Color.RED})


if __name__ == "__main__":
    unittest.main()
