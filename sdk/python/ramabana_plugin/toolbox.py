"""Declaring tools: a Toolbox of groups, whose tools are typed functions.

    box = Toolbox("hello", version="0.1.0", description="Greets people.")

    @box.tool(kind=READ)
    def greet(name: Annotated[str, "who to greet"]) -> str:
        "Greet someone by name."
        return "Hello, %s!" % name

Each decorator declares one tool of one agent task (docs/agent-tasks.md)
and checks it at once, as the Go sdk's helpers do: a bad name, a missing
kind, a parameter that cannot be described, a return type its task does not
take, a tool name already declared are SpecErrors naming the tool, raised
when the module is imported, never at a call.

    decorator     task        the handler returns         on the wire
    tool          completion  str / typed output / Result  text; typed: structured and its JSON as text
    context       context     str                          one text block
    evaluation    evaluation  Evaluation                   its JSON, structured and as text
    post_tool     post_tool   None                         one empty text block
    skill         skill       str (a SKILL.md)             one text block, front matter checked
    skill_text    skill       (fixed text, checked now)    one text block
    none          none        as tool                      as tool

A handler's parameters are the tool's arguments (ramabana_plugin.schema
derives the input schema); one parameter hinted Call gets the call (host
context, roots, progress, logs, cancellation) instead. Handlers may be
async functions.
"""

import dataclasses
import enum
import inspect
import json
import threading
import typing
from typing import Any, Optional

from . import checks, schema as _schema
from .checks import SpecError
from .results import (EVALUATION_SCHEMA, Evaluation, FileChange, Host, Image, Resource, Result, Text,
                      ToolError, error_result)


class Kind(str, enum.Enum):
    """What a tool does, which decides when it is mounted and its default
    MCP hints: READ only reads (always mounted; read-only, idempotent);
    WRITE changes files or state (mounted with --write; destructive); ACT
    acts without writing the served files (always mounted)."""

    READ = "read"
    WRITE = "write"
    ACT = "act"


READ, WRITE, ACT = Kind.READ, Kind.WRITE, Kind.ACT


class GroupMode(str, enum.Enum):
    """When the host mounts a group: DEFAULT unless opted out, OPT_IN only
    when named in --groups, LEGACY only when no agent is configured (its
    tools marked deprecated in favour of the group's replaced_by)."""

    DEFAULT = "default"
    OPT_IN = "opt-in"
    LEGACY = "legacy"


class SkillMode(str, enum.Enum):
    """A skill tool's mode: ALWAYS_ON skills go into every agent run's
    system prompt; AUTO ones are listed and loaded when the model asks."""

    ALWAYS_ON = "always-on"
    AUTO = "auto"


ALWAYS_ON, AUTO = SkillMode.ALWAYS_ON, SkillMode.AUTO


@dataclasses.dataclass(frozen=True)
class Annotations:
    """Overrides of the MCP hints a tool's kind gives; None keeps the
    derived value (open_world=True, say, for a tool that reaches the web,
    which the host then leaves out under --web=false)."""

    read_only: Optional[bool] = None
    destructive: Optional[bool] = None
    idempotent: Optional[bool] = None
    open_world: Optional[bool] = None


@dataclasses.dataclass(frozen=True)
class ToolSpec:
    """A tool as the host lists it. Schemas are dicts."""

    name: str
    kind: str
    input_schema: dict
    title: str = ""
    description: str = ""
    output_schema: Optional[dict] = None
    annotations: Annotations = Annotations()
    task: str = "completion"
    as_user_message: bool = False
    mode: str = ""

    def as_dict(self):
        """The spec as checks.check_description reads it."""
        return {"name": self.name, "kind": self.kind, "input_schema": self.input_schema,
                "output_schema": self.output_schema, "task": self.task, "mode": self.mode,
                "as_user_message": self.as_user_message}


class UnknownTool(KeyError):
    """A call of a tool the toolbox does not have (gRPC NOT_FOUND)."""

    def __init__(self, name):
        super().__init__(name)
        self.name = name

    def __str__(self):
        return "unknown tool %s" % json.dumps(self.name)


class Cancelled(Exception):
    """Raised by Call.check_cancelled once the host cancelled the call."""


LOG_LEVELS = ("debug", "info", "warning", "error")


class Events:
    """Where a call's progress and logs go; the default discards them."""

    def progress(self, progress, total, message):
        """Receives a progress event of a call."""

    def log(self, level, message):
        """Receives a log event of a call."""


