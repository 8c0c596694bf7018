"""Serve a ramabana-mcp tool group from Python.

This module is everything a ramabana host expects of a plugin process, written
against the published contract only (proto/ramabana/plugin/v1/plugin.proto)
and go-plugin's handshake. Copy it next to your tools; they stay plain Python:

    import ramabana_plugin as rp

    def shout(args, call):
        return rp.text(rp.require_str(args, "text").upper())

    rp.serve(rp.Plugin(name="shout", version="0.1.0", description="...",
                       tools=[rp.Tool(name="shout", ..., handler=shout)]))

What serve does, in order:

1. Environment. It refuses to run (message on stderr, exit 1) unless
   RAMABANA_PLUGIN_MAGIC_COOKIE holds the host's cookie, and unless
   PLUGIN_PROTOCOL_VERSIONS (comma-separated, set by the host) includes 1.
2. Handshake. It listens on a Unix socket in PLUGIN_UNIX_SOCKET_DIR (or a
   temporary dir) and prints exactly one line on stdout:
   ``1|1|unix|<socket path>|grpc|``. Later prints go to stderr.
3. Services. On that socket: ramabana.plugin.v1.ToolGroupService (Describe,
   Call), grpc.health.v1.Health (SERVING for "plugin" and "") and
   plugin.GRPCController/Shutdown (answers, then stops the server).
4. Lifetime. It exits when stdin, the host's lifeline pipe, reaches EOF, when
   the parent process changes (the host died), on SIGTERM or SIGINT, and after
   Shutdown. Logs go to stderr, one line each, at RAMABANA_LOG_LEVEL.

A tool handler takes (args, call): args is the decoded JSON object and call a
Call (progress, log, host context, cancellation). It returns a Result (or a
str, taken as its text). Failures a model can act on raise ToolError; they
become results with is_error set. Any other exception is a fault: it is
logged with its traceback and reported to the host as a gRPC INTERNAL error.

Only the standard library is imported until serve has checked the
environment, so a missing grpcio is reported plainly, after the cookie check.
"""

import json
import logging
import os
import queue
import signal
import stat
import sys
import tempfile
import threading
import time

MAGIC_COOKIE_KEY = "RAMABANA_PLUGIN_MAGIC_COOKIE"
MAGIC_COOKIE_VALUE = "c2f6e5b4a1d94e0f9c7b3a8d6e2f1c0a"
# go-plugin's core protocol version and the ramabana contract's version.
CORE_PROTOCOL_VERSION = 1
APP_PROTOCOL_VERSION = 1
# The message limit of both sides (MaxMessageSize in the Go module's internal/pluginrpc): grpc's
# default of 4 MiB is too small for a whole file.
MAX_MESSAGE_SIZE = 256 << 20
# The service name go-plugin's host asks the health service about.
HEALTH_SERVICE = "plugin"

# Tool kinds and tasks, as the proto's enum value names.
KIND_READ, KIND_WRITE, KIND_ACT = "TOOL_KIND_READ", "TOOL_KIND_WRITE", "TOOL_KIND_ACT"
TASK_COMPLETION = "TOOL_TASK_COMPLETION"

log = logging.getLogger("plugin")


class ToolError(Exception):
    """A failure the model can act on: the message says what to do."""


class Result:
    """A tool's answer: text content and an optional structured value that
    matches the tool's output schema."""

    def __init__(self, text, structured=None, is_error=False):
        self.text = text
        self.structured = structured
        self.is_error = is_error


def text(s, structured=None):
    return Result(s, structured)


class Tool:
    """One tool: its spec as the host lists it, and its handler."""

    def __init__(self, name, title, description, input_schema, handler,
                 output_schema=None, kind=KIND_READ, task=TASK_COMPLETION):
        self.name = name
        self.title = title
        self.description = description
        self.input_schema = input_schema
        self.output_schema = output_schema
        self.kind = kind
        self.task = task
        self.handler = handler


class Plugin:
    """A plugin serving one group, named like the plugin (the binary is
    ramabana-plugin-<name>)."""

    def __init__(self, name, version, description, tools):
        self.name = name
        self.version = version
        self.description = description
        self.tools = {t.name: t for t in tools}


