// The gRPC server of a plugin: the three services over a Toolbox, with the
// call token demanded on every RPC and the contract's message limits.
// serve() serves it on the plugin's socket; the test harness in-process.

import * as grpc from "@grpc/grpc-js";
import { createHash, timingSafeEqual } from "node:crypto";
import { log } from "./log.js";
import { Toolbox, UnknownToolError } from "./toolbox.js";
import { errorResult } from "./result.js";
import {
  channelOptions,
  controllerService,
  descriptionToWire,
  eventToWire,
  healthService,
  hostFromWire,
  resultToWire,
  TOKEN_KEY,
  toolGroupService,
  type WireCallResponse,
  type WireHostContext,
} from "./wire.js";

/** How a plugin's server is made. */
export interface ServerOptions {
  /** The call token every RPC must carry as the metadata ramabana-plugin-token; none checks nothing. */
  token?: string;
  /** Called after Shutdown is answered: serve() stops the server and exits. */
  onShutdown?: () => void;
}

/** The service the health checks answer SERVING for, besides "" (the server). */
const HEALTH_SERVICE = "plugin";

/**
 * createServer makes the gRPC server that serves box: the
 * ToolGroupService, grpc.health.v1.Health (SERVING for "plugin" and "")
 * and plugin.GRPCController (Shutdown), with 256 MiB message limits both
 * ways. With a token, every RPC without it (or with another) is refused
 * with UNAUTHENTICATED, compared in constant time. Bind it and it serves.
 */
export function createServer(box: Toolbox, opts: ServerOptions = {}): grpc.Server {
  const server = new grpc.Server(channelOptions);
  const guard = tokenGuard(opts.token);
  server.addService(toolGroupService, {
    Describe: guard.unary(describe(box)),
    Call: guard.stream(callTool(box)),
  });
  server.addService(healthService, {
    Check: guard.unary((call, done) => {
      const svc = (call.request as { service: string }).service;
      if (svc !== "" && svc !== HEALTH_SERVICE) done({ code: grpc.status.NOT_FOUND, details: `unknown service ${JSON.stringify(svc)}` });
      else done(null, { status: "SERVING" });
    }),
    List: guard.unary((_call, done) => {
      done(null, { statuses: { "": { status: "SERVING" }, [HEALTH_SERVICE]: { status: "SERVING" } } });
    }),
    Watch: guard.stream((call) => {
      const svc = (call.request as { service: string }).service;
      // The status never changes while the server serves: said once, the
      // stream stays open until the client or the server ends it.
      call.write({ status: svc === "" || svc === HEALTH_SERVICE ? "SERVING" : "SERVICE_UNKNOWN" });
    }),
  });
  server.addService(controllerService, {
    Shutdown: guard.unary((_call, done) => {
      done(null, {});
      if (opts.onShutdown) setImmediate(opts.onShutdown);
    }),
  });
  return server;
}

type Unary = (call: grpc.ServerUnaryCall<unknown, unknown>, done: grpc.sendUnaryData<unknown>) => void;
type Stream = (call: grpc.ServerWritableStream<unknown, unknown>) => void;

/** tokenGuard wraps handlers so that they run only for an RPC carrying token. */
function tokenGuard(token: string | undefined) {
  const want = token ? digest(token) : undefined;
  const ok = (md: grpc.Metadata): boolean => {
    if (!want) return true;
    return md.get(TOKEN_KEY).some((v) => timingSafeEqual(digest(String(v)), want));
  };
  const refusal = { code: grpc.status.UNAUTHENTICATED, details: "this plugin answers only the host that launched it" };
  return {
    unary: (h: Unary): Unary => (call, done) => (ok(call.metadata) ? h(call, done) : done(refusal)),
    stream: (h: Stream): Stream => (call) => (ok(call.metadata) ? h(call) : call.emit("error", refusal)),
  };
}

/** digest makes two tokens of any lengths comparable in constant time. */
function digest(s: string): Buffer {
  return createHash("sha256").update(s).digest();
}

function describe(box: Toolbox): Unary {
  return (call, done) => {
    const host = hostFromWire((call.request as { host?: WireHostContext }).host);
    box.describe(host).then(
      (d) => {
        log.debug("described", { host_version: host.hostVersion, roots: host.roots });
        done(null, descriptionToWire(d));
      },
      (e: unknown) => done({ code: grpc.status.FAILED_PRECONDITION, details: `describe: ${(e as Error)?.message ?? e}` }),
    );
  };
}

/**
 * callTool runs one Call: events stream while the handler runs, then the
 * one result; a cancelled stream aborts the call's signal. An unknown tool
 * is NOT_FOUND; a handler's exception (not a ToolError) is INTERNAL, its
 * stack logged.
 */
function callTool(box: Toolbox): Stream {
  return (stream) => {
    const req = stream.request as { tool: string; arguments: Buffer; call_id: string };
    const ac = new AbortController();
    stream.on("cancelled", () => ac.abort(new Error("the host cancelled the call")));
    let done = false;
    const send = (m: WireCallResponse) => {
      if (!done && !stream.cancelled) stream.write(m);
    };
    const started = Date.now();
    const run = async () => {
      let args: unknown = {};
      const text = req.arguments?.toString("utf8").trim() ?? "";
      if (text !== "") {
        try {
          args = JSON.parse(text) ?? {};
        } catch (e) {
          return errorResult(`arguments are not valid JSON: ${(e as Error).message}`);
        }
      }
      return box.call(req.tool, args, { id: req.call_id, signal: ac.signal, emit: (ev) => send(eventToWire(ev)) });
    };
    run()
      .then((res) => {
        const msg = resultToWire(res);
        log.debug("call done", { tool: req.tool, call: req.call_id, ms: Date.now() - started, error: Boolean(res.isError) });
        send(msg);
        done = true;
        if (!stream.cancelled) stream.end();
      })
      .catch((e: unknown) => {
        done = true;
        if (stream.cancelled) return;
        if (e instanceof UnknownToolError) {
          stream.emit("error", { code: grpc.status.NOT_FOUND, details: e.message });
          return;
        }
        log.error("tool failed", { tool: req.tool, call: req.call_id, error: e });
        const why = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
        stream.emit("error", { code: grpc.status.INTERNAL, details: `tool ${req.tool}: ${why}` });
      });
  };
}
