"""The Toolbox: declarations checked when made, each task helper's answer
on the wire (in-process over real gRPC), and results."""

import dataclasses
import math
import threading
import unittest
from typing import Annotated, List, TypedDict

from helpers import PATIENCE

import ramabana_plugin as rp
from ramabana_plugin import SpecError, checks, testing

SKILL_MD = "---\nname: house-style\ndescription: Prefer short sentences.\n---\n# House style\n"


@dataclasses.dataclass
class Counts:
    words: Annotated[int, "how many words"]
    unique: int


class Verdict(TypedDict):
    ok: bool


def task_box():
    """A tool of each task, as examples/tasks-plugin declares them."""
    box = rp.Toolbox("tasks", version="0.1.0", description="One tool of each task.")

    @box.context(kind=rp.READ)
    def policies() -> str:
        """Rules for the system prompt."""
        return "Always cite sources."

    @box.context(kind=rp.READ, as_user_message=True)
    def ticket() -> str:
        """The open ticket."""
        return "Ticket #123 is still open."

    @box.tool(kind=rp.READ)
    def search(q: str) -> str:
        """Search."""
        return "Results for " + q

    @box.evaluation(kind=rp.READ)
    def grounded(answer: str) -> rp.Evaluation:
        """Judge the answer."""
        if answer == "":
            return rp.Evaluation.invalid(0, "Answer is empty.")
        if answer == "NaN":
            return rp.Evaluation(False, math.nan)
        if answer == "fail":
            raise rp.ToolError("cannot judge")
        return rp.Evaluation.valid(0.75)

    audited = []

    @box.post_tool(kind=rp.ACT)
    def audit(answer: str, call: rp.Call) -> None:
        """Log the answer."""
        call.log("info", "audited " + answer)
        audited.append(answer)

    box.skill_text("house_style", SKILL_MD, kind=rp.READ, mode=rp.ALWAYS_ON)

    @box.skill(kind=rp.READ, mode=rp.AUTO, description="A skill whose text is made per call.")
    def made_skill() -> str:
        return "---\nname: made-skill\ndescription: Made.\n---\nbody\n"

    @box.skill(kind=rp.READ, mode=rp.AUTO, description="A skill that answers a bad text.")
    def broken_skill() -> str:
        return "---\nname: another\ndescription: x\n---\n"

    @box.none(kind=rp.READ)
    def ping() -> str:
        """Answer pong."""
        return "pong"

    @box.tool(kind=rp.READ)
    def count(text: str) -> Counts:
        """Count words."""
        w = text.split()
        return Counts(len(w), len(set(w)))

    box.audited = audited
    return box


class TaskHelpersTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.box = task_box()
        cls.plugin = testing.connect(cls.box)

    @classmethod
    def tearDownClass(cls):
        cls.plugin.close()

    def test_described(self):
        got = {n: (t.task, t.mode, t.as_user_message) for n, t in self.plugin.tools.items()}
        self.assertEqual(got, {
            "policies": ("context", "", False), "ticket": ("context", "", True), "search": ("completion", "", False),
            "grounded": ("evaluation", "", False), "audit": ("post_tool", "", False),
            "house_style": ("skill", "always-on", False), "made_skill": ("skill", "auto", False),
            "broken_skill": ("skill", "auto", False), "ping": ("none", "", False), "count": ("completion", "", False)})
        self.assertEqual(self.plugin.tools["house_style"].description, "Prefer short sentences.")
        self.assertEqual(self.plugin.tools["grounded"].output_schema, rp.results.EVALUATION_SCHEMA)
        self.assertEqual(self.plugin.tools["house_style"].input_schema,
                         {"type": "object", "properties": {}, "additionalProperties": False})
        self.assertIsNone(self.plugin.tools["policies"].output_schema)

    def test_context(self):
        out = self.plugin.call("ticket")
        self.assertEqual((out.text, out.structured, out.is_error), ("Ticket #123 is still open.", None, False))

    def test_evaluation(self):
        out = self.plugin.call("grounded", {"answer": ""})
        self.assertEqual(out.structured, {"is_valid": False, "score": 0, "feedback": "Answer is empty."})
        self.assertEqual(out.text, '{"is_valid":false,"score":0,"feedback":"Answer is empty."}')
        out = self.plugin.call("grounded", {"answer": "yes"})
        self.assertEqual(out.structured, {"is_valid": True, "score": 0.75, "feedback": None})
        out = self.plugin.call("grounded", {"answer": "fail"})
        self.assertEqual((out.is_error, out.text), (True, "cannot judge"))
        with self.assertRaises(testing.CallFailed) as cm:
            self.plugin.call("grounded", {"answer": "NaN"})
        self.assertIn("not a finite number", cm.exception.details)

    def test_post_tool(self):
        out = self.plugin.call("audit", {"answer": "42"})
        self.assertEqual((out.text, len(out.content), out.logs), ("", 1, [("info", "audited 42")]))
        self.assertEqual(self.box.audited, ["42"])

    def test_skill(self):
        self.assertEqual(self.plugin.call("house_style").text, SKILL_MD)
        self.assertIn("name: made-skill", self.plugin.call("made_skill").text)
        with self.assertRaises(testing.CallFailed) as cm:
            self.plugin.call("broken_skill")
        self.assertEqual(cm.exception.code, "INTERNAL")
        self.assertIn('its SKILL.md names the skill "another"; the tool serves the skill "broken-skill"',
                      cm.exception.details)
        self.assertIn('level=ERROR msg="tool broken_skill failed', self.plugin.stderr)

    def test_none_and_completion(self):
        self.assertEqual(self.plugin.call("ping").text, "pong")
        out = self.plugin.call("count", {"text": "to be or not to be"})
        self.assertEqual(out.structured, {"words": 6, "unique": 4})
        self.assertEqual(out.text, '{"words":6,"unique":4}')
        self.assertEqual(self.plugin.tools["count"].output_schema["required"], ["words", "unique"])


