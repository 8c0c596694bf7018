// The Toolbox, the checks of names and descriptions (the host's), the
// harness's refusal of what the host would refuse, and the small helpers.

import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {
  Toolbox,
  childEnv,
  descriptionError,
  fileChange,
  log,
  parseSkill,
  setLogLevel,
  skillName,
  tool,
  z,
  type Description,
  type HostContext,
} from "../src/index.js";
import { setLogSink } from "../src/log.js";
import { connect } from "../src/testing.js";

const hello = () => tool({ name: "hello", description: "Say hello.", kind: "read", handler: () => "hi" });

test("names are checked when declared, as the host checks them", () => {
  assert.throws(() => new Toolbox("Bad_Name"), /plugin name "Bad_Name": use lower-case letters, digits and '-'/);
  assert.throws(() => new Toolbox("-x"), /plugin name "-x"/);
  assert.doesNotThrow(() => new Toolbox("word-count2"));
  const box = new Toolbox("p");
  assert.throws(() => box.addGroup({ name: "Group" }, hello()), /group name "Group": use lower-case letters, digits and '-'/);
  assert.throws(() => box.addGroup({ name: "" }, hello()), /group name ""/);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  assert.throws(() => box.addGroup({ name: "g", mode: "sometimes" as any }, hello()), /group "g": unknown mode "sometimes"/);
  box.addGroup({ name: "one" }, hello());
  assert.throws(() => box.addGroup({ name: "two" }, hello()), /tool "hello" is declared twice \(groups "one" and "two"\)/);
  assert.throws(() => new Toolbox("q").addGroup({ name: "g" }, hello(), hello()), /tool "hello" is declared twice \(groups "g" and "g"\)/);
});

test("groups are described with their mode, replacement and privilege claim", async () => {
  const box = new Toolbox("groups", { version: "2.0.0", description: "Groups." })
    .addGroup({ name: "new", description: "The new tools." }, hello())
    .addGroup(
      { name: "old", description: "The old tools.", mode: "legacy", replacedBy: "new", localData: true },
      tool({ name: "old_hello", description: "d", kind: "write", annotations: { destructive: false }, handler: () => "" }),
    )
    .addGroup({ name: "extra", mode: "opt-in" }, tool({ name: "x", description: "d", kind: "act", handler: () => "" }));
  const c = await connect(box);
  try {
    const d = c.description;
    assert.equal(d.version, "2.0.0");
    assert.deepEqual(d.groups.map((g) => [g.name, g.mode, g.replacedBy, g.localData]), [
      ["new", "default", "", false],
      ["old", "legacy", "new", true],
      ["extra", "opt-in", "", false],
    ]);
    assert.deepEqual(d.groups[1]!.tools[0]!.annotations, { destructive: false });
    assert.equal(d.groups[1]!.tools[0]!.kind, "write");
  } finally {
    await c.close();
  }
});

test("Describe keeps the host context for the calls; onDescribe sees it and may refuse", async () => {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "rmb-box-")));
  fs.writeFileSync(path.join(base, "f.txt"), "content");
  let described: HostContext | undefined;
  const box = new Toolbox("host").addGroup(
    { name: "host" },
    tool({
      name: "show",
      description: "d",
      kind: "read",
      input: z.object({ path: z.string() }),
      handler: async ({ path: p }, call) => JSON.stringify({ host: call.host, text: await call.roots.readText(p) }),
    }),
  );
  box.onDescribe((h) => {
    described = h;
    if (h.configDir === "refuse") throw new Error("no config dir");
  });
  const host = { roots: [base], readOutside: true, web: true, write: true, commands: true, noSandbox: true, configDir: "/cfg", hostVersion: "1.0" };
  const c = await connect(box, host);
  try {
    assert.deepEqual(described, host);
    assert.deepEqual(JSON.parse((await c.call("show", { path: "f.txt" })).text), { host, text: "content" });
    await assert.rejects(c.describe({ configDir: "refuse" }), /FAILED_PRECONDITION: describe: no config dir/);
  } finally {
    await c.close();
    fs.rmSync(base, { recursive: true, force: true });
  }
});

/** A toolbox that describes what it is given, for the harness's checks. */
class Describes extends Toolbox {
  constructor(private readonly d: Description) {
    super("fake");
  }
  override async describe(): Promise<Description> {
    return this.d;
  }
}

test("the harness refuses what the host would refuse", async () => {
  const spec = { name: "t", title: "", description: "", inputSchema: { type: "object" }, kind: "read" as const, annotations: {}, task: "completion" as const, asUserMessage: false };
  const group = { name: "g", description: "", mode: "default" as const, replacedBy: "", localData: false, tools: [spec] };
  const good: Description = { name: "fake", version: "", description: "", groups: [group] };
  const bad: [Description, RegExp][] = [
    [{ ...good, groups: [] }, /it describes no tool groups/],
    [{ ...good, name: "Fake" }, /plugin name "Fake"/],
    [{ ...good, groups: [{ ...group, tools: [{ ...spec, inputSchema: { type: "string" } }] }] }, /group "g": tool "t": input schema: the root must have "type": "object"/],
    [{ ...good, groups: [{ ...group, tools: [{ ...spec, outputSchema: { type: "array" } }] }] }, /tool "t": output schema: the root must have "type": "object"/],
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    [{ ...good, groups: [{ ...group, tools: [{ ...spec, kind: "unspecified" as any }] }] }, /tool "t": declares no kind/],
    [{ ...good, groups: [{ ...group, tools: [{ ...spec, asUserMessage: true }] }] }, /tool "t": as_user_message is for context tools only/],
    [{ ...good, groups: [group, { ...group, name: "h" }] }, /tool "t" is declared twice \(groups "g" and "h"\)/],
  ];
  assert.equal(descriptionError(good), undefined);
  const c = await connect(new Describes(good));
  await c.close();
  for (const [d, want] of bad) {
    await assert.rejects(connect(new Describes(d)), (e: Error) => /^the host would refuse this plugin: /.test(e.message) && want.test(e.message));
  }
});