class Call:
    """What a handler gets besides its arguments, through a parameter
    hinted Call: the call's id and tool, the host context, the roots, and
    the events it streams to the host while it runs."""

    def __init__(self, tool, call_id="", host=None, events=None, roots=None):
        self.tool = tool
        """The tool's name."""
        self.id = call_id
        """The host's identifier of this call, for logs."""
        self.host = host if host is not None else Host()
        """The Host of the last Describe."""
        self.changes = []
        """The FileChanges recorded with record(); added to the result."""
        self._events = events if events is not None else Events()
        self._roots = roots
        self._cancelled = threading.Event()
        self._finished = False
        self._on_cancel = []
        self._lock = threading.Lock()

    @property
    def roots(self):
        """The served folders as a Roots, confining paths (see roots.py).
        A served folder that changed since the host resolved it is a
        ToolError."""
        r = self._roots() if callable(self._roots) else self._roots
        if r is None:
            from .roots import Roots
            r = Roots(self.host.roots, read_outside=self.host.read_outside)
        return r

    def progress(self, progress, total=0.0, message=""):
        """Reports progress: done so far, of total (0 when unknown). The
        client gets it as an MCP progress notification when it asked."""
        self._events.progress(float(progress), float(total), str(message))

    def log(self, level, message):
        """Logs message in the host's log, naming the tool and call; level
        is "debug", "info", "warning" or "error"."""
        level = "warning" if level == "warn" else level
        if level not in LOG_LEVELS:
            raise ValueError("log level %r: use debug, info, warning or error" % (level,))
        self._events.log(level, str(message))

    def record(self, change):
        """Records a FileChange (a write tool's), sent with the result."""
        if not isinstance(change, FileChange):
            raise TypeError("record takes a FileChange, not %s" % type(change).__name__)
        self.changes.append(change)

    @property
    def cancelled(self):
        """True once the host cancelled the call (the client cancelled, or
        the host is stopping): a long handler stops and returns."""
        return self._cancelled.is_set()

    def check_cancelled(self):
        """Raises Cancelled once the call is cancelled."""
        if self._cancelled.is_set():
            raise Cancelled("call %s of %s was cancelled" % (self.id, self.tool))

    def wait_cancelled(self, timeout=None):
        """Waits up to timeout seconds for the call to be cancelled; True if it was."""
        return self._cancelled.wait(timeout)

    def on_cancel(self, fn):
        """Runs fn() when the call is cancelled (at once if it was), on the
        thread that cancels it: to stop a child process, say."""
        with self._lock:
            if not self._cancelled.is_set():
                self._on_cancel.append(fn)
                return
        fn()

    def cancel(self):
        """Cancels the call: what the kit does when the host cancels the
        stream. A call that has finished is not cancelled."""
        with self._lock:
            if self._cancelled.is_set() or self._finished:
                return
            self._cancelled.set()
            fns, self._on_cancel = self._on_cancel, []
        for fn in fns:
            fn()

    def finish(self):
        """Marks the call finished: a cancel() after it does nothing, and
        the on_cancel functions are dropped."""
        with self._lock:
            self._finished = True
            self._on_cancel = []


class Tool:
    """A declared tool: its spec and what runs it."""

    def __init__(self, spec, fn, params, shape):
        self.spec = spec
        self.fn = fn
        self._params = params
        self._shape = shape  # how the return value becomes a Result

    def __repr__(self):
        return "Tool(%r, kind=%s, task=%s)" % (self.spec.name, self.spec.kind, self.spec.task)

    def run(self, call, args):
        """Runs the tool on args (a decoded JSON object) for call, and
        returns its Result. A ToolError, and arguments the input schema
        refuses, become an error Result; any other exception propagates
        (a fault)."""
        try:
            args = drop_null_optionals(self.spec.input_schema, args)
            problem = _schema.validate(self.spec.input_schema, args, self.spec.name)
            if problem:
                raise ToolError(problem)
            kwargs = {}
            for p in self._params:
                if _schema._strip_annotated(p.hint)[0] is Call:
                    kwargs[p.name] = call
                elif p.name in args:
                    kwargs[p.name] = _schema.bind(p.hint, args[p.name])
            out = _invoke(self.fn, kwargs, call)
            res = self._shape(out)
        except ToolError as e:
            return error_result(e.message)
        if call.changes:
            res.changes = list(res.changes) + call.changes
        return res


