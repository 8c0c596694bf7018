// serve() over real gRPC: the fixture plugin started as the host starts it.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { GrpcError, launch, type LaunchedPlugin } from "../src/testing.js";

const fixture = path.join(__dirname, "fixture-plugin.js");

function start(opts: Parameters<typeof launch>[2] = {}): Promise<LaunchedPlugin> {
  return launch(process.execPath, [fixture], opts);
}

// PATIENCE bounds a wait for what the plugin does on its own (exit, see a
// cancellation): it ends a wait for what never comes, measuring nothing, so
// it is generous enough for a loaded machine. A wait ends as soon as the
// event is there.
const PATIENCE = 30_000;

/** until polls cond every 20 ms, for PATIENCE at the most, and says whether it held. */
async function until(cond: () => boolean | Promise<boolean>): Promise<boolean> {
  for (const deadline = Date.now() + PATIENCE; ; await new Promise((r) => setTimeout(r, 20))) {
    if (await cond()) return true;
    if (Date.now() > deadline) return false;
  }
}

async function rejects(p: Promise<unknown>, code: string): Promise<GrpcError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof GrpcError, `want a gRPC ${code} error, got ${String(err)}`);
  assert.equal(err.codeName, code, String(err));
  return err;
}

test("the handshake, Describe and a call, with progress and logs, over the plugin's socket", async () => {
  const p = await start({ host: { hostVersion: "9.9.9", roots: [] } });
  try {
    assert.match(p.handshake, /^1\|1\|unix\|\/.+\|grpc\|$/);
    assert.equal(p.description.name, "fixture");
    assert.equal(p.description.version, "1.2.3");
    const tools = p.description.groups[0]!.tools.map((t) => t.name);
    assert.deepEqual(tools.slice(0, 3), ["greet", "fail", "wait"]);
    const media = p.description.groups[0]!.tools.find((t) => t.name === "media")!;
    assert.deepEqual(media.annotations, { openWorld: true, idempotent: false });
    assert.equal(media.kind, "read");

    const out = await p.call("greet", { name: "Ann" }, { id: "c-1" });
    assert.equal(out.text, "Hello, Ann! (call c-1, host 9.9.9)");
    assert.equal(out.result.isError, false);
    assert.deepEqual(out.progress, [{ progress: 1, total: 2, message: "halfway" }]);
    assert.deepEqual(out.logs, [{ level: "warning", message: "about to greet Ann" }]);

    const judged = await p.call("judge", { answer: "" });
    assert.deepEqual(judged.result.structured, { is_valid: false, score: 0, feedback: "Answer is empty." });

    assert.equal(await p.health("plugin"), "SERVING");
    assert.equal(await p.health(""), "SERVING");
    await rejects(p.health("other"), "NOT_FOUND");
  } finally {
    await p.close();
  }
  // Only the handshake on stdout: the handler's console.log went to stderr.
  assert.deepEqual(p.stdoutAfterHandshake, []);
  assert.ok(p.stderr.some((l) => l.includes("a stray print")), p.stderr.join("\n"));
});

test("every RPC without the token, or with another, is refused: UNAUTHENTICATED", async () => {
  const p = await start();
  try {
    await p.expectTokenDemanded();
    // ... and the plugin still serves the host.
    assert.equal((await p.call("greet", { name: "B" })).result.isError, false);
  } finally {
    await p.close();
  }
});

test("the token leaves the environment before any tool runs a program", async () => {
  const p = await start();
  try {
    const out = await p.call("environment", {});
    assert.deepEqual(out.result.structured, { token: null, child: "" });
  } finally {
    await p.close();
  }
});