class Call:
    """What a handler gets besides its arguments. progress and log stream
    events to the host while the handler runs."""

    def __init__(self, call_id, host, emit, cancelled):
        self.id = call_id
        # The HostContext message from Describe (roots, read_outside, web,
        # config_dir, host_version, write), or None before Describe.
        self.host = host
        self._emit = emit
        self._cancelled = cancelled

    def progress(self, progress, total=0.0, message=""):
        self._emit(("progress", float(progress), float(total), message))

    def log(self, level, message):
        """level: "debug", "info", "warning" or "error"."""
        self._emit(("log", level, message))

    def cancelled(self):
        """True once the host cancelled the call; long handlers should stop."""
        return self._cancelled.is_set()


# Argument helpers: the host validates arguments against the input schema,
# but a plugin checks them again and says exactly what is wrong.

def _type_name(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    return "an object"


def check_known(args, tool, known):
    """Raises ToolError for an argument the tool does not take."""
    for k in sorted(args):
        if k not in known:
            raise ToolError('unknown argument "%s": %s takes %s' % (k, tool, ", ".join(known)))


def require_str(args, key, tool):
    if key not in args:
        raise ToolError('%s needs "%s", a string' % (tool, key))
    v = args[key]
    if not isinstance(v, str):
        raise ToolError('"%s" must be a string; got %s' % (key, _type_name(v)))
    return v


def optional_int(args, key, default, lo, hi):
    v = args.get(key, default)
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise ToolError('"%s" must be an integer from %d to %d; got %s' % (key, lo, hi, json.dumps(v)))
    return v


# --- serving --------------------------------------------------------------

def _fail(message):
    sys.stderr.write(message.rstrip("\n") + "\n")
    sys.stderr.flush()
    sys.exit(1)


def check_environment(environ):
    """Returns why this process must not serve, or None."""
    if environ.get(MAGIC_COOKIE_KEY) != MAGIC_COOKIE_VALUE:
        return ("This is a ramabana-mcp plugin; it is not meant to be run by hand. "
                "Put it in a --plugins dir or install it with `ramabana-mcp plugin install PATH`. "
                "(%s is missing or wrong.)" % MAGIC_COOKIE_KEY)
    versions = environ.get("PLUGIN_PROTOCOL_VERSIONS", str(APP_PROTOCOL_VERSION))
    if str(APP_PROTOCOL_VERSION) not in [v.strip() for v in versions.split(",")]:
        return ("the host speaks plugin protocol versions %s; this plugin speaks %d"
                % (versions, APP_PROTOCOL_VERSION))
    return None


def _setup_logging():
    level = os.environ.get("RAMABANA_LOG_LEVEL", "info").upper()
    level = {"WARN": "WARNING"}.get(level, level)
    # level=... lets the host pick the level of each line it logs.
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, level, logging.INFO),
                        format="level=%(levelname)s msg=%(message)s")


def serve(plugin):
    """Serves plugin until the host ends it; never returns."""
    why = check_environment(os.environ)
    if why:
        _fail(why)
    _setup_logging()
    try:
        import grpc  # noqa: F401  (imported here so the checks above come first)
        from ramabana.plugin.v1 import plugin_pb2, plugin_pb2_grpc  # noqa: F401
        import health_pb2, health_pb2_grpc, grpc_controller_pb2_grpc  # noqa: F401,E401
    except ImportError as e:
        _fail("cannot load gRPC (%s): install python3-grpcio and python3-protobuf, "
              "and build the plugin with build.sh" % e)
    _Server(plugin).run()


CALL_TOKEN_ENV = "RAMABANA_PLUGIN_TOKEN"
CALL_TOKEN_KEY = "ramabana-plugin-token"


def _token_check_class():
    import grpc
    import hmac

    class TokenCheck(grpc.ServerInterceptor):
        """Refuses, with UNAUTHENTICATED, every RPC without the host's token."""

        def __init__(self, token):
            self.token = token.encode()

            def deny(_request, context):
                context.abort(grpc.StatusCode.UNAUTHENTICATED,
                              "this plugin answers only the host that launched it")
            self.denied = grpc.unary_unary_rpc_method_handler(deny)
            self.denied_stream = grpc.unary_stream_rpc_method_handler(deny)

        def intercept_service(self, continuation, details):
            got = dict(details.invocation_metadata).get(CALL_TOKEN_KEY, "")
            if hmac.compare_digest(got.encode(), self.token):
                return continuation(details)
            handler = continuation(details)
            if handler is not None and handler.response_streaming:
                return self.denied_stream
            return self.denied

    return TokenCheck


def _TokenCheck(token):
    return _token_check_class()(token)


