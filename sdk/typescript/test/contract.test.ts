// The contract the kit carries (src/contract.ts) is generated from proto/:
// these tests fail when the two drift apart.

import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { createRequire } from "node:module";
import { packageDefinition } from "../src/wire.js";

const kitDir = path.resolve(__dirname, "../..");
const protoDir = path.resolve(kitDir, "../../proto");
const gen = createRequire(__filename)(path.join(kitDir, "scripts/gen-contract.js")) as {
  generate(protoDir?: string): string;
  files: string[];
};

test("src/contract.ts is what scripts/gen-contract.js makes of proto/ (run `npm run gen` when this fails)", () => {
  const committed = fs.readFileSync(path.join(kitDir, "src/contract.ts"), "utf8");
  assert.equal(gen.generate(protoDir), committed);
});

test("a change to proto/ changes the generated contract", () => {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), "rmb-proto-"));
  try {
    fs.cpSync(protoDir, copy, { recursive: true });
    const file = path.join(copy, "ramabana/plugin/v1/plugin.proto");
    const text = fs.readFileSync(file, "utf8");
    assert.equal(gen.generate(copy), gen.generate(protoDir));
    fs.writeFileSync(file, text.replace("bool no_sandbox = 8;", "bool no_sandbox = 8;\n  string added = 9;"));
    assert.notEqual(gen.generate(copy), gen.generate(protoDir));
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
});

test("the contract holds the three services the host calls, with the methods it calls", () => {
  const methods = (name: string) => Object.keys(packageDefinition[name] as object).sort();
  assert.deepEqual(methods("ramabana.plugin.v1.ToolGroupService"), ["Call", "Describe"]);
  assert.deepEqual(methods("grpc.health.v1.Health"), ["Check", "List", "Watch"]);
  assert.deepEqual(methods("plugin.GRPCController"), ["Shutdown"]);
  const call = (packageDefinition["ramabana.plugin.v1.ToolGroupService"] as Record<string, { path: string; responseStream: boolean }>).Call!;
  assert.equal(call.path, "/ramabana.plugin.v1.ToolGroupService/Call");
  assert.equal(call.responseStream, true);
  assert.equal((packageDefinition["plugin.GRPCController"] as Record<string, { path: string }>).Shutdown!.path, "/plugin.GRPCController/Shutdown");
});
