// serve(): everything docs/plugin-protocol.md asks of a plugin process.

import * as grpc from "@grpc/grpc-js";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { randomBytes } from "node:crypto";
import { log, parseLogLevel, setLogLevel } from "./log.js";
import { createServer } from "./service.js";
import type { Toolbox } from "./toolbox.js";
import { APP_PROTOCOL_VERSION, COOKIE_KEY, COOKIE_VALUE, CORE_PROTOCOL_VERSION, TOKEN_ENV } from "./wire.js";

/** How serve runs. */
export interface ServeOptions {
  /**
   * Exit when the host goes away (stdin, a pipe, reaches EOF; the parent
   * process changes). Default true; false is for a plugin run under a
   * supervisor other than the ramabana host.
   */
  watchHost?: boolean;
}

const exitHooks: (() => void)[] = [];
let exiting = false;

/**
 * atExit registers fn to run when the plugin exits (the host went away, a
 * signal, Shutdown): for work it started outside its own process group,
 * such as a command's, which would otherwise outlive it. Hooks run once, in
 * reverse order, and must be quick and synchronous.
 */
export function atExit(fn: () => void): void {
  exitHooks.push(fn);
}

/** exit runs the atExit hooks and ends the process with code. */
export function exit(code: number): never {
  if (!exiting) {
    exiting = true;
    for (const fn of exitHooks.splice(0).reverse()) {
      try {
        fn();
      } catch (e) {
        log.warn("an exit hook failed", { error: e });
      }
    }
  }
  process.exit(code);
}

/**
 * childEnv is the environment for a program a plugin starts (git, a
 * shell command): the plugin's own, which the host already cut down to its
 * allow-list, less the variables meant for the plugin process itself
 * (PLUGIN_* and RAMABANA_PLUGIN_*). The object is fresh.
 */
export function childEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("PLUGIN_") && !k.startsWith("RAMABANA_PLUGIN_")),
  );
}

/** The reason the environment given to this process rules out serving, or undefined. */
export function environmentError(env: NodeJS.ProcessEnv): string | undefined {
  if (env[COOKIE_KEY] !== COOKIE_VALUE) {
    return (
      "This is a ramabana-mcp plugin; it is not meant to be run by hand. Put it in a --plugins dir " +
      `or install it with \`ramabana-mcp plugin install PATH\`. (${COOKIE_KEY} is missing or wrong.)`
    );
  }
  const versions = env.PLUGIN_PROTOCOL_VERSIONS;
  if (versions && !versions.split(",").map((v) => v.trim()).includes(String(APP_PROTOCOL_VERSION))) {
    return `the host speaks plugin protocol versions ${versions}; this plugin speaks ${APP_PROTOCOL_VERSION}: update the plugin or the host`;
  }
  return undefined;
}

/**
 * serve serves box as a ramabana plugin until the host ends it; call it
 * last in the plugin's main module. It:
 *
 * - takes the call token from RAMABANA_PLUGIN_TOKEN and removes the
 *   variable from the environment first of all, so no program a tool
 *   starts sees it; every RPC must then carry it (UNAUTHENTICATED
 *   otherwise);
 * - refuses to run (a message on stderr, exit 1) without the host's magic
 *   cookie, or when PLUGIN_PROTOCOL_VERSIONS lacks 1;
 * - logs to stderr at RAMABANA_LOG_LEVEL (info by default);
 * - listens on a Unix socket in PLUGIN_UNIX_SOCKET_DIR, prints the one
 *   handshake line on stdout, and sends whatever is written to
 *   process.stdout later (console.log included) to stderr;
 * - exits when stdin reaches EOF, on SIGTERM, SIGINT or SIGHUP, when the
 *   parent process changes, and after answering Shutdown.
 */
export function serve(box: Toolbox, opts: ServeOptions = {}): void {
  // The parent now, before the handshake: a host that dies once it has
  // read the handshake must not be taken for the parent to watch.
  const ppid = parentPid();
  const token = process.env[TOKEN_ENV];
  delete process.env[TOKEN_ENV];
  const why = environmentError(process.env);
  if (why) {
    process.stderr.write(why + "\n");
    process.exit(1);
  }
  setLogLevel(parseLogLevel(process.env.RAMABANA_LOG_LEVEL) ?? "info");
  process.on("uncaughtExceptionMonitor", (e) => log.error("uncaught exception: the plugin exits", { error: e }));

  let dir = process.env.PLUGIN_UNIX_SOCKET_DIR ?? "";
  const ownDir = dir === "";
  if (ownDir) dir = fs.mkdtempSync(path.join(os.tmpdir(), "plugin"));
  const socket = path.join(dir, "plugin" + randomBytes(6).toString("hex"));
  atExit(() => {
    fs.rmSync(socket, { force: true });
    if (ownDir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const server = createServer(box, {
    token: token || undefined,
    onShutdown: () => {
      log.debug("Shutdown from the host: exiting");
      server.tryShutdown(() => exit(0));
      setTimeout(() => exit(0), 1000);
    },
  });
  server.bindAsync("unix:" + socket, grpc.ServerCredentials.createInsecure(), (err) => {
    if (err) {
      process.stderr.write(`level=ERROR msg=${JSON.stringify(`listen on unix socket ${socket}: ${err.message}`)}\n`);
      exit(1);
    }
    // The handshake: the one line the host reads on stdout. Nothing else
    // goes there: later writes to process.stdout go to stderr.
    fs.writeSync(1, `${CORE_PROTOCOL_VERSION}|${APP_PROTOCOL_VERSION}|unix|${socket}|grpc|\n`);
    process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
    log.debug("serving", { plugin: box.name, socket });
  });

  for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    process.on(sig, () => {
      log.debug("exiting on signal", { signal: sig });
      exit(0);
    });
  }
  if (opts.watchHost ?? true) watchHost(ppid);
}

/**
 * watchHost exits when the host is gone: stdin, when it is a pipe or a
 * socket (the host's lifeline, never written to), reaches EOF, which the kernel makes
 * happen however the host died; and the parent process is polled, since a
 * re-parented plugin has lost its host (/dev/null or a terminal as stdin
 * says nothing).
 */
function watchHost(ppid: number | undefined): void {
  let pipe = false;
  try {
    const st = fs.fstatSync(0);
    pipe = st.isFIFO() || st.isSocket(); // a Go host gives a pipe; Node's spawn a socket pair
  } catch {
    // no stdin at all: nothing to watch there
  }
  if (pipe) {
    const gone = () => {
      log.debug("the host closed the lifeline (stdin EOF): exiting");
      exit(0);
    };
    process.stdin.on("data", () => undefined).on("end", gone).on("error", gone);
    process.stdin.resume();
  }
  if (ppid === undefined) return;
  setInterval(() => {
    if (parentPid() !== ppid) {
      log.debug("the host went away (re-parented): exiting");
      exit(0);
    }
  }, 500).unref();
}

/** parentPid reads the parent's pid from /proc/self/stat (Node's process.ppid is fixed at start); undefined where there is none. */
function parentPid(): number | undefined {
  try {
    const stat = fs.readFileSync("/proc/self/stat", "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}
