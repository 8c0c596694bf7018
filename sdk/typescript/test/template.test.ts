// The `plugin new` template (host/internal/scaffold/templates/typescript)
// against this kit: filled in and laid out as `plugin new` lays it out, it
// type-checks and its own tests pass; and it asks npm for the packages the
// kit is tested with.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const kitDir = path.resolve(__dirname, "../..");
const templateDir = path.resolve(kitDir, "../../host/internal/scaffold/templates/typescript");

/** newPlugin writes the template for name into a fresh folder as `plugin new` does, the kit's sources in ramabana/. */
function newPlugin(name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rmb-template-"));
  const fill = (s: string) => s.replaceAll("{{NAME}}", name).replaceAll("{{IDENT}}", name.replaceAll("-", "_"));
  for (const f of fs.readdirSync(templateDir, { recursive: true, withFileTypes: true })) {
    if (!f.isFile()) continue;
    const rel = path.relative(templateDir, path.join(f.parentPath, f.name));
    const out = path.join(dir, fill(rel).replace(/\.tmpl$/, ""));
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, fill(fs.readFileSync(path.join(templateDir, rel), "utf8")));
  }
  fs.mkdirSync(path.join(dir, "ramabana"));
  for (const f of fs.readdirSync(path.join(kitDir, "src"))) fs.copyFileSync(path.join(kitDir, "src", f), path.join(dir, "ramabana", f));
  fs.symlinkSync(path.join(kitDir, "node_modules"), path.join(dir, "node_modules"));
  return dir;
}

test("the template's package.json asks for the packages the kit is tested with", () => {
  const kit = JSON.parse(fs.readFileSync(path.join(kitDir, "package.json"), "utf8"));
  const tmpl = JSON.parse(fs.readFileSync(path.join(templateDir, "package.json"), "utf8"));
  assert.deepEqual(tmpl.dependencies, kit.dependencies);
  for (const dev of ["typescript", "@types/node"]) assert.equal(tmpl.devDependencies[dev], kit.devDependencies[dev], dev);
  assert.ok(tmpl.scripts.test && tmpl.scripts.build);
});

test("a plugin new'd from the template type-checks against the kit and passes its own tests", () => {
  const dir = newPlugin("word-count");
  try {
    const tsc = path.join(kitDir, "node_modules/typescript/bin/tsc");
    const built = spawnSync(process.execPath, [tsc, "-p", dir], { encoding: "utf8" });
    assert.equal(built.status, 0, built.stdout + built.stderr);
    const tests = fs.readdirSync(path.join(dir, "build/test")).filter((f) => f.endsWith(".test.js")).map((f) => path.join(dir, "build/test", f));
    // A test runner of its own, not a child of this one's (which NODE_TEST_CONTEXT would make it).
    const env = { ...process.env };
    delete env.NODE_TEST_CONTEXT;
    const run = spawnSync(process.execPath, ["--test", ...tests], { encoding: "utf8", cwd: dir, env });
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /# pass 2\n/);
    assert.match(fs.readFileSync(path.join(dir, "src/plugin.ts"), "utf8"), /name: "word_count_greet"/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
