// Schema derivation from zod, and the arguments and outputs checked against it.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Toolbox, inputSchemaOf, outputSchemaOf, saysBounds, tool, z } from "../src/index.js";
import { connect } from "../src/testing.js";

test("the input schema: root object, no extra properties, required = no default and not optional, descriptions", () => {
  const s = inputSchemaOf(
    "view",
    z.object({
      path: z.string().min(1).describe("file to show, relative to a root"),
      limit: z.int().min(1).max(2000).default(2000).describe("lines to show"),
      depth: z.int().min(0).default(2),
      raw: z.boolean().default(false).describe("show the bytes"),
      mode: z.enum(["text", "hex"]).optional().describe("how to show it"),
      tags: z.array(z.string()).max(3).optional(),
    }),
  );
  assert.deepEqual(s, {
    type: "object",
    properties: {
      path: { type: "string", minLength: 1, description: "file to show, relative to a root" },
      limit: { type: "integer", minimum: 1, maximum: 2000, default: 2000, description: "lines to show (default 2000, 1 to 2000)" },
      depth: { type: "integer", minimum: 0, default: 2, description: "(default 2, at least 0)" },
      raw: { type: "boolean", default: false, description: "show the bytes" },
      mode: { type: "string", enum: ["text", "hex"], description: "how to show it" },
      tags: { type: "array", items: { type: "string" }, maxItems: 3 },
    },
    required: ["path"],
    additionalProperties: false,
  });
  assert.equal("$schema" in s, false);
  assert.deepEqual(inputSchemaOf("none", undefined), { type: "object", properties: {}, additionalProperties: false });
});

test("saysBounds says defaults and bounds once, as the Go sdk does", () => {
  const cases: [Record<string, unknown>, string | undefined][] = [
    [{ default: 50, minimum: 1, maximum: 200 }, "(default 50, 1 to 200)"],
    [{ description: "how many", maximum: 9 }, "how many (at most 9)"],
    [{ description: "the default is 5", default: 5, minimum: 0.5 }, "the default is 5 (at least 0.5)"],
    [{ default: "auto" }, '(default "auto")'],
    [{ default: false }, undefined],
    [{ minLength: 1 }, undefined],
    [{ minLength: 3, maxLength: 80 }, "(at least 3 characters, at most 80 characters)"],
    [{ format: "email" }, "(format email)"],
    [{ maximum: 1e6 }, "(at most 1e+06)"],
    [{ minimum: 0.00001 }, "(at least 1e-05)"],
    [{ description: "n (at least 1)", minimum: 1 }, "n (at least 1)"],
  ];
  for (const [p, want] of cases) {
    saysBounds(p);
    assert.equal(p.description, want, JSON.stringify(p));
  }
});

test("the output schema is the object as sent, with its defaults required", () => {
  assert.deepEqual(outputSchemaOf("count", z.object({ words: z.int().describe("how many words"), unique: z.int().default(0) })), {
    type: "object",
    properties: {
      words: { type: "integer", description: "how many words" },
      unique: { type: "integer", default: 0, description: "(default 0)" },
    },
    required: ["words", "unique"],
    additionalProperties: false,
  });
});

test("a schema that is not a zod object, or not JSON Schema, is refused when declared, naming the tool", () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  assert.throws(() => tool({ name: "t", description: "d", kind: "read", input: z.string() as any, handler: () => "" }), /tool "t": input must be a zod object/);
  assert.throws(() => tool({ name: "t", description: "d", kind: "read", input: z.object({ when: z.date() }), handler: () => "" }), /tool "t": input schema: .*Date/);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  assert.throws(() => tool({ name: "t", description: "d", kind: "read", output: z.array(z.string()) as any, handler: () => [] }), /tool "t": the output must be a zod object/);
});

test("arguments are parsed by the input schema: defaults filled in, problems named, unknown ones refused", async () => {
  let seen: unknown;
  const box = new Toolbox("args").addGroup(
    { name: "args" },
    tool({
      name: "view",
      description: "d",
      kind: "read",
      input: z.object({ path: z.string(), limit: z.int().min(1).default(10) }),
      handler: (args) => {
        seen = args;
        return "ok";
      },
    }),
    tool({
      name: "count",
      description: "d",
      kind: "read",
      input: z.object({ bad: z.boolean().default(false) }),
      output: z.object({ words: z.int() }),
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      handler: ({ bad }) => (bad ? ({ words: "many" } as any) : { words: 3 }),
    }),
  );
  const c = await connect(box);
  try {
    assert.equal((await c.call("view", { path: "a" })).text, "ok");
    assert.deepEqual(seen, { path: "a", limit: 10 });
    const bad = await c.call("view", { path: 1, limit: 0, extra: true });
    assert.equal(bad.result.isError, true);
    assert.match(bad.text, /^invalid arguments for view: "path": .*expected string.*; "limit": .*>=1.*; Unrecognized key: "extra"$/);
    const ok = await c.call("count");
    assert.deepEqual(ok.result.structured, { words: 3 });
    assert.equal(ok.text, '{"words":3}');
    await assert.rejects(c.call("count", { bad: true }), /INTERNAL.*tool "count": its output does not match its output schema: "words"/);
  } finally {
    await c.close();
  }
});
