"""Serving a Toolbox as a ramabana-mcp plugin process: serve(box).

serve does everything docs/plugin-protocol.md asks of a plugin, in order:

1. Environment. Unless RAMABANA_PLUGIN_MAGIC_COOKIE holds the host's cookie
   (the file was run by hand), or PLUGIN_PROTOCOL_VERSIONS lacks 1, it says
   why on stderr and exits 1. RAMABANA_PLUGIN_TOKEN is read and removed
   from the environment before any tool can start a program, and the
   process is made non-dumpable, so that programs of the same user cannot
   read it from /proc.
2. Handshake. It listens on a Unix socket in PLUGIN_UNIX_SOCKET_DIR and
   prints the one line `1|1|unix|<socket>|grpc|` on stdout. From the start
   of serve, stdout (the file descriptor and sys.stdout) goes to stderr:
   nothing else ever reaches the host's stdout pipe.
3. Services: ramabana.plugin.v1.ToolGroupService (Describe, Call),
   grpc.health.v1.Health (SERVING for "plugin" and "") and
   plugin.GRPCController/Shutdown, with 256 MiB message limits both ways.
   With a token, every RPC must carry it as the metadata
   ramabana-plugin-token (compared in constant time); any other is
   UNAUTHENTICATED.
4. Calls. Each runs in its own thread; progress and logs stream while it
   runs. A ToolError is an error Result; any other exception is gRPC
   INTERNAL, its traceback logged; an unknown tool is NOT_FOUND. Cancelling
   the stream cancels the Call.
5. Lifetime. It exits (status 0, socket removed, at_exit hooks run) when
   stdin, the host's lifeline pipe, reaches EOF, on SIGTERM, SIGINT or
   SIGHUP, when re-parented (the host died), and after answering Shutdown.
6. Logs go to stderr, one line each, `level=INFO msg=...`, at the level of
   RAMABANA_LOG_LEVEL (DEBUG, INFO, WARN or ERROR; any case). The root
   logger is set up so, unless the plugin set up its own.
"""

import hmac
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
import traceback

from .results import Host, Image, Resource, Text
from .toolbox import Cancelled, Events, UnknownTool

MAGIC_COOKIE_KEY = "RAMABANA_PLUGIN_MAGIC_COOKIE"
MAGIC_COOKIE_VALUE = "c2f6e5b4a1d94e0f9c7b3a8d6e2f1c0a"
TOKEN_ENV = "RAMABANA_PLUGIN_TOKEN"
TOKEN_METADATA = "ramabana-plugin-token"
LOG_LEVEL_ENV = "RAMABANA_LOG_LEVEL"
CORE_PROTOCOL_VERSION = 1
APP_PROTOCOL_VERSION = 1
MAX_MESSAGE_SIZE = 256 << 20
HEALTH_NAMES = ("", "plugin")
INTERNAL_PREFIXES = ("PLUGIN_", "RAMABANA_PLUGIN_")

log = logging.getLogger("ramabana_plugin")

_exit_lock = threading.Lock()
_exit_hooks = []


def at_exit(fn):
    """Registers fn() to run when the plugin exits because the host ended
    it (lifeline, signal, Shutdown): for work started outside the plugin's
    process group, such as a command's, which would otherwise outlive it.
    Hooks run once, newest first, and must be quick."""
    with _exit_lock:
        _exit_hooks.append(fn)
    return fn


def _run_exit_hooks():
    with _exit_lock:
        hooks = list(reversed(_exit_hooks))
        del _exit_hooks[:]
    for fn in hooks:
        try:
            fn()
        except Exception:
            log.exception("an at_exit hook failed")


def child_env(environ=None):
    """The environment for a program a tool starts: the plugin's own (which
    the host already cut down to its allow-list) less the variables meant
    for the plugin process itself (PLUGIN_*, RAMABANA_PLUGIN_*). A fresh
    dict."""
    environ = os.environ if environ is None else environ
    return {k: v for k, v in environ.items() if not k.startswith(INTERNAL_PREFIXES)}


