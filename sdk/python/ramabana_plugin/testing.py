"""A test harness: a plugin over real gRPC, seen as the host sees it.

    from ramabana_plugin import testing

    with testing.connect(box, roots=[tmp]) as plugin:     # in-process
        out = plugin.call("greet", {"name": "Ada"})
        assert out.text == "Hello, Ada!"

    with testing.launch(["dist/ramabana-plugin-hello"]) as plugin:   # a child process
        ...

connect serves a Toolbox in this process on a Unix socket, behind a fresh
token; launch starts an executable as the host does (the host's environment
variables, a lifeline pipe as stdin, the handshake read from stdout). Both
then Describe it with the given host context and apply the host's checks to
the answer (checks.check_description: names, kinds, object schemas, tasks),
raising SpecError as the host would refuse the plugin. A call's arguments
are checked against the tool's input schema first, as the host does: a call
the host would refuse never reaches the plugin, and gets the host's kind of
error result ("invalid arguments for TOOL: ...").

Needs grpcio and protobuf, as serving does.
"""

import json
import logging
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from . import checks, schema as _schema
from .results import FileChange, Host, Image, Resource, Text
from .toolbox import drop_null_optionals
from .server import (MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE, TOKEN_ENV, TOKEN_METADATA, LogFormatter, PluginServer,
                     host_to_proto)

__all__ = ["connect", "launch", "Plugin", "Outcome", "ToolInfo", "CallFailed", "PendingCall", "host_env"]

HANDSHAKE_TIMEOUT = 30.0
"""Seconds launch waits for the handshake line."""


class CallFailed(Exception):
    """An RPC that ended with a gRPC error status: code is its name
    ("NOT_FOUND", "INTERNAL", "UNAUTHENTICATED", ...), details its message."""

    def __init__(self, code, details):
        super().__init__("%s: %s" % (code, details))
        self.code = code
        self.details = details


class Outcome:
    """What one Call streamed: its progress events [(progress, total,
    message)], its logs [(level, message)], and its result: content (Text,
    Image, Resource), text (the text blocks joined by newlines), structured
    (the decoded JSON, or None), is_error, changes (FileChange)."""

    def __init__(self):
        self.progress = []
        self.logs = []
        self.content = []
        self.structured = None
        self.is_error = False
        self.changes = []
        self.results = 0

    @property
    def text(self):
        """The text blocks joined with newlines."""
        return "\n".join(c.text for c in self.content if isinstance(c, Text))

    def __repr__(self):
        return "Outcome(text=%r, structured=%r, is_error=%r, progress=%r, logs=%r)" % (
            self.text, self.structured, self.is_error, self.progress, self.logs)


class ToolInfo:
    """A tool as the plugin described it: name, group, title,
    description, kind ("read", "write", "act"), task, mode, as_user_message,
    input_schema and output_schema (dicts; None when absent), annotations
    (a dict of the hints set)."""

    def __init__(self, group, t):
        from . import _wire as W
        self.group = group
        self.name = t.name
        self.title = t.title
        self.description = t.description
        self.kind = W.kind_name(t.kind)
        self.task = W.task_name(t.task)
        self.mode = W.skill_mode_name(t.mode)
        self.as_user_message = t.as_user_message
        self.input_schema = json.loads(t.input_schema) if t.input_schema else None
        self.output_schema = json.loads(t.output_schema) if t.output_schema else None
        self.annotations = {f: getattr(t.annotations, f) for f in ("read_only", "destructive", "idempotent", "open_world")
                            if t.HasField("annotations") and t.annotations.HasField(f)}

    def __repr__(self):
        return "ToolInfo(%r, kind=%s, task=%s)" % (self.name, self.kind, self.task)


def _describe_dict(resp):
    """A DescribeResponse as checks.check_description reads it."""
    from . import _wire as W
    return {"name": resp.name, "groups": [
        {"name": g.name, "tools": [
            {"name": t.name, "kind": W.kind_name(t.kind), "task": W.task_name(t.task), "mode": W.skill_mode_name(t.mode),
             "as_user_message": t.as_user_message, "input_schema": bytes(t.input_schema),
             "output_schema": bytes(t.output_schema) or None} for t in g.tools]} for g in resp.groups]}


