// The plugin over real gRPC, checked by the host's own rules (the kit's
// harness, ramabana/testing.ts), as a client will see it.

import { test } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import { connect, launch } from "../ramabana/testing.js";
import { newToolbox } from "../src/plugin.js";

test("greet answers by name, or says what is wrong", async () => {
  const plugin = await connect(newToolbox(), { roots: [] });
  try {
    assert.equal(plugin.description.name, "{{NAME}}");
    assert.equal((await plugin.call("{{IDENT}}_greet", { name: "Ada" })).text, "Hello, Ada!");
    const empty = await plugin.call("{{IDENT}}_greet", { name: "" });
    assert.equal(empty.result.isError, true);
    assert.match(empty.text, /name is empty/);
  } finally {
    await plugin.close();
  }
});

test("the plugin serves as the host starts it: its own process, the token demanded", async () => {
  const plugin = await launch(process.execPath, [path.join(__dirname, "../src/main.js")]);
  try {
    await plugin.expectTokenDemanded();
    assert.equal((await plugin.call("{{IDENT}}_greet", { name: "Ada" })).text, "Hello, Ada!");
  } finally {
    await plugin.close();
  }
});