def check_environment(environ):
    """Why this process must not serve, or None."""
    if environ.get(MAGIC_COOKIE_KEY) != MAGIC_COOKIE_VALUE:
        return ("This is a ramabana-mcp plugin; it is not meant to be run by hand. "
                "Put it in a --plugins dir or install it with `ramabana-mcp plugin install PATH`. "
                "(%s is missing or wrong.)" % MAGIC_COOKIE_KEY)
    versions = environ.get("PLUGIN_PROTOCOL_VERSIONS", str(APP_PROTOCOL_VERSION))
    if str(APP_PROTOCOL_VERSION) not in [v.strip() for v in versions.split(",")]:
        return ("the host speaks plugin protocol versions %s; this plugin speaks %d"
                % (versions, APP_PROTOCOL_VERSION))
    return None


# --- logs --------------------------------------------------------------------

_LEVEL_WORDS = {logging.DEBUG: "DEBUG", logging.INFO: "INFO", logging.WARNING: "WARN",
                logging.ERROR: "ERROR", logging.CRITICAL: "ERROR"}


def _logfmt(value):
    """A logfmt value: bare when it has no space, quote, '=' or control
    character; else quoted, escapes and all, so a message stays one line."""
    if value and not any(c in value for c in ' "=\\') and value.isprintable():
        return value
    return json.dumps(value, ensure_ascii=False)


class LogFormatter(logging.Formatter):
    """`level=INFO msg=...` lines, as Go's slog writes them and the host
    reads them; a traceback is part of the one line (escaped)."""

    def format(self, record):
        """One line for record, its traceback included."""
        msg = record.getMessage()
        if record.exc_info:
            msg += "\n" + self.formatException(record.exc_info)
        level = _LEVEL_WORDS.get(record.levelno) or ("DEBUG" if record.levelno < logging.INFO else "ERROR")
        line = "level=%s msg=%s" % (level, _logfmt(msg))
        if record.name not in ("root", "ramabana_plugin"):
            line += " logger=%s" % _logfmt(record.name)
        return line


def log_level(environ=None):
    """The logging level RAMABANA_LOG_LEVEL names (DEBUG, INFO, WARN or
    ERROR, any case); INFO when unset or unknown."""
    environ = os.environ if environ is None else environ
    word = environ.get(LOG_LEVEL_ENV, "").strip().upper()
    return {"DEBUG": logging.DEBUG, "INFO": logging.INFO, "WARN": logging.WARNING,
            "WARNING": logging.WARNING, "ERROR": logging.ERROR}.get(word, logging.INFO)


def setup_logging(stream=None, environ=None):
    """Sends the root logger to stream (stderr) in the host's format, at
    the host's level, unless it has handlers already."""
    root = logging.getLogger()
    level = log_level(environ)
    if not root.handlers:
        h = logging.StreamHandler(stream or sys.stderr)
        h.setFormatter(LogFormatter())
        root.addHandler(h)
    root.setLevel(level)


# --- wire conversions ----------------------------------------------------------