class _Server:
    def __init__(self, plugin):
        self.plugin = plugin
        self.host = None  # HostContext, kept from Describe
        self.stopping = threading.Event()
        self.server = None
        self.socket_dir = None
        self.own_dir = False
        self.socket_path = None

    def run(self):
        import grpc
        from concurrent import futures
        from ramabana.plugin.v1 import plugin_pb2_grpc
        import health_pb2_grpc
        import grpc_controller_pb2_grpc

        self.socket_dir = os.environ.get("PLUGIN_UNIX_SOCKET_DIR")
        if not self.socket_dir:
            self.socket_dir, self.own_dir = tempfile.mkdtemp(prefix="plugin"), True
        fd, self.socket_path = tempfile.mkstemp(prefix="plugin", dir=self.socket_dir)
        os.close(fd)
        os.remove(self.socket_path)

        # Every RPC of the host carries the token it passed us; anything else
        # reaching the socket (a program of the same user) is refused. The
        # variable leaves the environment, so no program we start sees it.
        token = os.environ.pop(CALL_TOKEN_ENV, "")
        interceptors = [_TokenCheck(token)] if token else []
        self.server = grpc.server(
            futures.ThreadPoolExecutor(max_workers=16, thread_name_prefix="grpc"),
            interceptors=interceptors,
            options=[("grpc.max_receive_message_length", MAX_MESSAGE_SIZE),
                     ("grpc.max_send_message_length", MAX_MESSAGE_SIZE)])
        plugin_pb2_grpc.add_ToolGroupServiceServicer_to_server(_ToolGroup(self), self.server)
        health_pb2_grpc.add_HealthServicer_to_server(_Health(self), self.server)
        grpc_controller_pb2_grpc.add_GRPCControllerServicer_to_server(_Controller(self), self.server)
        try:
            bound = self.server.add_insecure_port("unix:" + self.socket_path)
        except RuntimeError as e:
            bound, err = 0, e
        else:
            err = "bind failed"
        if not bound:
            _fail("listen on unix socket %s: %s" % (self.socket_path, err))
        self.server.start()

        # The handshake: the one line the host reads from stdout.
        sys.stdout.write("%d|%d|unix|%s|grpc|\n" % (
            CORE_PROTOCOL_VERSION, APP_PROTOCOL_VERSION, self.socket_path))
        sys.stdout.flush()
        sys.stdout = sys.stderr  # stray prints must not reach the host's stdout pipe

        # A signal handler only notes the signal; the main thread acts on it
        # below. Python runs a handler in the main thread between two of its
        # steps, possibly while that thread holds a lock: a handler that
        # stopped the server itself took locks (an Event's, logging's, the
        # server's) and, when a second signal came during the first one's
        # handler, waited for ever on a lock its own thread held: the plugin
        # outlived its host.
        self.signalled = None
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, self._note_signal)
        threading.Thread(target=self._watch_lifeline, name="lifeline", daemon=True).start()
        threading.Thread(target=self._watch_parent, args=(os.getppid(),), name="parent", daemon=True).start()
        log.debug("serving %s on %s", self.plugin.name, self.socket_path)

        # True while the wait times out: the server still serves.
        while self.server.wait_for_termination(timeout=0.25):
            if self.signalled is not None:
                self.stop("signal %d" % self.signalled)
        self._cleanup()
        try:
            logging.shutdown()
            sys.stderr.flush()
        except (OSError, ValueError):
            pass  # the host that read our stderr may be gone: exit all the same
        # Exit now: a handler thread still running must not hold the process.
        os._exit(0)

    def _note_signal(self, signum, _frame):
        self.signalled = signum  # nothing more: see serve

    def stop(self, reason, grace=1.0):
        """Stops the server, letting calls in flight finish for grace
        seconds; the main thread then exits."""
        if self.stopping.is_set():
            return
        self.stopping.set()
        log.debug("stopping: %s", reason)
        self.server.stop(grace)

    def _watch_lifeline(self):
        # Stdin is a pipe the host never writes to: EOF means the host is
        # gone, however it went. A terminal or /dev/null stdin says nothing.
        try:
            if not stat.S_ISFIFO(os.fstat(sys.stdin.fileno()).st_mode):
                return
            while sys.stdin.buffer.read(65536):
                pass
        except (OSError, ValueError):
            pass
        self.stop("the host closed the lifeline (stdin EOF)", grace=0)

    def _watch_parent(self, ppid):
        while not self.stopping.wait(0.5):
            if os.getppid() != ppid:
                self.stop("the host went away (re-parented)", grace=0)

    def _cleanup(self):
        try:
            os.remove(self.socket_path)
        except OSError:
            pass
        if self.own_dir:
            try:
                os.rmdir(self.socket_dir)
            except OSError:
                pass


