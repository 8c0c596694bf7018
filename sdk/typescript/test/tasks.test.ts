// The task helpers: each tool's spec on the wire and what it answers, over
// the in-process harness; and what each refuses when declared.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  Evaluation,
  Toolbox,
  ToolError,
  contextTool,
  evaluationTool,
  noneTool,
  postTool,
  skillText,
  skillTool,
  tool,
  z,
  type Tool,
} from "../src/index.js";
import { GrpcError, connect, type PluginClient } from "../src/testing.js";

const skillMd = (name: string, description = "Prefer short sentences.") => `---\nname: ${name}\ndescription: ${description}\n---\nWrite short sentences.\n`;

let posted: string[] = [];

function box(): Toolbox {
  return new Toolbox("tasks", { version: "0.1.0" }).addGroup(
    { name: "tasks", description: "A tool of every task." },
    contextTool({ name: "policies", description: "Policies.", kind: "read", handler: () => "Always cite sources." }),
    contextTool({ name: "ticket", description: "The ticket.", kind: "read", asUserMessage: true, handler: () => "Ticket #123 is still open." }),
    tool({ name: "search", description: "Search.", kind: "read", input: z.object({ q: z.string() }), handler: ({ q }) => `Results for ${q}` }),
    evaluationTool({
      name: "grounded",
      description: "Judge.",
      kind: "read",
      input: z.object({ answer: z.string() }),
      handler: ({ answer }) => (answer === "" ? Evaluation.invalid(0, "Answer is empty.") : Evaluation.valid(1)),
    }),
    evaluationTool({ name: "broken_judge", description: "Judge badly.", kind: "read", handler: () => Evaluation.valid(NaN) }),
    postTool({ name: "audit", description: "Audit.", kind: "act", input: z.object({ answer: z.string() }), handler: ({ answer }) => { posted.push(answer); } }),
    skillText({ name: "style", kind: "read", mode: "always-on", text: skillMd("style") }),
    skillTool({ name: "house_style", description: "The house style.", kind: "read", mode: "auto", handler: () => skillMd("house-style") }),
    skillTool({ name: "bad_skill", description: "Names the wrong skill.", kind: "read", mode: "auto", handler: () => skillMd("other") }),
    noneTool({ name: "ping", description: "Ping.", kind: "read", handler: () => "pong" }),
  );
}

async function withClient(fn: (c: PluginClient) => Promise<void>) {
  const c = await connect(box());
  try {
    await fn(c);
  } finally {
    await c.close();
  }
}

test("each task's tool is described with its task, mode and asUserMessage", () =>
  withClient(async (c) => {
    const specs = Object.fromEntries(c.description.groups[0]!.tools.map((t) => [t.name, t]));
    assert.equal(specs.policies!.task, "context");
    assert.equal(specs.policies!.asUserMessage, false);
    assert.equal(specs.ticket!.asUserMessage, true);
    assert.equal(specs.search!.task, "completion");
    assert.equal(specs.grounded!.task, "evaluation");
    assert.deepEqual(specs.grounded!.outputSchema!.required, ["is_valid", "score", "feedback"]);
    assert.equal(specs.audit!.task, "post_tool");
    assert.equal(specs.style!.task, "skill");
    assert.equal(specs.style!.mode, "always-on");
    assert.equal(specs.style!.description, "Prefer short sentences."); // from the front matter
    assert.equal(specs.house_style!.mode, "auto");
    assert.deepEqual(specs.house_style!.inputSchema, { type: "object", properties: {}, additionalProperties: false });
    assert.equal(specs.ping!.task, "none");
  }));

test("context, completion and none tools answer their text", () =>
  withClient(async (c) => {
    assert.equal((await c.call("policies")).text, "Always cite sources.");
    assert.equal((await c.call("ticket")).text, "Ticket #123 is still open.");
    assert.equal((await c.call("search", { q: "go" })).text, "Results for go");
    assert.equal((await c.call("ping")).text, "pong");
  }));

test("evaluation tools answer {is_valid, score, feedback}, structured and as text; a non-finite score is a fault", () =>
  withClient(async (c) => {
    const bad = await c.call("grounded", { answer: "" });
    assert.deepEqual(bad.result.structured, { is_valid: false, score: 0, feedback: "Answer is empty." });
    assert.deepEqual(JSON.parse(bad.text), bad.result.structured);
    const good = await c.call("grounded", { answer: "42" });
    assert.deepEqual(good.result.structured, { is_valid: true, score: 1, feedback: null });
    await assert.rejects(c.call("broken_judge"), (e: unknown) => e instanceof GrpcError && e.codeName === "INTERNAL" && /not a finite number/.test(e.message));
  }));

