"""The host's rules for what a plugin describes, in Python.

The same rules as the Go sdk's (sdk/validate.go, internal/schema,
internal/skills): the Toolbox applies them when a tool or group is
declared, so a mistake stops the plugin at start-up with a message naming
the tool, and ramabana_plugin.testing applies them to what a plugin
describes over the wire, as the host does before serving it.

Every check raises SpecError; none returns a value worth keeping.
"""

import json
import math
import re

PLUGIN_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
MAX_TOOL_NAME = 128
TOOL_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,%d}$" % MAX_TOOL_NAME)
SKILL_NAME_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_SKILL_NAME = 64
MAX_SKILL_DESCRIPTION = 1024
MAX_SKILL_COMPATIBILITY = 500

KINDS = ("read", "write", "act")
TASKS = ("completion", "context", "evaluation", "post_tool", "skill", "none")
SKILL_MODES = ("always-on", "auto")
GROUP_MODES = ("default", "opt-in", "legacy")


class SpecError(ValueError):
    """A declaration the host would refuse. Raised when a tool or group is
    declared (a programming error, found at start-up) and by the test
    harness on a description; the message names the tool or group."""


def check_plugin_name(name):
    """A plugin's name: lower-case letters, digits and '-', not starting
    with '-'. The plugin's file is ramabana-plugin-<name>."""
    if not isinstance(name, str) or not PLUGIN_NAME_RE.match(name):
        raise SpecError("plugin name %s: use lower-case letters, digits and '-'" % _q(name))


def check_group_name(name):
    """A group's name, by the plugin name's rule."""
    if not isinstance(name, str) or not PLUGIN_NAME_RE.match(name):
        raise SpecError("group name %s: use lower-case letters, digits and '-'" % _q(name))


def check_tool_name(name):
    """A tool's name: 1 to 128 letters, digits, '_' and '-'."""
    if not isinstance(name, str) or not TOOL_NAME_RE.match(name):
        raise SpecError("tool name %s: use letters, digits, '_' and '-' (1 to %d)" % (_q(name), MAX_TOOL_NAME))


def check_tool(name, kind, input_schema, output_schema=None):
    """What refuses the whole plugin for one tool: a bad name, no kind, an
    input schema that is missing or not an object schema, an output schema
    that is not one. Schemas are dicts (or JSON text)."""
    check_tool_name(name)
    if kind in ("", None):
        raise SpecError("tool %s: declares no kind: read, write or act" % _q(name))
    if kind not in KINDS:
        raise SpecError("tool %s: unknown kind %s: read, write or act" % (_q(name), _q(kind)))
    if input_schema in (None, "", b""):
        raise SpecError("tool %s: no input schema" % _q(name))
    _check_object_schema(name, "input schema", input_schema)
    if output_schema not in (None, "", b""):
        _check_object_schema(name, "output schema", output_schema)


def _check_object_schema(tool, which, schema):
    if isinstance(schema, (bytes, str)):
        try:
            schema = json.loads(schema)
        except ValueError as e:
            raise SpecError("tool %s: %s: not JSON: %s" % (_q(tool), which, e))
    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise SpecError('tool %s: %s: the root must have "type": "object"' % (_q(tool), which))
    problem = schema_problem(schema)
    if problem:
        raise SpecError("tool %s: %s: %s" % (_q(tool), which, problem))


def check_task(name, task, mode="", as_user_message=False):
    """What refuses one tool, the host serving the plugin's others: an
    unknown task or skill mode, a mode on a tool that is not a skill,
    as_user_message on a tool that is not a context tool."""
    task = task or "completion"
    problem = None
    if task not in TASKS:
        problem = "unknown task %s: completion, context, evaluation, post_tool, skill or none" % _q(task)
    elif mode and task != "skill":
        problem = "mode %s is for skill tools only, and the task is %s" % (_q(mode), task)
    elif mode and mode not in SKILL_MODES:
        problem = "unknown skill mode %s: always-on or auto" % _q(mode)
    elif as_user_message and task != "context":
        problem = "as_user_message is for context tools only, and the task is %s" % task
    if problem:
        raise SpecError("tool %s: %s" % (_q(name), problem))