test("a ToolError is an error result; a fault is INTERNAL with its stack logged; an unknown tool is NOT_FOUND", async () => {
  const p = await start({ logLevel: "info" });
  try {
    const failed = await p.call("fail", {});
    assert.equal(failed.result.isError, true);
    assert.equal(failed.text, "give a better argument");

    const fault = await rejects(p.call("fail", { fault: true }), "INTERNAL");
    assert.match(fault.message, /tool fail: TypeError: the handler broke/);
    await rejects(p.call("no_such_tool", {}), "NOT_FOUND");

    const bad = await p.call("greet", { name: 7 });
    assert.equal(bad.result.isError, true);
    assert.match(bad.text, /^invalid arguments for greet: "name": /);
  } finally {
    await p.close();
  }
  const line = p.stderr.find((l) => l.startsWith("level=ERROR msg=\"tool failed\""));
  assert.ok(line, p.stderr.join("\n"));
  assert.match(line, /tool=fail/);
  assert.match(line, /TypeError: the handler broke\\n +at /); // the stack, on the one line
});

test("RAMABANA_LOG_LEVEL sets what the plugin logs, in slog's form", async () => {
  const debug = await start({ logLevel: "debug" });
  await debug.call("greet", { name: "x" });
  await debug.close();
  assert.ok(debug.stderr.some((l) => /^level=DEBUG msg="call done" tool=greet/.test(l)), debug.stderr.join("\n"));

  const warn = await start({ logLevel: "WARN" });
  await warn.call("wait", {}, { signal: AbortSignal.timeout(100) }).catch(() => undefined);
  await warn.close();
  assert.ok(!warn.stderr.some((l) => /level=(DEBUG|INFO)/.test(l)), warn.stderr.join("\n"));
});

test("a cancelled call's signal is aborted, and the plugin goes on serving", async () => {
  const p = await start();
  try {
    const ac = new AbortController();
    const call = p.call("wait", {}, { signal: ac.signal, onEvent: (ev) => ev.type === "progress" && ac.abort() });
    await rejects(call, "CANCELLED");
    // The handler sees its cancellation after the client does.
    let count = 0;
    await until(async () => {
      count = ((await p.call("cancelled_count", {})).result.structured as { count: number }).count;
      return count !== 0;
    });
    assert.equal(count, 1);
  } finally {
    await p.close();
  }
});

test("256 MiB limits: arguments and results over gRPC's default 4 MiB pass both ways", async () => {
  const p = await start();
  try {
    const big = "x".repeat(5 << 20);
    const out = await p.call("echo_size", { text: big, size: 5 << 20 });
    assert.equal(out.text.length, String(5 << 20).length + 1 + (5 << 20));
    assert.ok(out.text.startsWith(`${5 << 20}:yyy`));
  } finally {
    await p.close();
  }
});

test("content of every kind and file changes reach the host", async () => {
  const p = await start();
  try {
    const r = (await p.call("media", {})).result;
    assert.deepEqual(r.content[0], { type: "text", text: "t" });
    assert.deepEqual(r.content[1], { type: "image", data: Buffer.from([0x89, 0x50, 0x4e, 0x47]), mimeType: "image/png" });
    assert.deepEqual(r.content[2], { type: "resource", uri: "file:///a.txt", mimeType: "text/plain", text: "body" });
    assert.deepEqual(r.content[3], { type: "resource", uri: "file:///b.bin", mimeType: "application/octet-stream", blob: Buffer.from([0, 1, 2]) });
    assert.equal(r.changes?.length, 1);
    assert.equal(r.changes![0]!.path, "/x/y.txt");
    assert.equal(Buffer.from(r.changes![0]!.after!).toString(), "new\n");
  } finally {
    await p.close();
  }
});

