#!/usr/bin/env node
// client.mjs drives MCP servers over stdio with the TypeScript SDK's Client
// and StdioClientTransport (the client most MCP hosts embed) and times them,
// interleaved: every server's long-lived session is open at once and the
// servers take turns in each round, so they share the machine's noise.
//
// Usage: node client.mjs SPEC.json, or the spec on stdin (node client.mjs -).
// The spec:
//
//	{
//	  "rounds": 5,           // rounds; in each, every server takes its turn per measure
//	  "spawns": 4,           // cold starts per server per round
//	  "calls": 100,          // tools/list and read calls per server per round
//	  "warmup": 20,          // untimed calls of each kind on each long-lived session first
//	  "settle": 500,         // ms a cold start waits after tools/list before idle-pss and first-read
//	  "servers": [{
//	    "name": "ramabana",
//	    "command": "/path/to/ramabana-mcp", "args": ["--root", "DIR"],
//	    "env": {"RAMABANA_PLUGIN_PATH": ""},   // on top of the SDK's default environment
//	    "cwd": "/optional",
//	    "wantTools": ["view_file"],            // each must be in every first tools/list
//	    "read": {"tool": "view_file", "args": {"path": "small.py"}, "expect": "RESERVE"}
//	  }]
//	}
//
// The measures, each in ms from process.hrtime.bigint():
//
//	spawn     new transport and client, spawn, initialize, listTools() answered;
//	          closing the session (stdin closed, exit awaited) is outside the timer
//	list      client.listTools() on the live session (the request, zod parse, and
//	          the SDK's compiling of every outputSchema into an ajv validator)
//	list-req  the bare tools/list request on the live session (request and zod
//	          parse only), what the server and the transport cost
//	read      client.callTool(read.tool, read.args) on the live session
//	first-read  in each cold start, after tools/list and "settle" ms of quiet,
//	          the session's first callTool(read.tool, read.args): for a server
//	          whose tools run in processes started at their first call, that
//	          start included
//
// and one memory measure, in MB:
//
//	idle-pss  in each cold start, after tools/list and "settle" ms (default
//	          500), the proportional set size of the server's whole process
//	          tree (the server and its descendants, from /proc; Linux only)
//
// Output: one JSON object per line per server per measure:
//
//	{"server":"ramabana","measure":"read","unit":"ms","n":500,"p50":0.41,"p99":1.2,"max":3.1,
//	 "rounds":[[...samples of round 1...],...]}
//
// The list and list-req lines also hold "tools", how many tools the server
// lists, and "bytes", the size of its tools/list result as JSON. Then
// {"done":true}. Any failure (a server that does not start, a tool
// result with isError, a read without the expected text, a tools/list missing
// a wanted tool) ends the script with exit status 1 and the reason, with the
// tail of that server's stderr, on stderr. Every server it started is closed
// before it exits.

import { readFileSync, readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import process from 'node:process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';

const STDERR_TAIL = 4096;

function readSpec() {
  const arg = process.argv[2];
  const text = arg === undefined || arg === '-' ? readFileSync(0, 'utf8') : arg.trimStart().startsWith('{') ? arg : readFileSync(arg, 'utf8');
  const spec = JSON.parse(text);
  for (const k of ['rounds', 'spawns', 'calls', 'warmup', 'settle']) {
    if (!Number.isInteger(spec[k] ?? 0) || (spec[k] ?? 0) < 0) throw new Error(`spec: ${k} must be a whole number ≥ 0, got ${JSON.stringify(spec[k])}`);
  }
  if (!Array.isArray(spec.servers) || spec.servers.length === 0) throw new Error('spec: servers must be a non-empty list');
  for (const s of spec.servers) {
    if (!s.name || !s.command) throw new Error(`spec: every server needs a name and a command: ${JSON.stringify(s)}`);
  }
  return { rounds: spec.rounds ?? 5, spawns: spec.spawns ?? 4, calls: spec.calls ?? 100, warmup: spec.warmup ?? 20, settle: spec.settle ?? 500, servers: spec.servers };
}

// Session is one connected client with the tail of its server's stderr.
class Session {
  constructor(server) {
    this.server = server;
    this.stderr = '';
    this.transport = new StdioClientTransport({
      command: server.command,
      args: server.args ?? [],
      env: server.env ?? {},
      cwd: server.cwd,
      stderr: 'pipe',
    });
    // Drained always, so that a chatty server never blocks on a full pipe.
    this.transport.stderr.on('data', (chunk) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-STDERR_TAIL);
    });
    // No capabilities, as the go-sdk benchmarks' client: no server here
    // needs roots or sampling.
    this.client = new Client({ name: 'bench-node', version: '0' }, { capabilities: {} });
  }

  async connect() {
    await this.client.connect(this.transport);
  }

  // listTools is the SDK's listTools, checked for the wanted tools.
  async listTools() {
    const res = await this.client.listTools();
    this.check(res);
    return res;
  }

  // listRaw is the bare tools/list request, without the SDK's caching of
  // output validators.
  async listRaw() {
    const res = await this.client.request({ method: 'tools/list', params: {} }, ListToolsResultSchema);
    this.check(res);
    return res;
  }

  check(res) {
    if (!res.tools?.length) throw this.fail('tools/list answered no tools');
    const names = new Set(res.tools.map((t) => t.name));
    const missing = (this.server.wantTools ?? []).filter((n) => !names.has(n));
    if (missing.length) throw this.fail(`tools/list lacks ${missing.join(', ')} (${res.tools.length} tools)`);
  }

  async read() {
    const { tool, args, expect } = this.server.read;
    const res = await this.client.callTool({ name: tool, arguments: args });
    const text = (res.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
    if (res.isError) throw this.fail(`${tool}: tool error: ${text}`);
    if (expect && !text.includes(expect)) throw this.fail(`${tool}: result lacks ${JSON.stringify(expect)}: ${JSON.stringify(text.slice(0, 300))}`);
    return res;
  }

  // fail makes the error; withStderr names the server.
  fail(msg) {
    return new Error(msg);
  }

  async close() {
    await this.client.close();
  }
}