class PendingCall:
    """A Call under way (Plugin.start): cancel() cancels its stream as the
    host does when the client cancels; result() waits for its Outcome."""

    def __init__(self, stream):
        self._stream = stream
        self.outcome = Outcome()
        self._done = threading.Event()
        self._error = None
        self._cond = threading.Condition()
        threading.Thread(target=self._read, name="ramabana-test-call", daemon=True).start()

    def _read(self):
        import grpc
        try:
            for ev in self._stream:
                with self._cond:
                    _add_event(self.outcome, ev)
                    self._cond.notify_all()
        except grpc.RpcError as e:
            self._error = CallFailed(e.code().name, e.details())
        finally:
            with self._cond:
                self._done.set()
                self._cond.notify_all()

    def cancel(self):
        """Cancels the call's stream."""
        self._stream.cancel()

    def wait_progress(self, n=1, timeout=10.0):
        """Waits until n progress events arrived; False on timeout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while len(self.outcome.progress) < n and not self._done.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            return len(self.outcome.progress) >= n

    def result(self, timeout=30.0):
        """The Outcome once the stream ended; CallFailed for an error
        status, TimeoutError if it does not end in time."""
        if not self._done.wait(timeout):
            raise TimeoutError("the call did not end within %gs" % timeout)
        if self._error is not None:
            raise self._error
        if self.outcome.results != 1:
            raise AssertionError("the plugin sent %d results, want exactly 1" % self.outcome.results)
        return self.outcome


def _add_event(out, ev):
    from . import _wire as W
    which = ev.WhichOneof("event")
    if which == "progress":
        out.progress.append((ev.progress.progress, ev.progress.total, ev.progress.message))
    elif which == "log":
        out.logs.append((W.log_level_name(ev.log.level), ev.log.message))
    elif which == "result":
        r = ev.result
        out.results += 1
        out.is_error = r.is_error
        out.structured = json.loads(r.structured) if r.structured else None
        for c in r.content:
            k = c.WhichOneof("kind")
            if k == "image":
                out.content.append(Image(bytes(c.image.data), c.image.mime_type))
            elif k == "resource":
                out.content.append(Resource(c.resource.uri, c.resource.mime_type, c.resource.text, bytes(c.resource.blob)))
            else:
                out.content.append(Text(c.text))
        out.changes = [FileChange(ch.path, ch.before_sha256, ch.after_sha256, bytes(ch.before), bytes(ch.after))
                       for ch in r.changes]


class Plugin:
    """A described plugin on a gRPC connection (from connect or launch).
    name, version, description; groups [(name, mode)]; tools {name:
    ToolInfo}; stderr (launch only: what the process wrote so far)."""

    def __init__(self, socket_path, token, closer, child=None):
        import grpc
        from . import _wire as W
        self._W = W
        self.socket_path = socket_path
        self.token = token
        self._closer = closer
        self._child = child
        self.process = child.proc if child is not None else None
        self.exit_code = None
        self.channel = grpc.insecure_channel(
            "unix:" + socket_path,
            options=[("grpc.max_receive_message_length", 256 << 20), ("grpc.max_send_message_length", 256 << 20)])
        self.name = self.version = self.description = ""
        self.groups = []
        self.tools = {}

    @property
    def stderr(self):
        """What the plugin process wrote on stderr so far; in-process, the
        kit's log lines, as a process would have written them."""
        if self._child is not None:
            return self._child.stderr
        logs = getattr(self, "_logs", None)
        return "".join(line + "\n" for line in logs.lines) if logs is not None else ""

    def stdout_after_handshake(self):
        """What the process wrote on stdout after the handshake line (the
        host would log it; a plugin should write none)."""
        return self._child.extra_stdout if self._child is not None else b""

    # -- RPCs -------------------------------------------------------------------
    def _method(self, service, method, channel=None):
        req, resp, streaming = self._W.methods(service)[method]
        make = (channel or self.channel).unary_stream if streaming else (channel or self.channel).unary_unary
        return make(self._W.path(service, method), request_serializer=req.SerializeToString,
                    response_deserializer=resp.FromString)

    def _metadata(self, token=True):
        return [(TOKEN_METADATA, self.token)] if token and self.token else []

    def _unary(self, service, method, request, token=True, timeout=30.0):
        import grpc
        try:
            return self._method(service, method)(request, metadata=self._metadata(token), timeout=timeout)
        except grpc.RpcError as e:
            raise CallFailed(e.code().name, e.details()) from None

    def describe(self, host=None, **fields):
        """Describes the plugin with host (a Host; or its fields as keyword
        arguments), checks the answer by the host's rules, and keeps it in
        name, version, groups and tools. Returns the DescribeResponse."""
        host = host if host is not None else Host(**fields)
        resp = self._unary(self._W.TOOL_GROUP_SERVICE, "Describe", self._W.DescribeRequest(host=host_to_proto(host)))
        checks.check_description(_describe_dict(resp))
        self.name, self.version, self.description = resp.name, resp.version, resp.description
        self.groups = [(g.name or resp.name, self._W.group_mode_name(g.mode)) for g in resp.groups]
        self.tools = {t.name: ToolInfo(g.name or resp.name, t) for g in resp.groups for t in g.tools}
        return resp

    def start(self, tool, arguments=None, call_id="test"):
        """Starts a call of tool with arguments (a dict; None is {}) and
        returns its PendingCall, without checking the arguments."""
        req = self._W.CallRequest(tool=tool, arguments=json.dumps(arguments if arguments is not None else {}).encode(),
                                  call_id=call_id)
        return PendingCall(self._method(self._W.TOOL_GROUP_SERVICE, "Call")(req, metadata=self._metadata()))

    def call(self, tool, arguments=None, call_id="test", timeout=30.0, check=True):
        """Calls tool with arguments (a dict; None is {}) and returns its
        Outcome. With check, the arguments are first checked against the
        tool's input schema as the host checks them (null optional
        arguments dropped): a refusal is an error Outcome that never
        reached the plugin. CallFailed for an error status (NOT_FOUND for
        a tool the plugin does not have, INTERNAL for a fault)."""
        args = arguments if arguments is not None else {}
        info = self.tools.get(tool)
        if check and info is not None and info.input_schema is not None and isinstance(args, dict):
            args = drop_null_optionals(info.input_schema, args)
            problem = _schema.validate(info.input_schema, args, tool)
            if problem:
                out = Outcome()
                out.is_error = True
                out.content = [Text("invalid arguments for %s: %s" % (tool, problem))]
                out.results = 1
                return out
        return self.start(tool, args, call_id).result(timeout)

    def health(self, service="plugin", token=True):
        """The health status's name ("SERVING") the plugin answers for service."""
        resp = self._unary(self._W.HEALTH_SERVICE, "Check", self._W.HealthCheckRequest(service=service), token=token)
        return resp.DESCRIPTOR.fields_by_name["status"].enum_type.values_by_number[resp.status].name

    def shutdown(self):
        """Calls plugin.GRPCController/Shutdown."""
        self._unary(self._W.CONTROLLER_SERVICE, "Shutdown", self._W.Empty())

    def check_token_demanded(self):
        """Raises AssertionError unless every service refuses an RPC
        without the token (UNAUTHENTICATED) and answers one with it."""
        import grpc
        W = self._W
        if not self.token:
            raise AssertionError("this plugin was started without a token")
        probes = [(W.HEALTH_SERVICE, "Check", W.HealthCheckRequest(service="plugin")),
                  (W.TOOL_GROUP_SERVICE, "Describe", W.DescribeRequest(host=W.HostContext(roots=["/"], write=True))),
                  (W.TOOL_GROUP_SERVICE, "Call", W.CallRequest(tool=next(iter(self.tools), "x"), arguments=b"{}"))]
        for bad in ([], [(TOKEN_METADATA, "not-" + self.token)]):
            for service, method, req in probes:
                try:
                    out = self._method(service, method)(req, metadata=bad, timeout=10)
                    if not hasattr(out, "SerializeToString"):
                        list(out)
                except grpc.RpcError as e:
                    if e.code() != grpc.StatusCode.UNAUTHENTICATED:
                        raise AssertionError("%s/%s without the token: %s, want UNAUTHENTICATED" % (service, method, e.code().name))
                    continue
                raise AssertionError("%s/%s answered without the token" % (service, method))
        self.health()

    def close(self):
        """Closes the connection and ends the plugin (see connect, launch)."""
        try:
            self.channel.close()
        finally:
            self._closer()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def connect(box, host=None, **host_fields):
    """Serves box (a Toolbox) in this process over a real gRPC connection
    (a Unix socket in a temporary folder, a fresh token demanded), and
    returns the described Plugin; its close() stops the server. host (or
    its fields as keyword arguments: roots=[...], write=True, ...) is the
    host context Describe carries."""
    d = tempfile.mkdtemp(prefix="ramabana-test-")
    token = os.urandom(16).hex()
    srv = PluginServer(box, os.path.join(d, "plugin.sock"), token)
    srv.start()
    logs = _LogCapture()

    def close():
        srv.stop("test done", grace=0)
        srv.stopped.wait(10)
        logs.stop()
        shutil.rmtree(d, ignore_errors=True)

    p = Plugin(srv.socket_path, token, close)
    p.server = srv
    p._logs = logs
    try:
        p.describe(host, **host_fields)
    except BaseException:
        p.close()
        raise
    return p