class _Health:
    """grpc.health.v1.Health: the plugin is SERVING while it serves."""

    def __init__(self, srv):
        self.srv = srv

    def _status(self, request, context):
        import grpc
        import health_pb2
        if request.service not in ("", HEALTH_SERVICE):
            context.abort(grpc.StatusCode.NOT_FOUND, "unknown service %r" % request.service)
        return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)

    def Check(self, request, context):
        return self._status(request, context)

    def Watch(self, request, context):
        yield self._status(request, context)
        while context.is_active() and not self.srv.stopping.wait(1.0):
            pass


class _Controller:
    """plugin.GRPCController: go-plugin's host calls Shutdown when it stops
    the plugin. The answer goes out first; the server stops just after."""

    def __init__(self, srv):
        self.srv = srv

    def Shutdown(self, request, context):
        import grpc_controller_pb2
        threading.Thread(target=self.srv.stop, args=("Shutdown from the host",), daemon=True).start()
        return grpc_controller_pb2.Empty()


class _ToolGroup:
    """ramabana.plugin.v1.ToolGroupService over the Plugin's tools."""

    def __init__(self, srv):
        self.srv = srv

    def Describe(self, request, context):
        from ramabana.plugin.v1 import plugin_pb2 as pb
        self.srv.host = request.host
        log.debug("described to host %s, roots %s", request.host.host_version, list(request.host.roots))
        p = self.srv.plugin
        specs = []
        for t in p.tools.values():
            spec = pb.ToolSpec(
                name=t.name, title=t.title, description=t.description,
                input_schema=json.dumps(t.input_schema).encode(),
                kind=pb.ToolKind.Value(t.kind), task=pb.ToolTask.Value(t.task))
            if t.output_schema is not None:
                spec.output_schema = json.dumps(t.output_schema).encode()
            specs.append(spec)
        group = pb.Group(name=p.name, description=p.description,
                         mode=pb.GROUP_MODE_DEFAULT, tools=specs)
        return pb.DescribeResponse(name=p.name, version=p.version,
                                   description=p.description, groups=[group])

    def Call(self, request, context):
        import grpc
        from ramabana.plugin.v1 import plugin_pb2 as pb
        tool = self.srv.plugin.tools.get(request.tool)
        if tool is None:
            context.abort(grpc.StatusCode.NOT_FOUND, "unknown tool %r" % request.tool)

        # The handler runs in its own thread so its progress and log events
        # reach the host while it works; this generator streams them.
        events = queue.Queue()
        cancelled = threading.Event()
        context.add_callback(cancelled.set)
        call = Call(request.call_id, self.srv.host, events.put, cancelled)
        threading.Thread(target=self._run, args=(tool, request, call, events),
                         name="call-" + tool.name, daemon=True).start()
        while True:
            try:
                ev = events.get(timeout=0.5)
            except queue.Empty:
                if not context.is_active():
                    return
                continue
            if ev[0] == "progress":
                yield pb.CallResponse(progress=pb.Progress(progress=ev[1], total=ev[2], message=ev[3]))
            elif ev[0] == "log":
                level = pb.LogLevel.Value("LOG_LEVEL_" + ev[1].upper())
                yield pb.CallResponse(log=pb.Log(level=level, message=ev[2]))
            elif ev[0] == "fault":
                context.abort(grpc.StatusCode.INTERNAL, ev[1])
            else:
                res = ev[1]
                out = pb.Result(content=[pb.Content(text=res.text)], is_error=res.is_error)
                if res.structured is not None:
                    out.structured = json.dumps(res.structured).encode()
                yield pb.CallResponse(result=out)
                return

    @staticmethod
    def _run(tool, request, call, events):
        start = time.monotonic()
        try:
            try:
                args = json.loads(request.arguments or b"{}")
            except ValueError as e:
                raise ToolError("arguments are not valid JSON: %s" % e)
            if not isinstance(args, dict):
                raise ToolError("arguments must be a JSON object; got %s" % _type_name(args))
            res = tool.handler(args, call)
            if isinstance(res, str):
                res = Result(res)
        except ToolError as e:
            res = Result(str(e), is_error=True)
        except Exception as e:  # a fault in the plugin, not the model's doing
            log.exception("tool %s failed", tool.name)
            events.put(("fault", "%s: %s: %s" % (tool.name, type(e).__name__, e)))
            return
        log.debug("call %s %s done in %.3fs (error %s)", call.id, tool.name,
                  time.monotonic() - start, res.is_error)
        events.put(("result", res))
