// A plugin for the tests that run it as the host does (a child process):
// one tool for each behaviour the tests check over real gRPC.

import { spawnSync } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { Evaluation, Toolbox, ToolError, evaluationTool, fileChange, image, log, resource, serve, tool, z } from "../src/index.js";

let cancelledSeen = 0;

const box = new Toolbox("fixture", { version: "1.2.3", description: "The kit's test plugin." });
box.addGroup(
  { name: "fixture", description: "Tools that show the kit's behaviour." },
  tool({
    name: "greet",
    description: "Greet someone.",
    kind: "read",
    input: z.object({ name: z.string().describe("who to greet") }),
    handler: ({ name }, call) => {
      call.progress(1, 2, "halfway");
      call.log("warning", "about to greet " + name);
      console.log("a stray print, which must not reach stdout");
      return `Hello, ${name}! (call ${call.id}, host ${call.host.hostVersion})`;
    },
  }),
  tool({
    name: "fail",
    description: "Fail as the model can act on, or as a fault.",
    kind: "act",
    input: z.object({ fault: z.boolean().default(false) }),
    handler: ({ fault }) => {
      if (fault) throw new TypeError("the handler broke");
      throw new ToolError("give a better argument");
    },
  }),
  tool({
    name: "wait",
    description: "Report progress until cancelled.",
    kind: "act",
    handler: async (_args, call) => {
      for (let i = 0; !call.cancelled; i++) {
        call.progress(i, 0, "waiting");
        await sleep(20);
      }
      cancelledSeen++;
      log.info("the call saw its cancellation");
      return "cancelled";
    },
  }),
  tool({
    name: "cancelled_count",
    description: "How many calls of wait saw their cancellation.",
    kind: "read",
    output: z.object({ count: z.int() }),
    handler: () => ({ count: cancelledSeen }),
  }),
  tool({
    name: "environment",
    description: "What the plugin and a program it starts see of the token.",
    kind: "read",
    output: z.object({ token: z.string().nullable(), child: z.string() }),
    handler: () => {
      const r = spawnSync(process.execPath, ["-e", "process.stdout.write(process.env.RAMABANA_PLUGIN_TOKEN ?? '')"]);
      return { token: process.env.RAMABANA_PLUGIN_TOKEN ?? null, child: r.stdout.toString() };
    },
  }),
  tool({
    name: "echo_size",
    description: "Answer as many bytes as asked, after reading the given text.",
    kind: "read",
    input: z.object({ text: z.string(), size: z.int().min(0) }),
    handler: ({ text, size }) => `${text.length}:` + "y".repeat(size),
  }),
  tool({
    name: "read_file",
    description: "Read a file under the served roots.",
    kind: "read",
    input: z.object({ path: z.string() }),
    handler: async ({ path }, call) => call.roots.readText(path),
  }),
  tool({
    name: "write_file",
    description: "Write a file under the served roots.",
    kind: "write",
    input: z.object({ path: z.string(), text: z.string() }),
    handler: async ({ path, text }, call) => {
      const change = await call.roots.writeFile(path, text, { mkdir: true });
      return { content: [{ type: "text", text: "wrote " + call.roots.rel(change.path) }], changes: [change] };
    },
  }),
  tool({
    name: "media",
    description: "Answer every kind of content.",
    kind: "read",
    annotations: { openWorld: true, idempotent: false },
    handler: () => ({
      content: [
        { type: "text", text: "t" },
        image(Buffer.from([0x89, 0x50, 0x4e, 0x47]), "image/png"),
        resource("file:///a.txt", "text/plain", "body"),
        resource("file:///b.bin", "application/octet-stream", Buffer.from([0, 1, 2])),
      ],
      changes: [fileChange("/x/y.txt", Buffer.from("old\n"), Buffer.from("new\n"))],
    }),
  }),
  evaluationTool({
    name: "judge",
    description: "Judge an answer.",
    kind: "read",
    input: z.object({ answer: z.string() }),
    handler: ({ answer }) => (answer ? Evaluation.valid(1) : Evaluation.invalid(0, "Answer is empty.")),
  }),
);

serve(box);