class _LogCapture(logging.Handler):
    """Keeps the kit's log lines (its logger, "ramabana_plugin") while an
    in-process plugin runs, instead of printing them."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines = []
        self.setFormatter(LogFormatter())
        self.logger = logging.getLogger("ramabana_plugin")
        self.saved = (self.logger.level, self.logger.propagate)
        self.logger.addHandler(self)
        self.logger.setLevel(logging.DEBUG)
        self.logger.propagate = False

    def emit(self, record):
        self.lines.append(self.format(record))

    def stop(self):
        self.logger.removeHandler(self)
        if not any(isinstance(h, _LogCapture) for h in self.logger.handlers):
            self.logger.setLevel(self.saved[0])
            self.logger.propagate = self.saved[1]


def host_env(socket_dir, token, log_level="debug", extra=None):
    """The environment the host gives a plugin process: PATH, HOME and the
    locale of this one (not PYTHONPATH), the cookie, protocol versions,
    socket folder, token and log level; extra adds to it."""
    env = {k: os.environ[k] for k in ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR") if k in os.environ}
    env.update({MAGIC_COOKIE_KEY: MAGIC_COOKIE_VALUE, "PLUGIN_PROTOCOL_VERSIONS": "1",
                "PLUGIN_UNIX_SOCKET_DIR": socket_dir, "RAMABANA_LOG_LEVEL": log_level})
    if token:
        env[TOKEN_ENV] = token
    env.update(extra or {})
    return env


class _Child:
    """A plugin process as the host runs it."""

    def __init__(self, argv, env, cwd):
        self.proc = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, start_new_session=True)
        self._err = []
        self._lock = threading.Lock()
        self.extra_stdout = b""
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    def _drain_stderr(self):
        for line in iter(self.proc.stderr.readline, b""):
            with self._lock:
                self._err.append(line.decode("utf-8", "replace"))

    @property
    def stderr(self):
        with self._lock:
            return "".join(self._err)

    def handshake(self, timeout):
        """The first stdout line, or None if none came in time."""
        fd = self.proc.stdout.fileno()
        buf = b""
        deadline = time.monotonic() + timeout
        while b"\n" not in buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([fd], [], [], left)
            if not r:
                continue
            chunk = os.read(fd, 4096)
            if not chunk:
                return buf.decode("utf-8", "replace") or None
            buf += chunk
        line, _, rest = buf.partition(b"\n")
        self.extra_stdout = rest
        threading.Thread(target=self._drain_stdout, daemon=True).start()
        return line.decode("utf-8", "replace")

    def _drain_stdout(self):
        while True:
            try:
                chunk = os.read(self.proc.stdout.fileno(), 4096)
            except (OSError, ValueError):
                return
            if not chunk:
                return
            self.extra_stdout += chunk

    def end(self, timeout=10.0):
        """Closes the lifeline and waits; kills the process group if it
        does not exit. Returns the exit status (None if it was killed)."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(self.proc.pid, 9)
            except OSError:
                pass
            self.proc.wait()
            return None