def _json_bytes(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def host_from_proto(h):
    """The Host of a HostContext message."""
    return Host(roots=tuple(h.roots), read_outside=h.read_outside, web=h.web, write=h.write,
                commands=h.commands, no_sandbox=h.no_sandbox, config_dir=h.config_dir,
                host_version=h.host_version)


def host_to_proto(host):
    """The HostContext message of a Host."""
    from . import _wire as W
    return W.HostContext(roots=list(host.roots), read_outside=host.read_outside, web=host.web, write=host.write,
                         commands=host.commands, no_sandbox=host.no_sandbox, config_dir=host.config_dir,
                         host_version=host.host_version)


def description_to_proto(d):
    """The DescribeResponse of a Toolbox.describe() description."""
    from . import _wire as W
    resp = W.DescribeResponse(name=d["name"], version=d["version"], description=d["description"])
    for g in d["groups"]:
        pg = resp.groups.add(name=g["name"], description=g["description"], mode=W.group_mode_number(g["mode"]),
                             replaced_by=g["replaced_by"])
        for s in g["tools"]:
            pt = pg.tools.add(name=s.name, title=s.title, description=s.description,
                              input_schema=_json_bytes(s.input_schema), kind=W.kind_number(s.kind),
                              task=W.task_number(s.task), as_user_message=s.as_user_message)
            if s.output_schema is not None:
                pt.output_schema = _json_bytes(s.output_schema)
            if s.mode:
                pt.mode = W.skill_mode_number(s.mode)
            pt.annotations.SetInParent()
            for field in ("read_only", "destructive", "idempotent", "open_world"):
                v = getattr(s.annotations, field)
                if v is not None:
                    setattr(pt.annotations, field, bool(v))
    return resp


def result_to_proto(r):
    """The Result message of a Result."""
    from . import _wire as W
    out = W.Result(is_error=bool(r.is_error))
    for c in r.content:
        if isinstance(c, str):
            c = Text(c)
        if isinstance(c, Text):
            out.content.add(text=c.text)
        elif isinstance(c, Image):
            out.content.add(image=W.Image(data=bytes(c.data), mime_type=c.mime_type))
        elif isinstance(c, Resource):
            out.content.add(resource=W.EmbeddedResource(uri=c.uri, mime_type=c.mime_type, text=c.text,
                                                        blob=bytes(c.blob)))
        else:
            raise TypeError("content %r is not Text, Image or Resource" % (c,))
    if r.structured is not None:
        out.structured = _json_bytes(r.structured)
    for ch in r.changes:
        out.changes.add(path=ch.path, before_sha256=ch.before_sha256, after_sha256=ch.after_sha256,
                        before=ch.before, after=ch.after)
    return out


# --- the gRPC server -----------------------------------------------------------

class _QueueEvents(Events):
    """A call's events, queued for the stream; none after the result."""

    def __init__(self, q):
        self.q = q
        self.done = False

    def progress(self, progress, total, message):
        if not self.done:
            self.q.put(("progress", progress, total, message))

    def log(self, level, message):
        if not self.done:
            self.q.put(("log", level, message))


class PluginServer:
    """The gRPC server of a plugin: the three services over box, on a Unix
    socket at socket_path, demanding token when given. serve() runs one
    for the process; ramabana_plugin.testing runs one in-process."""

    def __init__(self, box, socket_path, token="", max_workers=64):
        import grpc
        from concurrent import futures
        from . import _wire as W
        self.box = box
        self.socket_path = socket_path
        self.stopping = threading.Event()
        self.stopped = threading.Event()
        self._grpc = grpc
        self._W = W
        interceptors = [_token_check(grpc, token)] if token else []
        self.server = grpc.server(
            futures.ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="ramabana-grpc"),
            interceptors=interceptors,
            options=[("grpc.max_receive_message_length", MAX_MESSAGE_SIZE),
                     ("grpc.max_send_message_length", MAX_MESSAGE_SIZE)])
        self.server.add_generic_rpc_handlers([
            self._service(W.TOOL_GROUP_SERVICE, {"Describe": self._describe, "Call": self._call}),
            self._service(W.HEALTH_SERVICE, {"Check": self._check, "List": self._list, "Watch": self._watch}),
            self._service(W.CONTROLLER_SERVICE, {"Shutdown": self._shutdown}),
        ])
        try:
            bound = self.server.add_insecure_port("unix:" + socket_path)
        except RuntimeError as e:
            raise OSError("listen on unix socket %s: %s" % (socket_path, e)) from None
        if not bound:
            raise OSError("listen on unix socket %s: bind failed" % socket_path)

    def _service(self, name, impls):
        grpc, W = self._grpc, self._W
        handlers = {}
        for method, (req, resp, streaming) in W.methods(name).items():
            fn = impls.get(method)
            if fn is None:
                continue
            make = grpc.unary_stream_rpc_method_handler if streaming else grpc.unary_unary_rpc_method_handler
            handlers[method] = make(fn, request_deserializer=req.FromString, response_serializer=resp.SerializeToString)
        return grpc.method_handlers_generic_handler(name, handlers)

    def start(self):
        """Starts serving (in gRPC's threads)."""
        self.server.start()

    def stop(self, reason, grace=1.0):
        """Stops serving, letting calls in flight finish for grace seconds;
        stopped is set once the server is down."""
        if self.stopping.is_set():
            return
        self.stopping.set()
        log.debug("stopping: %s", reason)
        done = self.server.stop(grace)

        def wait():
            done.wait()
            self.stopped.set()
        threading.Thread(target=wait, name="ramabana-stop", daemon=True).start()

    # -- ToolGroupService ---------------------------------------------------
    def _describe(self, request, context):
        host = host_from_proto(request.host)
        try:
            d = self.box.describe(host)
        except Exception as e:
            log.exception("describe failed")
            context.abort(self._grpc.StatusCode.FAILED_PRECONDITION, "describe: %s" % e)
        log.debug("described to host %s, roots %s", host.host_version or "(no version)", list(host.roots))
        return description_to_proto(d)

    def _call(self, request, context):
        grpc, W = self._grpc, self._W
        if not self.box.has_tool(request.tool):
            context.abort(grpc.StatusCode.NOT_FOUND, str(UnknownTool(request.tool)))
        q = queue.Queue()
        events = _QueueEvents(q)
        call = self.box.new_call(request.tool, request.call_id, events)
        context.add_callback(call.cancel)
        threading.Thread(target=self._run, args=(request, call, events, q),
                         name="ramabana-call-" + request.tool, daemon=True).start()
        while True:
            try:
                ev = q.get(timeout=0.5)
            except queue.Empty:
                if not context.is_active():
                    return
                continue
            kind = ev[0]
            if kind == "progress":
                yield W.CallResponse(progress=W.Progress(progress=ev[1], total=ev[2], message=ev[3]))
            elif kind == "log":
                yield W.CallResponse(log=W.Log(level=W.log_level_number(ev[1]), message=ev[2]))
            elif kind == "result":
                yield W.CallResponse(result=ev[1])
                return
            elif kind == "cancelled":
                context.abort(grpc.StatusCode.CANCELLED, ev[1])
            else:
                context.abort(grpc.StatusCode.INTERNAL, ev[1])

    def _run(self, request, call, events, q):
        start = time.monotonic()
        tool = request.tool
        try:
            res = self.box.call(tool, bytes(request.arguments), call)
            msg = result_to_proto(res)
        except Cancelled as e:
            events.done = True
            if call.cancelled:
                log.debug("call %s of %s ended: cancelled", request.call_id, tool)
                q.put(("cancelled", str(e)))
                return
            log.error("tool %s failed: %s", tool, e, exc_info=True)
            q.put(("fault", "tool %s failed: %s" % (tool, e)))
            return
        except Exception as e:  # a fault of the plugin, not the model's doing
            events.done = True
            log.error("tool %s failed (call %s)", tool, request.call_id or "-", exc_info=True)
            q.put(("fault", "tool %s failed: %s" % (tool, "".join(traceback.format_exception_only(type(e), e)).strip())))
            return
        events.done = True
        log.debug("call %s of %s done in %.3fs (error %s)", request.call_id or "-", tool,
                  time.monotonic() - start, msg.is_error)
        q.put(("result", msg))

    # -- Health --------------------------------------------------------------
    def _check(self, request, context):
        if request.service not in HEALTH_NAMES:
            context.abort(self._grpc.StatusCode.NOT_FOUND, "unknown service %s" % json.dumps(request.service))
        return self._W.HealthCheckResponse(status=self._W.SERVING)

    def _list(self, request, context):
        resp = self._W.HealthListResponse()
        for name in HEALTH_NAMES:
            resp.statuses[name].status = self._W.SERVING
        return resp

    def _watch(self, request, context):
        W = self._W
        status = W.SERVING if request.service in HEALTH_NAMES else W.SERVICE_UNKNOWN
        yield W.HealthCheckResponse(status=status)
        while context.is_active() and not self.stopping.wait(1.0):
            pass

    # -- GRPCController --------------------------------------------------------
    def _shutdown(self, request, context):
        # The answer goes out first; the server stops just after.
        threading.Timer(0.05, self.stop, args=("Shutdown from the host", 0.2)).start()
        return self._W.Empty()


