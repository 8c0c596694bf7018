// The test harness (sdk/sdktest in the Go module): a plugin's toolbox served
// on a real gRPC connection, in-process (connect) or as the built plugin
// started as the host starts it (launch), described with a given host
// context and checked by the host's own rules, then called as the host calls
// it. For authors' tests: import it from the kit's testing.js, not index.js.

import * as grpc from "@grpc/grpc-js";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { CallEvent } from "./call.js";
import { resultText, type Result } from "./result.js";
import { createServer } from "./service.js";
import type { Toolbox } from "./toolbox.js";
import { hostContext, type Description, type HostContext } from "./types.js";
import { descriptionError, taskError } from "./validate.js";
import {
  channelOptions,
  controllerService,
  COOKIE_KEY,
  COOKIE_VALUE,
  descriptionFromWire,
  eventFromWire,
  healthService,
  hostToWire,
  resultFromWire,
  TOKEN_ENV,
  TOKEN_KEY,
  toolGroupService,
  type WireCallResponse,
  type WireDescription,
} from "./wire.js";

/** What a call answered, and what it streamed before. */
export interface CallOutcome {
  result: Result;
  /** The result's text blocks, joined with newlines. */
  text: string;
  progress: { progress: number; total: number; message: string }[];
  logs: { level: string; message: string }[];
}

/** Options of one call. */
export interface CallOptions {
  /** Cancels the call (the gRPC stream), as the host does when its client cancels. */
  signal?: AbortSignal;
  /** The call id; "test-N" by default. */
  id?: string;
  /** Called with each event as it arrives, before the result. */
  onEvent?: (event: CallEvent) => void;
}

/**
 * GrpcError is a call's failure as a gRPC status: the host gets NOT_FOUND
 * for an unknown tool, INTERNAL for a handler's fault, UNAUTHENTICATED for
 * an RPC without the token.
 */
export class GrpcError extends Error {
  /** The gRPC status code (grpc.status), and its name. */
  readonly code: number;
  readonly codeName: string;
  constructor(code: number, details: string) {
    const codeName = grpc.status[code] ?? String(code);
    super(`${codeName}: ${details}`);
    this.name = "GrpcError";
    this.code = code;
    this.codeName = codeName;
  }
}