class MisuseTest(unittest.TestCase):
    """Each misuse is a SpecError naming the tool, when it is declared."""

    def assert_refused(self, declare, want):
        with self.assertRaises(SpecError) as cm:
            declare(rp.Toolbox("p"))
        self.assertIn(want, str(cm.exception))

    def test_declarations(self):
        def f() -> str:
            return ""

        def ret_int() -> int:
            return 1

        def ret_str() -> str:
            return ""

        def with_arg(x: str) -> str:
            return x

        cases = {
            "no kind": (lambda b: b.tool(f), 'tool "f": declares no kind'),
            "unknown kind": (lambda b: b.tool(kind="destroy")(f), 'tool "f": kind "destroy": use read or write or act'),
            "bad tool name": (lambda b: b.tool(kind=rp.READ, name="bad name")(f), 'tool name "bad name"'),
            "long tool name": (lambda b: b.tool(kind=rp.READ, name="x" * 129)(f), "(1 to 128)"),
            "duplicate": (lambda b: (b.tool(kind=rp.READ)(f), b.group("other").tool(kind=rp.READ)(f)),
                          'tool "f" is declared twice (groups "p" and "other")'),
            "bad group name": (lambda b: b.group("Bad Group"), 'group name "Bad Group"'),
            "group declared twice": (lambda b: (b.group("g"), b.group("g")), 'group "g" is declared twice'),
            "unknown group mode": (lambda b: b.group("g", mode="sometimes"), 'mode "sometimes"'),
            "typed output not an object": (lambda b: b.tool(kind=rp.READ)(ret_int), "root must be an object"),
            "context returning int": (lambda b: b.context(kind=rp.READ)(ret_int),
                                      'tool "ret_int": a context tool returns str; its annotation says int'),
            "evaluation returning str": (lambda b: b.evaluation(kind=rp.READ)(ret_str),
                                         'a evaluation tool returns Evaluation; its annotation says str'),
            "post returning str": (lambda b: b.post_tool(kind=rp.READ)(ret_str), "a post_tool tool returns None"),
            "skill without a mode": (lambda b: b.skill(kind=rp.READ, description="d")(f),
                                     'tool "f": a skill tool needs a mode'),
            "skill of an unknown mode": (lambda b: b.skill(kind=rp.READ, mode="sometimes", description="d")(f),
                                         'tool "f": skill mode "sometimes"'),
            "skill without a description": (lambda b: b.skill(kind=rp.READ, mode=rp.AUTO)(f),
                                            'tool "f": a skill tool needs a description'),
            "skill with arguments": (lambda b: b.skill(kind=rp.READ, mode=rp.AUTO, description="d")(with_arg),
                                     'tool "with_arg": a skill tool takes no arguments; drop x'),
            "skill text without front matter": (lambda b: b.skill_text("house_style", "# House\n", kind=rp.READ, mode=rp.AUTO),
                                                'tool "house_style": its SKILL.md text: no front matter'),
            "skill text without a description": (
                lambda b: b.skill_text("house_style", "---\nname: house-style\n---\nbody\n", kind=rp.READ, mode=rp.AUTO),
                'tool "house_style": its SKILL.md text: description is missing'),
            "skill text of another skill": (lambda b: b.skill_text("style", SKILL_MD, kind=rp.READ, mode=rp.AUTO),
                                            'tool "style": its SKILL.md names the skill "house-style"; the tool serves the skill "style"'),
            "bad annotations": (lambda b: b.tool(kind=rp.READ, annotations={"readonly": True})(f), "annotations take"),
        }
        for name, (declare, want) in cases.items():
            with self.subTest(name):
                self.assert_refused(declare, want)

    def test_plugin_name(self):
        for bad in ("", "Hello", "-x", "a_b", "a b"):
            with self.assertRaises(SpecError):
                rp.Toolbox(bad)
        rp.Toolbox("a-1")