def check_description(desc):
    """Every rule the host applies to a plugin's description: desc is a
    dict {"name", "groups": [{"name", "tools": [{"name", "kind",
    "input_schema", "output_schema", "task", "mode", "as_user_message"}]}]}
    with schemas as dicts or JSON text (ramabana_plugin.testing builds it
    from the wire). Raises SpecError naming the group and tool."""
    check_plugin_name(desc.get("name"))
    groups = desc.get("groups") or []
    if not groups:
        raise SpecError("it describes no tool groups")
    seen = {}
    for g in groups:
        gname = g.get("name") or desc.get("name")
        check_group_name(gname)
        for t in g.get("tools") or []:
            if t.get("name") in seen:
                raise SpecError("tool %s is declared twice (groups %s and %s)" % (_q(t.get("name")), _q(seen[t.get("name")]), _q(gname)))
            seen[t.get("name")] = gname
            try:
                check_tool(t.get("name"), t.get("kind"), t.get("input_schema"), t.get("output_schema"))
                check_task(t.get("name"), t.get("task"), t.get("mode"), t.get("as_user_message"))
            except SpecError as e:
                raise SpecError("group %s: %s" % (_q(gname), e)) from None


# JSON Schema keywords whose values must have a given JSON type: the check
# the host's schema compiler makes that a Python author is likeliest to
# break (a bound given as a string, a required list given as a string).
_KEYWORD_TYPES = {
    "properties": dict, "required": list, "enum": list, "items": (dict, bool),
    "additionalProperties": (dict, bool), "minimum": (int, float), "maximum": (int, float),
    "exclusiveMinimum": (int, float), "exclusiveMaximum": (int, float),
    "minLength": int, "maxLength": int, "minItems": int, "maxItems": int,
    "pattern": str, "description": str, "title": str, "anyOf": list, "oneOf": list, "allOf": list,
}
_TYPES = ("string", "integer", "number", "boolean", "array", "object", "null")


def schema_problem(schema, where="the schema"):
    """What is wrong with schema as a JSON Schema, or None: keywords of
    the wrong JSON type, unknown type names, required names that are no
    property, non-finite bounds. Checked at every depth."""
    if isinstance(schema, bool):
        return None
    if not isinstance(schema, dict):
        return "%s is not a JSON object" % where
    for key, want in _KEYWORD_TYPES.items():
        if key in schema:
            val = schema[key]
            if isinstance(val, bool) and want in (int, (int, float)):
                return "%s: %s must be a number, not %s" % (where, key, json.dumps(val))
            if not isinstance(val, want):
                return "%s: %s has the wrong JSON type (%s)" % (where, key, type(val).__name__)
            if isinstance(val, float) and not math.isfinite(val):
                return "%s: %s is not a finite number" % (where, key)
    types = schema.get("type")
    for t in (types if isinstance(types, list) else [types] if types is not None else []):
        if t not in _TYPES:
            return "%s: unknown type %s" % (where, _q(t))
    if "pattern" in schema:
        try:
            re.compile(schema["pattern"])
        except re.error as e:
            return "%s: pattern %s: %s" % (where, _q(schema["pattern"]), e)
    for name, sub in (schema.get("properties") or {}).items():
        p = schema_problem(sub, "property %s" % _q(name))
        if p:
            return p
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            p = schema_problem(schema[key], "%s of %s" % (key, where))
            if p:
                return p
    for key in ("anyOf", "oneOf", "allOf"):
        for i, sub in enumerate(schema.get(key) or []):
            p = schema_problem(sub, "%s[%d] of %s" % (key, i, where))
            if p:
                return p
    return None


# --- skills ------------------------------------------------------------------

def skill_name(tool):
    """The skill a skill tool serves: the tool's name in lower case with
    '_' as '-' (house_style serves house-style)."""
    return tool.lower().replace("_", "-")


def check_skill_text(tool, text):
    """Checks that text is what the skill tool called tool must return: a
    SKILL.md whose front matter has a valid name, the tool's skill_name,
    and a description. Returns the front matter's fields (a dict)."""
    try:
        fm = parse_skill(text)
    except SpecError as e:
        raise SpecError("tool %s: its SKILL.md text: %s" % (_q(tool), e)) from None
    want = skill_name(tool)
    if fm["name"] != want:
        raise SpecError("tool %s: its SKILL.md names the skill %s; the tool serves the skill %s"
                        % (_q(tool), _q(fm["name"]), _q(want)))
    return fm