def _token_check(grpc, token):
    """An interceptor refusing, with UNAUTHENTICATED, every RPC whose
    metadata lacks the token."""
    want = token.encode("utf-8")

    def deny(request, context):
        context.abort(grpc.StatusCode.UNAUTHENTICATED, "this plugin answers only the host that launched it")

    denied = grpc.unary_unary_rpc_method_handler(deny)
    denied_stream = grpc.unary_stream_rpc_method_handler(deny)

    class TokenCheck(grpc.ServerInterceptor):
        def intercept_service(self, continuation, details):
            got = ""
            for key, value in details.invocation_metadata or ():
                if key == TOKEN_METADATA:
                    got = value
            got = got.encode("utf-8") if isinstance(got, str) else bytes(got)
            if hmac.compare_digest(got, want):
                return continuation(details)
            handler = continuation(details)
            if handler is not None and handler.response_streaming:
                return denied_stream
            return denied

    return TokenCheck()


# --- the process -----------------------------------------------------------------

def _fail(message):
    sys.stderr.write(message.rstrip("\n") + "\n")
    sys.stderr.flush()
    os._exit(1)


def non_dumpable():
    """Makes this process non-dumpable (prctl PR_SET_DUMPABLE 0), so that a
    program of the same user cannot read its memory or environment; an
    OSError where it cannot."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))


def serve(box):
    """Serves box (a Toolbox) as a ramabana-mcp plugin until the host ends
    it, then exits the process; never returns. Call it last, from the main
    thread: if __name__ == "__main__": serve(box)."""
    why = check_environment(os.environ)
    if why:
        _fail(why)
    from .toolbox import Toolbox
    if not isinstance(box, Toolbox):
        _fail("serve takes a ramabana_plugin.Toolbox, not %s" % type(box).__name__)
    if not box.tools():
        _fail("plugin %s declares no tools: declare them with @box.tool(kind=...) before serve(box)" % box.name)
    # The parent now, before the handshake: a host that dies once it has
    # read the handshake must not be taken for the parent to watch.
    ppid = os.getppid()
    token = os.environ.pop(TOKEN_ENV, "")
    # Stdout is the host's handshake pipe: keep it for the one line, and
    # point file descriptor 1 (and sys.stdout) at stderr for everything else.
    sys.stdout.flush()
    handshake = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    setup_logging(sys.stderr)
    try:
        non_dumpable()
    except (OSError, AttributeError) as e:
        log.warning("plugin stays dumpable: commands of the same user can read its memory (%s)", e)
    try:
        import grpc  # noqa: F401
        import google.protobuf  # noqa: F401
    except ImportError as e:
        _fail("cannot load gRPC (%s): install grpcio and protobuf for %s "
              "(Debian: apt-get install python3-grpcio python3-protobuf)" % (e, sys.executable))
    if not token:
        log.debug("no %s in the environment: RPCs are not checked for a token", TOKEN_ENV)

    socket_dir = os.environ.get("PLUGIN_UNIX_SOCKET_DIR") or ""
    own_dir = not socket_dir
    if own_dir:
        socket_dir = tempfile.mkdtemp(prefix="ramabana-plugin-")
    socket_path = os.path.join(socket_dir, "plugin-%d-%s.sock" % (os.getpid(), os.urandom(4).hex()))
    try:
        srv = PluginServer(box, socket_path, token)
        srv.start()
    except Exception as e:
        _fail("plugin %s cannot serve: %s" % (box.name, e))

    handshake.write("%d|%d|unix|%s|grpc|\n" % (CORE_PROTOCOL_VERSION, APP_PROTOCOL_VERSION, socket_path))
    handshake.flush()
    handshake.close()

    # A signal handler only notes the signal; the main loop acts on it. A
    # handler that stopped the server itself would take locks its own
    # thread may hold (a second signal during the first one's handling).
    signalled = []
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda signum, frame: signalled.append(signum))
    threading.Thread(target=_watch_lifeline, args=(srv,), name="ramabana-lifeline", daemon=True).start()
    threading.Thread(target=_watch_parent, args=(srv, ppid), name="ramabana-parent", daemon=True).start()
    log.debug("serving %s on %s", box.name, socket_path)

    while not srv.stopped.wait(0.2):
        if signalled and not srv.stopping.is_set():
            srv.stop("signal %d" % signalled[0], grace=0)
    try:
        os.remove(socket_path)
    except OSError:
        pass
    if own_dir:
        try:
            os.rmdir(socket_dir)
        except OSError:
            pass
    _run_exit_hooks()
    try:
        logging.shutdown()
        sys.stderr.flush()
    except (OSError, ValueError):
        pass  # the host reading our stderr may be gone: exit all the same
    # Exit now: a handler thread still running must not hold the process.
    os._exit(0)


def _watch_lifeline(srv):
    """Stdin is a pipe the host never writes to: EOF means the host is
    gone, however it went. A terminal or /dev/null stdin says nothing."""
    try:
        fd = sys.stdin.fileno()
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return
        while os.read(fd, 65536):
            pass
    except (OSError, ValueError, AttributeError):
        pass
    srv.stop("the host closed the lifeline (stdin EOF)", grace=0)


def _watch_parent(srv, ppid):
    while not srv.stopping.wait(0.5):
        if os.getppid() != ppid:
            srv.stop("the host went away (re-parented)", grace=0)