def drop_null_optionals(schema, args):
    """args without the optional arguments that are null where the schema
    does not allow null, as the host drops them: models send null for an
    argument they mean to leave out."""
    props, required = schema.get("properties") or {}, schema.get("required") or ()
    drop = [k for k, v in args.items() if v is None and k in props and k not in required
            and not _schema.validate_value(props[k], None)]
    return {k: v for k, v in args.items() if k not in drop} if drop else args


def _invoke(fn, kwargs, call):
    if not inspect.iscoroutinefunction(fn):
        return fn(**kwargs)
    # An async handler runs on its own event loop in this call's thread;
    # the call's cancellation cancels its task.
    import asyncio
    loop = asyncio.new_event_loop()
    try:
        task = loop.create_task(fn(**kwargs))
        call.on_cancel(lambda: loop.call_soon_threadsafe(task.cancel))
        return loop.run_until_complete(task)
    except asyncio.CancelledError:
        raise Cancelled("call %s of %s was cancelled" % (call.id, call.tool)) from None
    finally:
        loop.close()


def _json_text(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _as_result(tool, out):
    """A completion or none handler's return value as a Result."""
    if isinstance(out, Result):
        res = Result(content=list(out.content), structured=out.structured, is_error=out.is_error,
                     changes=list(out.changes))
        res.content = [Text(c) if isinstance(c, str) else c for c in res.content]
        for c in res.content:
            if not isinstance(c, (Text, Image, Resource)):
                raise TypeError("tool %s: a Result's content holds Text, Image or Resource, not %s"
                                % (json.dumps(tool), type(c).__name__))
        if res.structured is not None:
            res.structured = _schema.to_json(res.structured)
            if not isinstance(res.structured, dict):
                raise TypeError("tool %s: structured content must be a JSON object" % json.dumps(tool))
        return res
    if isinstance(out, str):
        return Result(content=[Text(out)])
    if out is None:
        return Result()
    value = _schema.to_json(out) if (dataclasses.is_dataclass(out) or isinstance(out, dict)) else None
    if isinstance(value, dict):
        return Result(content=[Text(_json_text(value))], structured=value)
    raise TypeError("tool %s returned %s: return str, a dataclass, a dict or ramabana_plugin.Result"
                    % (json.dumps(tool), type(out).__name__))


class Group:
    """A set of tools the user opts in or out of as one (--groups NAME).
    Declare its tools with its decorators; Toolbox.group makes one."""

    def __init__(self, box, name, description="", mode=GroupMode.DEFAULT, replaced_by=""):
        checks.check_group_name(name)
        mode = _enum(GroupMode, mode, "group %s: mode" % json.dumps(name))
        self.box = box
        self.name = name
        self.description = description
        self.mode = mode.value
        self.replaced_by = replaced_by
        self.tools = []

    def __repr__(self):
        return "Group(%r, %d tools)" % (self.name, len(self.tools))

    # -- the decorators ---------------------------------------------------
    def tool(self, fn=None, *, kind=None, name=None, title="", description=None, annotations=None, output=None):
        """Declares a completion tool, offered to the model: @tool(kind=READ).
        Its input schema comes from fn's parameters, its description from
        fn's docstring unless given. fn returns a str (one text block), a
        typed output (a dataclass, TypedDict or dict, whose return
        annotation gives the output schema: the model gets it as structured
        content and as JSON text), None, or a Result; output names the
        structured type of a handler that returns a Result."""
        return self._declare(fn, "completion", kind=kind, name=name, title=title, description=description,
                             annotations=annotations, output=output)

    def none(self, fn=None, *, kind=None, name=None, title="", description=None, annotations=None, output=None):
        """Declares a tool agents leave alone (task none); generic MCP
        clients list and call it as a tool() one."""
        return self._declare(fn, "none", kind=kind, name=name, title=title, description=description,
                             annotations=annotations, output=output)

    def context(self, fn=None, *, kind=None, name=None, title="", description=None, annotations=None,
                as_user_message=False):
        """Declares a context tool: an agent calls it before its run and
        puts the str it returns in the system prompt, or in a user message
        with as_user_message."""
        return self._declare(fn, "context", kind=kind, name=name, title=title, description=description,
                             annotations=annotations, as_user_message=as_user_message)

    def evaluation(self, fn=None, *, kind=None, name=None, title="", description=None, annotations=None):
        """Declares an evaluation tool: it judges an agent's final answer and
        returns an Evaluation (Evaluation.valid(score) or
        Evaluation.invalid(score, feedback)), sent as structured content
        with the evaluation output schema and as JSON text."""
        return self._declare(fn, "evaluation", kind=kind, name=name, title=title, description=description,
                             annotations=annotations)

    def post_tool(self, fn=None, *, kind=None, name=None, title="", description=None, annotations=None):
        """Declares a post tool: an agent runs it on each final answer, for
        its side effects, before evaluating it. It returns None; the wire
        carries one empty text block."""
        return self._declare(fn, "post_tool", kind=kind, name=name, title=title, description=description,
                             annotations=annotations)

    def skill(self, fn=None, *, kind=None, mode=None, name=None, title="", description=None, annotations=None):
        """Declares a skill tool: fn takes no arguments (but a Call) and
        returns the text of a SKILL.md whose front matter names the skill
        (the tool's name in lower case, '_' as '-') and describes it;
        each text is checked, and one that fails is a fault. mode is
        ALWAYS_ON or AUTO; a description is required (the host lists the
        skill by it). A fixed text is better declared with skill_text."""
        return self._declare(fn, "skill", kind=kind, name=name, title=title, description=description,
                             annotations=annotations, mode=mode)

    def skill_text(self, name, text, *, kind=None, mode=None, title="", description=None, annotations=None):
        """Declares a skill tool answering text, a SKILL.md checked now;
        without a description, the front matter's. Returns the Tool."""
        checks.check_tool_name(name)
        try:
            fm = checks.check_skill_text(name, text)
        except SpecError as e:
            raise SpecError(str(e)) from None
        if not (description or "").strip():
            description = fm["description"]

        def answer():
            return text
        answer.__name__ = name
        self._declare(answer, "skill", kind=kind, name=name, title=title, description=description,
                      annotations=annotations, mode=mode)
        return self.tools[-1]

    # -- declaring --------------------------------------------------------
    def _declare(self, fn, task, **opts):
        if fn is None:
            return lambda f: self._declare(f, task, **opts)
        if not callable(fn):
            raise SpecError("a tool is declared on a function; got %r (use @tool(kind=...))" % (fn,))
        self._add(_build(fn, task, **opts))
        return fn

    def _add(self, tool):
        self.box._register(self, tool)
        self.tools.append(tool)


def _enum(cls, value, what):
    try:
        return cls(value)
    except ValueError:
        raise SpecError("%s %s: use %s" % (what, json.dumps(str(value)), " or ".join(m.value for m in cls))) from None


def _build(fn, task, kind=None, name=None, title="", description=None, annotations=None, output=None,
           as_user_message=False, mode=None):
    """The Tool of handler fn for task: its spec checked as the host checks
    it, its schema derived, its return shaped for the task."""
    name = name or getattr(fn, "__name__", "")
    checks.check_tool_name(name)
    q = json.dumps(name)
    if kind in (None, ""):
        raise SpecError("tool %s: declares no kind: kind=READ, WRITE or ACT" % q)
    kind = _enum(Kind, kind, "tool %s: kind" % q).value
    if mode not in (None, ""):
        if task != "skill":  # the decorators never pass one: kept for the rule's sake
            raise SpecError("tool %s: mode is for skill tools only, and the task is %s" % (q, task))
        mode = _enum(SkillMode, mode, "tool %s: skill mode" % q).value
    elif task == "skill":
        raise SpecError("tool %s: a skill tool needs a mode: mode=ALWAYS_ON or AUTO" % q)
    else:
        mode = ""
    if annotations is None:
        annotations = Annotations()
    elif isinstance(annotations, dict):
        try:
            annotations = Annotations(**annotations)
        except TypeError:
            raise SpecError("tool %s: annotations take read_only, destructive, idempotent and open_world" % q) from None
    elif not isinstance(annotations, Annotations):
        raise SpecError("tool %s: annotations must be an Annotations" % q)
    if description is None:
        description = inspect.getdoc(fn) or ""
    if task == "skill" and not description.strip():
        raise SpecError("tool %s: a skill tool needs a description: the host lists the skill by it" % q)

    input_schema, params = _schema.input_schema(fn, name, skip=(Call,))
    if task == "skill" and input_schema["properties"]:
        raise SpecError("tool %s: a skill tool takes no arguments; drop %s" % (q, ", ".join(input_schema["properties"])))
    try:
        ret = typing.get_type_hints(fn, include_extras=True).get("return", inspect.Signature.empty)
    except Exception:
        ret = inspect.Signature.empty
    if ret is not inspect.Signature.empty:
        ret = _schema._strip_annotated(ret)[0]
    output_schema, shape = _shape(name, task, ret, output)
    spec = ToolSpec(name=name, kind=kind, input_schema=input_schema, title=title or "", description=description,
                    output_schema=output_schema, annotations=annotations, task=task,
                    as_user_message=bool(as_user_message), mode=mode)
    checks.check_tool(spec.name, spec.kind, spec.input_schema, spec.output_schema)
    checks.check_task(spec.name, spec.task, spec.mode, spec.as_user_message)
    return Tool(spec, fn, params, shape)


# What each task's handler may return (by its annotation), in words.
_RETURNS = {"context": (str, "str"), "evaluation": (Evaluation, "Evaluation"), "post_tool": (type(None), "None"),
            "skill": (str, "str (a SKILL.md)")}


def _shape(name, task, ret, output):
    """(the output schema, a function turning the handler's return value
    into the Result) for a handler of task whose return annotation is ret."""
    q = json.dumps(name)
    if task in _RETURNS:
        want, words = _RETURNS[task]
        if output is not None:
            raise SpecError("tool %s: a %s tool's result is fixed by its decorator; drop output=" % (q, task))
        if ret is not inspect.Signature.empty and ret is not None and ret is not want and ret is not Any:
            raise SpecError("tool %s: a %s tool returns %s; its annotation says %s" % (q, task, words, _tname(ret)))
        if ret is None and want is not type(None):
            raise SpecError("tool %s: a %s tool returns %s; its annotation says None" % (q, task, words))
        return (EVALUATION_SCHEMA if task == "evaluation" else None), _TASK_SHAPES[task](name)
    # completion and none
    typed = None
    if output is not None:
        typed = output
    elif ret not in (inspect.Signature.empty, None, Any, str, Result, type(None)):
        typed = ret
    out_schema = _schema.output_schema(typed, name) if typed is not None else None
    return out_schema, lambda out: _as_result(name, out)


def _tname(tp):
    return getattr(tp, "__name__", None) or repr(tp)


def _context_shape(name):
    def shape(out):
        if not isinstance(out, str):
            raise TypeError("context tool %s returned %s: it returns str" % (json.dumps(name), type(out).__name__))
        return Result(content=[Text(out)])
    return shape


def _evaluation_shape(name):
    def shape(out):
        if not isinstance(out, Evaluation):
            raise TypeError("evaluation tool %s returned %s: it returns an Evaluation"
                            % (json.dumps(name), type(out).__name__))
        value = out.to_json()
        return Result(content=[Text(_json_text(value))], structured=value)
    return shape


def _post_shape(name):
    def shape(out):
        if out is not None:
            raise TypeError("post tool %s returned %s: it returns None" % (json.dumps(name), type(out).__name__))
        return Result(content=[Text("")])
    return shape


def _skill_shape(name):
    def shape(out):
        if not isinstance(out, str):
            raise TypeError("skill tool %s returned %s: it returns the text of a SKILL.md"
                            % (json.dumps(name), type(out).__name__))
        checks.check_skill_text(name, out)
        return Result(content=[Text(out)])
    return shape


_TASK_SHAPES = {"context": _context_shape, "evaluation": _evaluation_shape, "post_tool": _post_shape,
                "skill": _skill_shape}


class Toolbox:
    """A plugin: its name (lower-case letters, digits and '-'; the file is
    ramabana-plugin-<name>), version, one-line description, and groups of
    tools. Serve it with ramabana_plugin.serve(box).

    The decorators of Toolbox itself (tool, context, ...) declare tools of
    its default group, named like the plugin and described like it; group()
    makes others. Every declaration is checked at once (SpecError)."""

    def __init__(self, name, version="", description=""):
        checks.check_plugin_name(name)
        self.name = name
        self.version = version
        self.description = description
        self.groups = []
        self._tools = {}
        self._default = None
        self._on_describe = None
        self._lock = threading.Lock()
        self._host = Host()
        self._roots = None  # (host roots, read_outside, Roots) of the last call that needed them

    def __repr__(self):
        return "Toolbox(%r, %d groups, %d tools)" % (self.name, len(self.groups), len(self._tools))

    def group(self, name, description="", mode=GroupMode.DEFAULT, replaced_by=""):
        """Adds a group and returns it; declare its tools with its
        decorators. mode is DEFAULT, OPT_IN or LEGACY; replaced_by says
        what replaces a legacy group."""
        if any(g.name == name for g in self.groups):
            raise SpecError("group %s is declared twice" % json.dumps(name))
        g = Group(self, name, description, mode, replaced_by)
        self.groups.append(g)
        return g

    @property
    def default_group(self):
        """The group the Toolbox's own decorators declare into, made on
        first use: named like the plugin, with its description."""
        if self._default is None:
            self._default = self.group(self.name, self.description)
        return self._default

    def tool(self, fn=None, **opts):
        """Group.tool on the default group."""
        return self.default_group.tool(fn, **opts)

    def none(self, fn=None, **opts):
        """Group.none on the default group."""
        return self.default_group.none(fn, **opts)

    def context(self, fn=None, **opts):
        """Group.context on the default group."""
        return self.default_group.context(fn, **opts)

    def evaluation(self, fn=None, **opts):
        """Group.evaluation on the default group."""
        return self.default_group.evaluation(fn, **opts)

    def post_tool(self, fn=None, **opts):
        """Group.post_tool on the default group."""
        return self.default_group.post_tool(fn, **opts)

    def skill(self, fn=None, **opts):
        """Group.skill on the default group."""
        return self.default_group.skill(fn, **opts)

    def skill_text(self, name, text, **opts):
        """Group.skill_text on the default group."""
        return self.default_group.skill_text(name, text, **opts)

    def _register(self, group, tool):
        other = self._tools.get(tool.spec.name)
        if other is not None:
            raise SpecError("tool %s is declared twice (groups %s and %s)" % (
                json.dumps(tool.spec.name), json.dumps(other[0].name), json.dumps(group.name)))
        self._tools[tool.spec.name] = (group, tool)

    def tools(self):
        """Every declared Tool, by name."""
        return {name: t for name, (_, t) in self._tools.items()}

    def has_tool(self, name):
        """Whether a tool called name is declared."""
        return name in self._tools

    def on_describe(self, fn):
        """Sets fn(host) to run on every Describe, before the description is
        returned (to open a store under host.config_dir, say); an exception
        fails the Describe, and the host then refuses the plugin, logging
        the message. Usable as a decorator."""
        self._on_describe = fn
        return fn

    # -- what serve and the harness call ----------------------------------
    def describe(self, host=None):
        """Keeps host (a Host) for the calls that follow and returns the
        description: {"name", "version", "description", "groups": [{"name",
        "description", "mode", "replaced_by", "tools": [ToolSpec...]}]}."""
        host = host if host is not None else Host()
        if self._on_describe is not None:
            self._on_describe(host)
        with self._lock:
            self._host = host
        if not self.groups:
            raise SpecError("plugin %s declares no tools" % json.dumps(self.name))
        return {"name": self.name, "version": self.version, "description": self.description,
                "groups": [{"name": g.name, "description": g.description, "mode": g.mode,
                            "replaced_by": g.replaced_by, "tools": [t.spec for t in g.tools]}
                           for g in self.groups]}

    @property
    def host(self):
        """The Host of the last Describe."""
        with self._lock:
            return self._host

    def roots(self):
        """The Roots of the last Describe's host, opened once per host."""
        host = self.host
        key = (tuple(host.roots), host.read_outside)
        with self._lock:
            if self._roots is not None and self._roots[0] == key:
                return self._roots[1]
        from .roots import Roots
        r = Roots(host.roots, read_outside=host.read_outside)
        with self._lock:
            self._roots = (key, r)
        return r

    def new_call(self, tool, call_id="", events=None):
        """A Call of tool for call(), with the current host context."""
        return Call(tool, call_id, self.host, events, roots=self.roots)

    def call(self, tool, arguments=None, call=None):
        """Runs tool on arguments (a dict, or JSON text or bytes; empty or
        null is {}) and returns its Result. UnknownTool for a tool the
        toolbox does not have; arguments that are not a JSON object, or
        that its input schema refuses, give an error Result."""
        entry = self._tools.get(tool)
        if entry is None:
            raise UnknownTool(tool)
        call = call if call is not None else self.new_call(tool)
        try:
            return self._call(entry[1], arguments, call)
        finally:
            call.finish()

    @staticmethod
    def _call(tool, arguments, call):
        if isinstance(arguments, (bytes, bytearray, str)):
            text = arguments.decode("utf-8", "replace") if isinstance(arguments, (bytes, bytearray)) else arguments
            if not text.strip():
                arguments = None
            else:
                try:
                    arguments = json.loads(text)
                except ValueError as e:
                    return error_result("arguments are not valid JSON: %s" % e)
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            return error_result(_schema.validate({}, arguments, tool.spec.name))
        return tool.run(call, arguments)