function grpcError(e: grpc.ServiceError): GrpcError {
  return new GrpcError(e.code, e.details);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyClient = grpc.Client & Record<string, any>;

/**
 * PluginClient is the host's side of one plugin connection: made by connect
 * or launch, already described and checked. Close it when done.
 */
export class PluginClient {
  /** What the plugin described, as the host read it. */
  description!: Description;
  readonly #address: string;
  readonly #token: string;
  readonly #tools: AnyClient;
  readonly #health: AnyClient;
  readonly #controller: AnyClient;
  readonly #cleanup: () => Promise<void>;
  #calls = 0;

  /** Made by connect and launch. */
  constructor(address: string, token: string, cleanup: () => Promise<void>) {
    this.#address = address;
    this.#token = token;
    this.#tools = this.#client(toolGroupService, "ToolGroupService");
    this.#health = this.#client(healthService, "Health");
    this.#controller = this.#client(controllerService, "GRPCController");
    this.#cleanup = cleanup;
  }

  #client(def: grpc.ServiceDefinition, name: string): AnyClient {
    const Ctor = grpc.makeClientConstructor(def, name);
    return new Ctor(this.#address, grpc.credentials.createInsecure(), channelOptions) as AnyClient;
  }

  #metadata(token: string | null = this.#token): grpc.Metadata {
    const md = new grpc.Metadata();
    if (token !== null) md.set(TOKEN_KEY, token);
    return md;
  }

  #unary<T>(client: AnyClient, method: string, req: unknown, token?: string | null): Promise<T> {
    return new Promise((resolve, reject) => {
      client[method](req, this.#metadata(token), (err: grpc.ServiceError | null, res: T) => (err ? reject(grpcError(err)) : resolve(res)));
    });
  }

  /**
   * describe sends Describe with host (the zero context for the fields it
   * leaves out), checks the answer by the host's rules (the plugin's,
   * group and tool names, kinds, object schemas, tasks), keeps it as
   * description and returns it. It throws saying what the host would refuse.
   */
  async describe(host: Partial<HostContext> = {}): Promise<Description> {
    const wire = await this.#unary<WireDescription>(this.#tools, "Describe", { host: hostToWire(hostContext(host)) });
    const d = descriptionFromWire(wire);
    const bad = descriptionError(d) ?? d.groups.flatMap((g) => g.tools.map(taskError)).find((e) => e !== undefined);
    if (bad) throw new Error(`the host would refuse this plugin: ${bad}`);
    this.description = d;
    return d;
  }

  /**
   * call calls tool with args (JSON-encoded; absent is {}), collecting the
   * events streamed before the result. A tool error is a result with
   * isError; a gRPC failure (unknown tool, a fault, a cancelled call)
   * rejects with a GrpcError.
   */
  call(tool: string, args: unknown = {}, opts: CallOptions = {}): Promise<CallOutcome> {
    const out: Omit<CallOutcome, "result" | "text"> = { progress: [], logs: [] };
    const req = { tool, arguments: Buffer.from(JSON.stringify(args ?? {})), call_id: opts.id ?? `test-${++this.#calls}` };
    return new Promise((resolve, reject) => {
      const stream: grpc.ClientReadableStream<WireCallResponse> = this.#tools.Call(req, this.#metadata());
      let result: Result | undefined;
      const abort = () => stream.cancel();
      if (opts.signal?.aborted) abort();
      opts.signal?.addEventListener("abort", abort, { once: true });
      stream.on("data", (m: WireCallResponse) => {
        if (m.result) {
          if (result) reject(new Error(`${tool}: the plugin sent two results`));
          result = resultFromWire(m.result);
          return;
        }
        const ev = eventFromWire(m);
        if (!ev) return;
        if (result) return reject(new Error(`${tool}: the plugin sent an event after the result`));
        if (ev.type === "progress") out.progress.push({ progress: ev.progress, total: ev.total, message: ev.message });
        else out.logs.push({ level: ev.level, message: ev.message });
        opts.onEvent?.(ev);
      });
      stream.on("error", (e: grpc.ServiceError) => {
        opts.signal?.removeEventListener("abort", abort);
        reject(grpcError(e));
      });
      stream.on("end", () => {
        opts.signal?.removeEventListener("abort", abort);
        if (!result) return reject(new Error(`${tool}: the stream ended without a result`));
        resolve({ ...out, result, text: resultText(result) });
      });
    });
  }

  /** health asks grpc.health.v1.Health about service ("plugin" by default) and returns its status ("SERVING"). */
  async health(service = "plugin"): Promise<string> {
    return (await this.#unary<{ status: string }>(this.#health, "Check", { service })).status;
  }

  /** shutdown calls plugin.GRPCController/Shutdown, as the host does when it gives up on a plugin. */
  async shutdown(): Promise<void> {
    await this.#unary(this.#controller, "Shutdown", {});
  }

  /**
   * expectTokenDemanded checks that the plugin refuses, with
   * UNAUTHENTICATED, every kind of RPC without the call token and with
   * another one: Describe, Call, Health and Shutdown. It throws saying
   * which was not refused.
   */
  async expectTokenDemanded(): Promise<void> {
    for (const token of [null, "not-" + this.#token]) {
      const tries: [string, () => Promise<unknown>][] = [
        ["Describe", () => this.#unary(this.#tools, "Describe", { host: hostToWire(hostContext()) }, token)],
        ["Health.Check", () => this.#unary(this.#health, "Check", { service: "plugin" }, token)],
        ["Shutdown", () => this.#unary(this.#controller, "Shutdown", {}, token)],
        ["Call", () => new Promise((resolve, reject) => {
          const s = this.#tools.Call({ tool: "x", arguments: Buffer.from("{}"), call_id: "" }, this.#metadata(token));
          s.on("data", () => undefined);
          s.on("error", (e: grpc.ServiceError) => reject(grpcError(e)));
          s.on("end", resolve);
        })],
      ];
      for (const [what, run] of tries) {
        const how = token === null ? "without the token" : "with a wrong token";
        const err = await run().then(() => undefined, (e: unknown) => e);
        if (!(err instanceof GrpcError) || err.code !== grpc.status.UNAUTHENTICATED) {
          throw new Error(`${what} ${how} was not refused with UNAUTHENTICATED: ${err === undefined ? "it succeeded" : String(err)}`);
        }
      }
    }
  }

  /** close closes the connection and ends what connect or launch started. */
  async close(): Promise<void> {
    for (const c of [this.#tools, this.#health, this.#controller]) c.close();
    await this.#cleanup();
  }
}

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "rmb-"));
}

/**
 * connect serves box in this process on a real gRPC connection (a Unix
 * socket, with a fresh call token), describes it with host and checks the
 * description by the host's rules. Close the client when done.
 */
export async function connect(box: Toolbox, host: Partial<HostContext> = {}): Promise<PluginClient> {
  const dir = tempDir();
  const socket = path.join(dir, "plugin.sock");
  const token = randomBytes(32).toString("hex");
  const server = createServer(box, { token });
  await new Promise<void>((resolve, reject) =>
    server.bindAsync("unix:" + socket, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())),
  );
  const client = new PluginClient("unix:" + socket, token, async () => {
    server.forceShutdown();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  try {
    await client.describe(host);
  } catch (e) {
    await client.close();
    throw e;
  }
  return client;
}

/** The environment variables every program the host starts may get (the host's allow-list, internal/launch/env.go). */
const allowed = new Set([
  "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TERM",
  "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR",
  "SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
  "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
  "GOCOVERDIR", "GORACE", "GOTRACEBACK", "GOMAXPROCS", "RAMABANA_LOG_LEVEL",
]);

/** Options of launch. */
export interface LaunchOptions {
  /** The host context of Describe. */
  host?: Partial<HostContext>;
  /** Variables added to the environment the host gives (as --plugin-env would). */
  env?: Record<string, string>;
  /** RAMABANA_LOG_LEVEL; "DEBUG" by default, so the plugin's debug lines are in stderr. */
  logLevel?: string;
  /** How long the handshake may take, in ms; 10000 (the host's --start-timeout) by default. */
  startTimeout?: number;
}

/** A plugin started as a child process by launch. */
export class LaunchedPlugin extends PluginClient {
  /** The child process. */
  readonly child: ChildProcess;
  /** The handshake line the plugin printed. */
  readonly handshake: string;
  readonly #stderr: string[];
  readonly #stdout: string[];
  readonly #exited: Promise<number | null>;

  readonly #dir: string;

  /** Made by launch. */
  constructor(address: string, token: string, child: ChildProcess, handshake: string, stdout: string[], stderr: string[], exited: Promise<number | null>, dir: string) {
    super(address, token, async () => undefined);
    this.#dir = dir;
    this.child = child;
    this.handshake = handshake;
    this.#stdout = stdout;
    this.#stderr = stderr;
    this.#exited = exited;
  }

  /** The plugin's stderr so far, whole lines. */
  get stderr(): string[] {
    return [...this.#stderr];
  }

  /** What the plugin wrote to stdout after the handshake line (the contract says: nothing). */
  get stdoutAfterHandshake(): string[] {
    return [...this.#stdout];
  }

  /** exited resolves with the exit code (null when killed by a signal) once the plugin has exited. */
  get exited(): Promise<number | null> {
    return this.#exited;
  }

  /** close closes the connection and stops the plugin (see stop). */
  override async close(): Promise<void> {
    await super.close();
    await this.stop();
    fs.rmSync(this.#dir, { recursive: true, force: true });
  }

  /**
   * stop ends the plugin as the host does: closes its stdin (the lifeline)
   * and, if it still runs a second later, kills it. It resolves with the
   * exit code (null when it had to be killed).
   */
  async stop(): Promise<number | null> {
    this.child.stdin?.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 1000);
    try {
      return await this.#exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * launch starts command (the built plugin, or `node` with a script in
 * args) as the host does: with only the host's allow-listed environment
 * plus the handshake cookie, PLUGIN_PROTOCOL_VERSIONS=1, a private
 * PLUGIN_UNIX_SOCKET_DIR, a fresh RAMABANA_PLUGIN_TOKEN and
 * RAMABANA_LOG_LEVEL, and stdin a pipe it never writes to. It reads the
 * handshake line, connects, describes with opts.host and checks the
 * description. Close it (or stop it) when done.
 */
export async function launch(command: string, args: string[] = [], opts: LaunchOptions = {}): Promise<LaunchedPlugin> {
  const dir = tempDir();
  const token = randomBytes(32).toString("hex");
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && (allowed.has(k) || k.startsWith("LC_"))) env[k] = v;
  Object.assign(env, {
    [COOKIE_KEY]: COOKIE_VALUE,
    PLUGIN_PROTOCOL_VERSIONS: "1",
    PLUGIN_UNIX_SOCKET_DIR: dir,
    [TOKEN_ENV]: token,
    RAMABANA_LOG_LEVEL: opts.logLevel ?? "DEBUG",
    ...opts.env,
  });
  const child = spawn(command, args, { env, stdio: ["pipe", "pipe", "pipe"] });
  const stderr: string[] = [];
  const stdout: string[] = [];
  lines(child.stderr!, (l) => stderr.push(l));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const spawned = new Promise<void>((resolve, reject) => {
    child.on("spawn", resolve);
    child.on("error", reject);
  });
  let handshake: string;
  try {
    await spawned;
    handshake = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no handshake within ${opts.startTimeout ?? 10000} ms`)), opts.startTimeout ?? 10000);
      let first = true;
      lines(child.stdout!, (l) => {
        if (!first) return void stdout.push(l);
        first = false;
        clearTimeout(timer);
        resolve(l);
      });
      exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`the plugin exited (code ${code}) before its handshake: ${stderr.join("\n")}`));
      });
    });
  } catch (e) {
    child.kill("SIGKILL");
    fs.rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const m = /^1\|1\|unix\|(.+)\|grpc\|$/.exec(handshake);
  const plugin = new LaunchedPlugin(m ? "unix:" + m[1] : "", token, child, handshake, stdout, stderr, exited, dir);
  if (!m) {
    await plugin.stop();
    throw new Error(`the handshake line ${JSON.stringify(handshake)} is not 1|1|unix|PATH|grpc|`);
  }
  try {
    await plugin.describe(opts.host);
  } catch (e) {
    await plugin.close();
    throw e;
  }
  return plugin;
}

/** lines calls fn with each whole line s yields. */
function lines(s: NodeJS.ReadableStream, fn: (line: string) => void): void {
  let buf = "";
  s.setEncoding("utf8");
  s.on("data", (chunk: string) => {
    buf += chunk;
    let i: number;
    while ((i = buf.indexOf("\n")) >= 0) {
      fn(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
  });
  s.on("end", () => {
    if (buf !== "") fn(buf);
  });
}

export { hostContext };