class CheckDescriptionTest(unittest.TestCase):
    """The host's rules on a description from the wire (any plugin)."""

    def desc(self, **tool):
        t = {"name": "t", "kind": "read", "input_schema": {"type": "object"}, "task": "completion"}
        t.update(tool)
        return {"name": "p", "groups": [{"name": "g", "tools": [t]}]}

    def test_rules(self):
        checks.check_description(self.desc())
        for tool, want in [
            ({"kind": ""}, 'tool "t": declares no kind'),
            ({"task": "router"}, 'tool "t": unknown task "router"'),
            ({"mode": "auto"}, 'tool "t": mode "auto" is for skill tools only, and the task is completion'),
            ({"task": "skill", "mode": "sometimes"}, 'unknown skill mode "sometimes"'),
            ({"task": "evaluation", "as_user_message": True}, "as_user_message is for context tools only, and the task is evaluation"),
            ({"input_schema": {"type": "array"}}, 'input schema: the root must have "type": "object"'),
            ({"input_schema": b'{"type":"object","properties":{"n":{"type":"integer","minimum":"1"}}}'},
             "minimum has the wrong JSON type"),
            ({"output_schema": {"type": "string"}}, "output schema"),
            ({"name": ""}, "tool name"),
        ]:
            with self.subTest(tool=tool):
                with self.assertRaises(SpecError) as cm:
                    checks.check_description(self.desc(**tool))
                self.assertIn(want, str(cm.exception))
        two = self.desc()
        two["groups"].append({"name": "h", "tools": [two["groups"][0]["tools"][0]]})
        with self.assertRaises(SpecError) as cm:
            checks.check_description(two)
        self.assertIn('tool "t" is declared twice (groups "g" and "h")', str(cm.exception))
        with self.assertRaises(SpecError):
            checks.check_description({"name": "p", "groups": []})

    def test_skill_front_matter(self):
        fm = checks.parse_skill('---\nname: a-b\ndescription: >\n  Folded\n  text.\nmetadata:\n  k: v\n---\n')
        self.assertEqual((fm["name"], fm["description"]), ("a-b", "Folded text."))
        fm = checks.parse_skill("\ufeff---\r\nname: 'x'\r\ndescription: \"say \\\"hi\\\"\" # note\r\n---\r\n")
        self.assertEqual((fm["name"], fm["description"]), ("x", 'say "hi"'))
        for text, want in [("---\n---\n", "front matter is empty"), ("---\nname: Bad_Name\ndescription: d\n---\n", "is invalid"),
                           ("---\nname: a\ndescription: 'open\n---\n", "no closing"), ("no", "no front matter"),
                           ("---\nname: a\ndescription: " + "x" * 1025 + "\n---\n", "more than 1024")]:
            with self.subTest(text=text[:30]):
                with self.assertRaises(SpecError) as cm:
                    checks.parse_skill(text)
                self.assertIn(want, str(cm.exception))
        self.assertEqual(checks.skill_name("House_Style"), "house-style")