test("parseSkill reads the front matter as the host does", () => {
  const md = (fm: string) => `---\n${fm}\n---\nBody.\n`;
  assert.deepEqual(parseSkill(md("name: house-style\ndescription: Short sentences.")), { name: "house-style", description: "Short sentences." });
  assert.deepEqual(parseSkill("\ufeff---\r\nname: 'a-b'\r\ndescription: \"Say \\\"hi\\\".\" # comment\r\n---\r\n"), { name: "a-b", description: 'Say "hi".' });
  assert.deepEqual(parseSkill(md("name: x\ndescription: >\n  Folded\n  text.\nmetadata:\n  author: me\nallowed-tools: [a, b]")), { name: "x", description: "Folded text." });
  assert.deepEqual(parseSkill(md("# a comment\nname: x\ndescription: |\n  Line one.\n  Line two.")), { name: "x", description: "Line one.\nLine two." });
  assert.deepEqual(parseSkill(md("name: x\ndescription: A plain\n  continued line.")), { name: "x", description: "A plain continued line." });
  const refusals: [string, RegExp][] = [
    ["no front matter", /no front matter/],
    ["---\nname: x\n", /no front matter/],
    [md(""), /front matter is empty/],
    [md("description: d"), /name is missing/],
    [md("name: X\ndescription: d"), /name "X" is invalid/],
    [md("name: a--b\ndescription: d"), /name "a--b" is invalid/],
    [md(`name: ${"a".repeat(65)}\ndescription: d`), /more than 64/],
    [md("name: x"), /description is missing/],
    [md(`name: x\ndescription: ${"d".repeat(1025)}`), /description is 1025 characters, more than 1024/],
    [md("name: x\ndescription: a: b"), /line 3: mapping values are not allowed/],
    [md("name: x\nname: y\ndescription: d"), /line 3: mapping key "name" already defined at line 2/],
    [md("name:\n  nested: map\ndescription: d"), /name must be a string/],
    [md("just text"), /line 2: expected a `key: value` line/],
  ];
  for (const [text, want] of refusals) assert.throws(() => parseSkill(text), want, text);
  assert.equal(skillName("House_Style"), "house-style");
});

test("childEnv leaves out the plugin's own variables", () => {
  process.env.PLUGIN_UNIX_SOCKET_DIR = "/s";
  process.env.RAMABANA_PLUGIN_MAGIC_COOKIE = "c";
  process.env.RAMABANA_LOG_LEVEL = "DEBUG";
  try {
    const env = childEnv();
    assert.equal(env.PLUGIN_UNIX_SOCKET_DIR, undefined);
    assert.equal(env.RAMABANA_PLUGIN_MAGIC_COOKIE, undefined);
    assert.equal(env.RAMABANA_LOG_LEVEL, "DEBUG");
    assert.equal(env.PATH, process.env.PATH);
  } finally {
    delete process.env.PLUGIN_UNIX_SOCKET_DIR;
    delete process.env.RAMABANA_PLUGIN_MAGIC_COOKIE;
    delete process.env.RAMABANA_LOG_LEVEL;
  }
});

test("fileChange: hashes always, contents for UTF-8 text up to 1 MiB", () => {
  const created = fileChange("/a", null, Buffer.from("x"));
  assert.equal(created.beforeSha256, "");
  assert.equal(created.afterSha256, "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881");
  assert.deepEqual(created.after, Buffer.from("x"));
  const deleted = fileChange("/a", Buffer.from(""), null);
  assert.equal(deleted.beforeSha256, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  assert.equal(deleted.afterSha256, "");
  const binary = fileChange("/a", Buffer.from([0xff]), Buffer.from("x"));
  assert.equal(binary.before, undefined);
  assert.equal(binary.after, undefined);
  const big = fileChange("/a", Buffer.alloc((1 << 20) + 1, 0x61), Buffer.from("x"));
  assert.equal(big.before, undefined);
  assert.notEqual(fileChange("/a", Buffer.alloc(1 << 20, 0x61), null).before, undefined);
});

test("log lines are slog's, one per message, filtered by level", () => {
  const lines: string[] = [];
  const old = setLogSink((l) => lines.push(l));
  try {
    setLogLevel("info");
    log.debug("hidden");
    log.info("plain");
    log.warn("two words", { n: 3, path: "/a b", err: new Error("boom\nline") });
    log.error("x=y", { empty: "" });
  } finally {
    setLogSink(old);
    setLogLevel("info");
  }
  assert.equal(lines.length, 3);
  assert.equal(lines[0], "level=INFO msg=plain\n");
  assert.match(lines[1]!, /^level=WARN msg="two words" n=3 path="\/a b" err="Error: boom\\nline\\n {4}at .*"\n$/);
  assert.equal(lines[2], 'level=ERROR msg="x=y" empty=""\n');
});