def parse_skill(text):
    """The front matter of a SKILL.md (Agent Skills format), validated as
    the host validates it: {"name", "description", ...} with the text's
    other top-level scalar keys. Only YAML's common scalar forms are read
    (plain, quoted, | and > blocks); nested values are skipped."""
    if not isinstance(text, str):
        raise SpecError("not text")
    text = text[1:] if text.startswith("\ufeff") else text
    header = _front_matter(text)
    if header is None:
        raise SpecError('no front matter: SKILL.md must start with a line "---", then YAML, then a line "---"')
    fields = _parse_yaml_scalars(header)
    if not fields:
        raise SpecError("front matter is empty: name and description are required")
    name = fields.get("name", "")
    desc = fields.get("description", "").strip()
    if not name:
        raise SpecError("name is missing")
    if len(name) > MAX_SKILL_NAME:
        raise SpecError("name %s is %d characters, more than %d" % (_q(name), len(name), MAX_SKILL_NAME))
    if not SKILL_NAME_RE.match(name):
        raise SpecError("name %s is invalid: use lowercase letters, digits and single hyphens, not at the start or end" % _q(name))
    if not desc:
        raise SpecError("description is missing: say what the skill does and when to use it")
    if len(desc) > MAX_SKILL_DESCRIPTION:
        raise SpecError("description is %d characters, more than %d" % (len(desc), MAX_SKILL_DESCRIPTION))
    compat = fields.get("compatibility", "").strip()
    if len(compat) > MAX_SKILL_COMPATIBILITY:
        raise SpecError("compatibility is %d characters, more than %d" % (len(compat), MAX_SKILL_COMPATIBILITY))
    fields["description"] = desc
    return fields


def _front_matter(text):
    lines = text.split("\n")
    if len(lines) < 2 or lines[0].rstrip(" \t\r") != "---":
        return None
    out = []
    for line in lines[1:]:
        if line.rstrip(" \t\r") == "---":
            return "\n".join(out)
        out.append(line.rstrip("\r"))
    return None


_KEY_RE = re.compile(r"^([A-Za-z0-9_][A-Za-z0-9_.-]*)\s*:(?:\s+(.*))?$")


def _parse_yaml_scalars(header):
    """Top-level key: scalar pairs of a YAML mapping (see parse_skill)."""
    lines = header.split("\n")
    out, i = {}, 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0] in " \t":
            raise SpecError("front matter is not valid YAML: line %d is indented where a key was expected" % (i + 1))
        m = _KEY_RE.match(line)
        if not m:
            raise SpecError("front matter is not valid YAML: line %d is not \"key: value\"" % (i + 1))
        key, value = m.group(1), (m.group(2) or "").strip()
        block = []
        while i < len(lines) and (not lines[i].strip() or lines[i][0] in " \t"):
            block.append(lines[i])
            i += 1
        while block and not block[-1].strip():
            block.pop()
        out[key] = _scalar(key, value, block, i - len(block))
    return out


def _scalar(key, value, block, line):
    if value[:1] in ("|", ">"):
        indent = min((len(b) - len(b.lstrip(" ")) for b in block if b.strip()), default=0)
        body = [b[indent:] for b in block]
        if value[0] == "|":
            text = "\n".join(body)
        else:
            text = " ".join(b.strip() for b in body if b.strip())
        return text if "-" in value[1:] else text + "\n"
    if value[:1] in ("'", '"'):
        joined = " ".join([value] + [b.strip() for b in block])
        quote = joined[0]
        end = _closing_quote(joined, quote)
        if end < 0:
            raise SpecError("front matter is not valid YAML: the value of %s has no closing %s" % (key, quote))
        if joined[end + 1:].strip() and not joined[end + 1:].strip().startswith("#"):
            raise SpecError("front matter is not valid YAML: text after the quoted value of %s" % key)
        inner = joined[1:end]
        if quote == "'":
            return inner.replace("''", "'")
        try:
            return json.loads('"%s"' % inner.replace("\t", "\\t"))
        except ValueError:
            raise SpecError("front matter is not valid YAML: bad escape in the value of %s" % key) from None
    if not value and block:
        return ""  # a nested mapping or list: not a scalar, skipped
    parts = [value] + [b.strip() for b in block]
    text = " ".join(p for p in parts if p)
    return re.sub(r"\s+#.*$", "", text)


def _closing_quote(s, quote):
    i = 1
    while i < len(s):
        if s[i] == "\\" and quote == '"':
            i += 2
            continue
        if s[i] == quote:
            if quote == "'" and s[i + 1:i + 2] == "'":
                i += 2
                continue
            return i
        i += 1
    return -1


def _q(v):
    """v quoted as Go's %q quotes a string."""
    return json.dumps(v, ensure_ascii=False) if isinstance(v, str) else repr(v)