def launch(argv, host=None, env=None, cwd=None, log_level="debug", token=True, timeout=HANDSHAKE_TIMEOUT,
           **host_fields):
    """Starts argv (the plugin's executable, or [sys.executable, script])
    as the host does and returns the described Plugin. Its process is
    plugin.process (a Popen), its stderr so far plugin.stderr; close()
    closes its lifeline (stdin) and waits for it to exit (plugin.exit_code;
    None if it had to be killed). env adds variables to the host's
    environment (host_env); token=False starts it without a token.
    RuntimeError, with the plugin's stderr, when it does not hand-shake."""
    if isinstance(argv, str):
        argv = [argv]
    d = tempfile.mkdtemp(prefix="ramabana-test-")
    tok = os.urandom(16).hex() if token else ""
    child = _Child(list(argv), host_env(d, tok, log_level, env), cwd)
    line = child.handshake(timeout)
    parts = (line or "").split("|")
    if len(parts) < 5 or parts[0] != "1" or parts[1] != "1" or parts[2] != "unix" or parts[4] != "grpc":
        code = child.end(2)
        shutil.rmtree(d, ignore_errors=True)
        raise RuntimeError("%s did not hand-shake (first stdout line %r, exit status %s); stderr:\n%s"
                           % (argv[0], line, code, child.stderr))
    plugin = None

    def close():
        plugin.exit_code = child.end()
        shutil.rmtree(d, ignore_errors=True)

    plugin = Plugin(parts[3], tok, close, child)
    plugin.handshake = line
    plugin.socket_dir = d
    try:
        plugin.describe(host, **host_fields)
    except BaseException as e:
        plugin.close()
        if isinstance(e, CallFailed):
            raise RuntimeError("Describe failed: %s; stderr:\n%s" % (e, child.stderr)) from None
        raise
    return plugin


def python_argv(script):
    """[this interpreter, script]: launch a plugin's source file in tests."""
    return [sys.executable, script]