test("the roots of Describe confine reads and writes over the wire", async () => {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "rmb-serve-")));
  const root = path.join(base, "root");
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, "a.txt"), "inside\n");
  fs.writeFileSync(path.join(base, "secret.txt"), "outside\n");
  fs.symlinkSync(path.join(base, "secret.txt"), path.join(root, "link"));
  const p = await start({ host: { roots: [root], write: true } });
  try {
    assert.equal((await p.call("read_file", { path: "a.txt" })).text, "inside\n");
    const out = await p.call("read_file", { path: "link" });
    assert.equal(out.result.isError, true);
    assert.match(out.text, /outside the served folders/);
    const w = await p.call("write_file", { path: "new/b.txt", text: "made\n" });
    assert.equal(w.text, "wrote new/b.txt");
    assert.equal(w.result.changes![0]!.path, path.join(root, "new/b.txt"));
    assert.equal(w.result.changes![0]!.beforeSha256, "");
    assert.equal(fs.readFileSync(path.join(root, "new/b.txt"), "utf8"), "made\n");
  } finally {
    await p.close();
    fs.rmSync(base, { recursive: true, force: true });
  }
});

test("the lifeline: the plugin exits when its stdin reaches EOF", async () => {
  const p = await start();
  p.child.stdin!.end();
  const timer = setTimeout(() => p.child.kill("SIGKILL"), PATIENCE);
  assert.equal(await p.exited, 0); // not null: it exited by itself
  clearTimeout(timer);
  await p.close();
});

test("Shutdown is answered, then the plugin exits", async () => {
  const p = await start();
  await p.shutdown();
  const timer = setTimeout(() => p.child.kill("SIGKILL"), PATIENCE);
  assert.equal(await p.exited, 0);
  clearTimeout(timer);
  await p.close();
});

test("SIGTERM (the host's parent-death signal) and SIGINT end the plugin", async () => {
  for (const sig of ["SIGTERM", "SIGINT"] as const) {
    const p = await start();
    p.child.kill(sig);
    const timer = setTimeout(() => p.child.kill("SIGKILL"), PATIENCE);
    assert.equal(await p.exited, 0, sig);
    clearTimeout(timer);
    await p.close();
  }
});

test("the plugin exits when its parent goes away, even with a stdin that says nothing", async () => {
  // A shell starts the plugin with stdin from /dev/null, prints its pid,
  // waits for its socket (it serves: it knows its parent) and exits: the
  // plugin is re-parented, and must notice.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rmb-orphan-"));
  const env = { ...process.env, RAMABANA_PLUGIN_MAGIC_COOKIE: "c2f6e5b4a1d94e0f9c7b3a8d6e2f1c0a", PLUGIN_UNIX_SOCKET_DIR: dir };
  const script = `"${process.execPath}" "${fixture}" </dev/null >/dev/null 2>&1 & echo $!; ` +
    `i=0; while [ -z "$(ls "${dir}")" ] && [ $i -lt ${PATIENCE / 50} ]; do sleep 0.05; i=$((i+1)); done`;
  const sh = spawnSync("/bin/sh", ["-c", script], { env });
  const pid = Number(sh.stdout.toString().trim());
  assert.ok(pid > 0, sh.stderr.toString());
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  await until(() => !alive());
  const still = alive();
  if (still) process.kill(pid, "SIGKILL");
  fs.rmSync(dir, { recursive: true, force: true });
  assert.equal(still, false, `the orphaned plugin still runs after ${PATIENCE / 1000} s`);
});

test("run by hand (no magic cookie), it says so on stderr and exits 1", () => {
  const r = spawnSync(process.execPath, [fixture], { env: { PATH: process.env.PATH ?? "" }, input: "" });
  assert.equal(r.status, 1);
  assert.equal(r.stdout.toString(), "");
  assert.match(r.stderr.toString(), /not meant to be run by hand.*ramabana-mcp plugin install/);
});

test("a host of another protocol version is refused, exit 1", () => {
  const r = spawnSync(process.execPath, [fixture], {
    env: { PATH: process.env.PATH ?? "", RAMABANA_PLUGIN_MAGIC_COOKIE: "c2f6e5b4a1d94e0f9c7b3a8d6e2f1c0a", PLUGIN_PROTOCOL_VERSIONS: "2,3" },
    input: "",
  });
  assert.equal(r.status, 1);
  assert.match(r.stderr.toString(), /protocol versions 2,3; this plugin speaks 1/);
});