const open = new Set(); // sessions to close, whatever happens

async function closeAll() {
  await Promise.allSettled([...open].map((s) => s.close()));
  open.clear();
}

function ms(t0) {
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

// timeSpawn is one cold start: spawn → initialize → tools/list answered;
// then, after settle ms, the process tree's PSS and the first read.
async function timeSpawn(server, settle) {
  const s = new Session(server);
  open.add(s);
  const t0 = process.hrtime.bigint();
  let spawn, pss, firstRead;
  try {
    await s.connect();
    await s.listTools();
    spawn = ms(t0);
    await sleep(settle);
    pss = treePSS(s.transport.pid);
    if (server.read) {
      const t1 = process.hrtime.bigint();
      await s.read();
      firstRead = ms(t1);
    }
  } catch (e) {
    throw withStderr(s, e);
  }
  await s.close();
  open.delete(s);
  return { spawn, pss, firstRead };
}

// treePSS is the PSS in MB of pid and its descendants (smaps_rollup), or
// undefined where /proc does not tell it.
function treePSS(pid) {
  if (!pid) return undefined;
  let entries;
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return undefined;
  }
  const children = new Map();
  for (const e of entries) {
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(e));
    } catch { /* gone */ }
  }
  let kb = 0;
  for (const todo = [pid]; todo.length;) {
    const p = todo.pop();
    try {
      const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'));
      if (m) kb += Number(m[1]);
    } catch { /* gone, or not readable */ }
    todo.push(...(children.get(p) ?? []));
  }
  return kb / 1024;
}

function withStderr(s, e) {
  const err = new Error(`${s.server.name}: ${e.message}${s.stderr ? `\n--- ${s.server.name} stderr (tail) ---\n${s.stderr}` : ''}`);
  err.cause = e;
  return err;
}

async function timeCalls(fn, n) {
  const d = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    d.push(ms(t0));
  }
  return d;
}

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function main() {
  const spec = readSpec();
  const measures = ['spawn', 'first-read', 'idle-pss', 'list', 'list-req', 'read'];
  // samples[server][measure] holds one list of samples per round.
  const samples = new Map(spec.servers.map((s) => [s.name, Object.fromEntries(measures.map((m) => [m, []]))]));
  const add = (s, m, d) => samples.get(s.server.name)[m].push(d);

  // The long-lived sessions, all open at once.
  const live = [];
  const listed = new Map();
  for (const server of spec.servers) {
    const s = new Session(server);
    open.add(s);
    try {
      await s.connect();
      const res = await s.listTools();
      // Size of what a tools/list carries, measured outside the timers.
      listed.set(server.name, { tools: res.tools.length, bytes: Buffer.byteLength(JSON.stringify(res)) });
      for (let i = 0; i < spec.warmup; i++) {
        await s.listTools();
        await s.listRaw();
        if (server.read) await s.read();
      }
    } catch (e) {
      throw withStderr(s, e);
    }
    live.push(s);
  }

  for (let r = 0; r < spec.rounds; r++) {
    // The order rotates each round, so no server always follows the same one.
    const order = live.map((_, i) => live[(i + r) % live.length]);
    for (const s of order) {
      const d = { spawn: [], 'first-read': [], 'idle-pss': [] };
      for (let i = 0; i < spec.spawns; i++) {
        const r = await timeSpawn(s.server, spec.settle);
        d.spawn.push(r.spawn);
        if (r.firstRead !== undefined) d['first-read'].push(r.firstRead);
        if (r.pss !== undefined) d['idle-pss'].push(r.pss);
      }
      for (const [m, v] of Object.entries(d)) if (v.length) add(s, m, v);
    }
    for (const s of order) {
      try {
        add(s, 'list', await timeCalls(() => s.listTools(), spec.calls));
        add(s, 'list-req', await timeCalls(() => s.listRaw(), spec.calls));
        if (s.server.read) add(s, 'read', await timeCalls(() => s.read(), spec.calls));
      } catch (e) {
        throw withStderr(s, e);
      }
    }
  }

  for (const [name, byMeasure] of samples) {
    for (const m of measures) {
      const rounds = byMeasure[m];
      const all = rounds.flat().sort((a, b) => a - b);
      if (all.length === 0) continue;
      const round3 = (x) => Math.round(x * 1000) / 1000;
      console.log(JSON.stringify({
        server: name, measure: m, unit: m === 'idle-pss' ? 'MB' : 'ms', n: all.length,
        ...(m.startsWith('list') ? listed.get(name) : {}),
        p50: round3(quantile(all, 0.5)), p99: round3(quantile(all, 0.99)), max: round3(all[all.length - 1]),
        rounds: rounds.map((d) => d.map(round3)),
      }));
    }
  }
  console.log(JSON.stringify({ done: true }));
}

try {
  await main();
  await closeAll();
} catch (e) {
  console.error(`client.mjs: ${e.message}`);
  await closeAll();
  process.exit(1);
}