class ResultsTest(unittest.TestCase):
    def setUp(self):
        self.box = rp.Toolbox("r")

    def run_tool(self, fn, args=None, **opts):
        self.box.tool(kind=rp.WRITE, **opts)(fn)
        return self.box.call(fn.__name__, args or {})

    def test_result_built_by_hand(self):
        def rich(call: rp.Call) -> rp.Result:
            call.record(rp.FileChange.of("/r/a", None, b"new\n"))
            return rp.Result(content=["text", rp.Image(b"\x89PNG", "image/png"),
                                      rp.Resource("file:///r/a", "text/plain", text="new\n")],
                             structured=Counts(1, 1), changes=[rp.FileChange.of("/r/b", b"old", None)])
        res = self.run_tool(rich, output=Counts)
        self.assertEqual(res.structured, {"words": 1, "unique": 1})
        self.assertEqual(res.text(), "text")
        self.assertEqual([c.path for c in res.changes], ["/r/b", "/r/a"])
        self.assertEqual(res.changes[1].after, b"new\n")
        self.assertEqual(res.changes[0].after_sha256, "")
        self.assertEqual(self.box.tools()["rich"].spec.output_schema["required"], ["words", "unique"])
        with testing.connect(self.box) as p:
            out = p.call("rich")
            self.assertEqual([type(c).__name__ for c in out.content], ["Text", "Image", "Resource"])
            self.assertEqual(out.content[1], rp.Image(b"\x89PNG", "image/png"))
            self.assertEqual(out.content[2].text, "new\n")
            self.assertEqual(out.changes[0].before, b"old")

    def test_returns(self):
        def none_() -> None:
            return None

        def a_dict() -> dict:
            return {"k": [1, 2]}

        def typed_dict() -> Verdict:
            return {"ok": True}

        def untyped():
            return {"k": 1}

        def wrong():
            return 42

        self.assertEqual(self.run_tool(none_).content, [])
        self.assertEqual(self.run_tool(a_dict).structured, {"k": [1, 2]})
        self.assertEqual(self.box.tools()["a_dict"].spec.output_schema, {"type": "object"})
        self.assertEqual(self.run_tool(typed_dict).structured, {"ok": True})
        self.assertEqual(self.run_tool(untyped).structured, {"k": 1})
        self.assertIsNone(self.box.tools()["untyped"].spec.output_schema)
        with self.assertRaises(TypeError):
            self.run_tool(wrong)

    def test_arguments_bound(self):
        seen = {}

        def typed(n: int, xs: List[Counts], maybe: int = 7) -> str:
            seen.update(n=n, xs=xs, maybe=maybe)
            return "ok"
        self.assertFalse(self.run_tool(typed, {"n": 2.0, "xs": [{"words": 1, "unique": 1}], "maybe": None}).is_error)
        self.assertEqual(seen, {"n": 2, "xs": [Counts(1, 1)], "maybe": 7})
        self.assertIsInstance(seen["n"], int)
        res = self.box.call("typed", b"[1]")
        self.assertEqual(res.text(), "arguments must be a JSON object; got an array")
        self.assertEqual(self.box.call("typed", b"").text(), 'typed needs "n", an integer')
        with self.assertRaises(rp.UnknownTool):
            self.box.call("nope")

    def test_async_handler_and_cancel(self):
        started = threading.Event()

        async def slow(call: rp.Call) -> str:
            import asyncio
            started.set()
            await asyncio.sleep(30)
            return "late"
        self.box.tool(kind=rp.ACT)(slow)
        call = self.box.new_call("slow")
        out = {}

        def run():
            try:
                self.box.call("slow", {}, call)
            except rp.Cancelled as e:
                out["cancelled"] = str(e)
        th = threading.Thread(target=run)
        th.start()
        self.assertTrue(started.wait(PATIENCE))
        call.cancel()
        th.join(PATIENCE)
        self.assertIn("cancelled", out.get("cancelled", ""))
        self.assertTrue(call.cancelled)
        with self.assertRaises(rp.Cancelled):
            call.check_cancelled()

    def test_evaluation_helpers(self):
        self.assertEqual(rp.Evaluation.valid(0.5).to_json(), {"is_valid": True, "score": 0.5, "feedback": None})
        self.assertEqual(rp.Evaluation.invalid(0, "no").to_json(), {"is_valid": False, "score": 0, "feedback": "no"})
        with self.assertRaises(ValueError):
            rp.Evaluation(True, math.inf).to_json()

    def test_file_change(self):
        ch = rp.FileChange.of("/a", b"x", b"y")
        self.assertEqual((ch.before, ch.after), (b"x", b"y"))
        ch = rp.FileChange.of("/a", b"x", b"\xff")
        self.assertEqual((ch.before, ch.after), (b"", b""), "a binary side drops both contents")


if __name__ == "__main__":
    unittest.main()