test("post tools run and answer one empty text block", () =>
  withClient(async (c) => {
    posted = [];
    const out = await c.call("audit", { answer: "the answer" });
    assert.deepEqual(out.result.content, [{ type: "text", text: "" }]);
    assert.deepEqual(posted, ["the answer"]);
  }));

test("skill tools answer their SKILL.md; one naming another skill is a fault", () =>
  withClient(async (c) => {
    assert.equal((await c.call("style")).text, skillMd("style"));
    assert.equal((await c.call("house_style")).text, skillMd("house-style"));
    await assert.rejects(c.call("bad_skill"), /INTERNAL.*its SKILL.md names the skill "other"; the tool serves the skill "bad-skill"/);
    const args = await c.call("style", { x: 1 });
    assert.equal(args.result.isError, true);
    assert.match(args.text, /takes no arguments/);
  }));

test("Evaluation.valid and Evaluation.invalid", () => {
  assert.deepEqual(Evaluation.valid(0.9), { is_valid: true, score: 0.9, feedback: null });
  assert.deepEqual(Evaluation.invalid(0.1, "cite"), { is_valid: false, score: 0.1, feedback: "cite" });
});

test("a ToolError from any helper's handler is an error result", async () => {
  const b = new Toolbox("errs").addGroup(
    { name: "errs" },
    contextTool({ name: "ctx", description: "d", kind: "read", handler: () => { throw new ToolError("no context today"); } }),
    evaluationTool({ name: "ev", description: "d", kind: "read", handler: () => { throw new ToolError("cannot judge"); } }),
  );
  const c = await connect(b);
  try {
    for (const [name, msg] of [["ctx", "no context today"], ["ev", "cannot judge"]]) {
      const out = await c.call(name!);
      assert.equal(out.result.isError, true);
      assert.equal(out.text, msg);
    }
  } finally {
    await c.close();
  }
});

test("what each helper refuses when declared, naming the tool", () => {
  const cases: [() => Tool, RegExp][] = [
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    [() => tool({ name: "c", description: "d", kind: "read", task: "context", handler: () => "" } as any), /tool "c": its task is context: declare it with contextTool/],
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    [() => tool({ name: "s", description: "d", kind: "read", task: "skill", handler: () => "" } as any), /tool "s": its task is skill: declare it with skillTool/],
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    [() => contextTool({ name: "c", description: "d", kind: "read", task: "evaluation", handler: () => "" } as any), /contextTool declares a context tool, and the spec says evaluation/],
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    [() => contextTool({ name: "c", description: "d", kind: "read", output: z.object({}), handler: () => "" } as any), /a context tool's result is fixed by contextTool; drop the output schema/],
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    [() => tool({ name: "m", description: "d", kind: "read", mode: "auto", handler: () => "" } as any), /tool "m": mode "auto" is for skill tools only, and the task is completion/],
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    [() => postTool({ name: "u", description: "d", kind: "act", asUserMessage: true, handler: () => undefined } as any), /tool "u": as_user_message is for context tools only, and the task is post_tool/],
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    [() => skillTool({ name: "k", description: "d", kind: "read", handler: () => "" } as any), /tool "k": skillTool needs a mode/],
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    [() => skillTool({ name: "k", description: "d", kind: "read", mode: "sometimes", handler: () => "" } as any), /tool "k": unknown skill mode "sometimes": always-on or auto/],
    [() => skillTool({ name: "k", description: " ", kind: "read", mode: "auto", handler: () => "" }), /tool "k": a skill tool needs a description/],
    [() => skillText({ name: "k", kind: "read", mode: "auto", text: skillMd("j") }), /tool "k": its SKILL.md names the skill "j"; the tool serves the skill "k"/],
    [() => skillText({ name: "k", kind: "read", mode: "auto", text: "no front matter" }), /tool "k": its SKILL.md text: no front matter/],
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    [() => tool({ name: "n", description: "d", handler: () => "" } as any), /tool "n": declares no kind: read, write or act/],
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    [() => tool({ name: "n", description: "d", kind: "delete", handler: () => "" } as any), /tool "n": unknown kind "delete"/],
    [() => tool({ name: "bad name", description: "d", kind: "read", handler: () => "" }), /tool name "bad name": use letters, digits, '_' and '-' \(1 to 128\)/],
    [() => tool({ name: "x".repeat(129), description: "d", kind: "read", handler: () => "" }), /use letters, digits, '_' and '-' \(1 to 128\)/],
  ];
  for (const [declare, want] of cases) assert.throws(declare, want);
  assert.doesNotThrow(() => tool({ name: "A-b_9", description: "d", kind: "act", handler: () => "" }));
  assert.doesNotThrow(() => tool({ name: "x".repeat(128), description: "d", kind: "write", handler: () => "" }));
});
