// Roots: confinement of paths to the served folders, and the attacks on it.

import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { OutsideError, PathError, Roots, ToolError, sha256Hex } from "../src/index.js";
import { walkHooks } from "../src/roots.js";

/**
 * fixture lays out (base is returned; root is served):
 *
 *   base/root/a.txt, base/root/sub/b.txt
 *   base/root/in-link -> sub/b.txt        base/root/in-dir -> sub
 *   base/root/out-file -> base/outside/secret.txt
 *   base/root/out-dir -> base/outside     base/root/out-rel -> ../outside
 *   base/root/dangling -> base/outside/missing.txt
 *   base/root/dangling-in -> new.txt      base/root/loop -> loop
 *   base/other/c.txt (a second root)      base/outside/secret.txt, base/outside/sub/b.txt
 */
function fixture(): string {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "rmb-roots-")));
  for (const d of ["root/sub", "other", "outside/sub"]) fs.mkdirSync(path.join(base, d), { recursive: true });
  for (const f of ["root/a.txt", "root/sub/b.txt", "other/c.txt"]) fs.writeFileSync(path.join(base, f), "in:" + f + "\n");
  for (const f of ["outside/secret.txt", "outside/sub/b.txt"]) fs.writeFileSync(path.join(base, f), "SECRET\n");
  const links: Record<string, string> = {
    "in-link": "sub/b.txt",
    "in-dir": "sub",
    "out-file": path.join(base, "outside/secret.txt"),
    "out-dir": path.join(base, "outside"),
    "out-rel": "../outside",
    dangling: path.join(base, "outside/missing.txt"),
    "dangling-in": "new.txt",
    loop: "loop",
  };
  for (const [name, target] of Object.entries(links)) fs.symlinkSync(target, path.join(base, "root", name));
  return base;
}

function withFixture(fn: (base: string, root: string, r: Roots) => Promise<void> | void) {
  return async () => {
    const base = fixture();
    const root = path.join(base, "root");
    try {
      await fn(base, root, new Roots([root, path.join(base, "other")], false));
    } finally {
      walkHooks.afterStep = undefined;
      walkHooks.beforeOpen = undefined;
      fs.rmSync(base, { recursive: true, force: true });
    }
  };
}

async function refused(p: Promise<unknown>, want: new (...a: never[]) => Error = OutsideError): Promise<Error> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof want, `want ${want.name}, got ${String(err)}`);
  return err as Error;
}

test("resolve: relative paths against the first root, symlinks followed, outside refused", withFixture((base, root, r) => {
  const cases: [string, string | null][] = [
    ["a.txt", "root/a.txt"],
    ["sub/../a.txt", "root/a.txt"],
    [".", "root"],
    ["in-link", "root/sub/b.txt"],
    ["in-dir/b.txt", "root/sub/b.txt"],
    ["missing/deeper.txt", "root/missing/deeper.txt"],
    ["dangling-in", "root/new.txt"],
    [path.join(base, "other/c.txt"), "other/c.txt"],
    [path.join(root, "a.txt"), "root/a.txt"],
    ["out-file", null],
    ["out-dir/secret.txt", null],
    ["out-rel/secret.txt", null],
    ["dangling", null],
    ["../outside/secret.txt", null],
    ["sub/../../outside/secret.txt", null],
    [path.join(base, "outside/secret.txt"), null],
    ["/etc/passwd", null],
  ];
  for (const [p, want] of cases) {
    if (want === null) {
      assert.throws(() => r.resolveRead(p), OutsideError, p);
      assert.throws(() => r.resolveWrite(p), OutsideError, p);
    } else {
      assert.equal(r.resolveRead(p), path.join(base, want), p);
      assert.equal(r.resolveWrite(p), path.join(base, want), p);
    }
  }
  assert.throws(() => r.resolveRead("loop"), PathError);
  assert.throws(() => r.resolveRead(""), ToolError);
  assert.throws(() => r.resolveRead("a\0b"), ToolError);
  const err = (() => { try { r.resolveRead("out-file"); } catch (e) { return e as Error; } })()!;
  assert.match(err.message, /path "out-file" is outside the served folders .*; it resolves to ".*outside\/secret.txt" through a symlink/);
}));

test("rel and root show paths relative to the first root", withFixture((base, root, r) => {
  assert.equal(r.rel(path.join(root, "sub/b.txt")), "sub/b.txt");
  assert.equal(r.rel(root), ".");
  assert.equal(r.rel(path.join(base, "other/c.txt")), path.join(base, "other/c.txt"));
  assert.equal(r.root(path.join(base, "other/c.txt")), path.join(base, "other"));
  assert.equal(r.root(path.join(base, "rootx/a")), undefined);
  assert.deepEqual(r.list(), [root, path.join(base, "other")]);
}));

test("reads inside: files, through in-root links, and in a second root", withFixture(async (base, _root, r) => {
  assert.equal(await r.readText("a.txt"), "in:root/a.txt\n");
  assert.equal(await r.readText("in-link"), "in:root/sub/b.txt\n");
  assert.equal(await r.readText("in-dir/b.txt"), "in:root/sub/b.txt\n");
  assert.equal(await r.readText(path.join(base, "other/c.txt")), "in:other/c.txt\n");
  assert.equal((await r.readFile("a.txt")).length, 14);
  const fh = await r.open("sub/b.txt");
  assert.equal((await fh.readFile("utf8")), "in:root/sub/b.txt\n");
  await fh.close();
  assert.equal(r.read("sub/b.txt").shown, "sub/b.txt");
}));

test("read errors a model can act on are PathErrors with Node's codes", withFixture(async (_base, root, r) => {
  assert.equal((await refused(r.readText("nope.txt"), PathError) as PathError).code, "ENOENT");
  assert.equal((await refused(r.readText("sub"), PathError) as PathError).code, "EISDIR");
  assert.equal((await refused(r.readText("a.txt/x"), PathError) as PathError).code, "ENOTDIR");
  fs.writeFileSync(path.join(root, "bin"), Buffer.from([0xff, 0xfe, 0x00]));
  assert.equal((await refused(r.readText("bin"), PathError) as PathError).code, "EILSEQ");
  assert.equal((await refused(r.readText("a.txt", { maxBytes: 3 }), PathError) as PathError).code, "EFBIG");
  const e = await refused(r.readText("nope.txt"), PathError);
  assert.equal(e.message, 'open "nope.txt": no such file or directory');
}));

test("attack: a symlink pointing out of the root, to a file or a folder", withFixture(async (_base, _root, r) => {
  for (const p of ["out-file", "out-dir/secret.txt", "out-rel/secret.txt", "dangling"]) {
    await refused(r.readText(p));
    await refused(r.writeFile(p, "x"));
  }
}));

test("attack: '..' escapes, lexical and through a link", withFixture(async (_base, _root, r) => {
  for (const p of ["../outside/secret.txt", "sub/../../outside/secret.txt", "in-dir/../../outside/secret.txt"]) {
    await refused(r.readText(p));
    await refused(r.writeFile(p, "x"));
  }
}));

test("attack: an absolute path outside; reads outside only with readOutside, writes never", withFixture(async (base, root) => {
  const secret = path.join(base, "outside/secret.txt");
  const strict = new Roots([root]);
  await refused(strict.readText(secret));
  const loose = new Roots([root], true);
  assert.equal(await loose.readText(secret), "SECRET\n");
  assert.equal(await loose.readText("out-file"), "SECRET\n");
  assert.equal(loose.read(secret).inside, false);
  await refused(loose.writeFile(secret, "x"));
  await refused(loose.read(secret).writeFile("x"));
  assert.equal(fs.readFileSync(secret, "utf8"), "SECRET\n");
  const none = new Roots([]);
  await refused(none.readText("a.txt"));
}));

test("attack: a file swapped for a symlink out after the check: the open refuses it", withFixture(async (base, root, r) => {
  const t = r.read("sub/b.txt"); // checked: inside
  fs.rmSync(path.join(root, "sub/b.txt"));
  fs.symlinkSync(path.join(base, "outside/secret.txt"), path.join(root, "sub/b.txt"));
  await refused(t.readText());
  const w = r.write("a.txt");
  fs.rmSync(path.join(root, "a.txt"));
  fs.symlinkSync(path.join(base, "outside/secret.txt"), path.join(root, "a.txt"));
  await refused(w.writeFile("pwned"));
  assert.equal(fs.readFileSync(path.join(base, "outside/secret.txt"), "utf8"), "SECRET\n");
}));

test("attack: a folder on the way swapped for a symlink out after the check", withFixture(async (base, root, r) => {
  const t = r.read("sub/b.txt");
  const w = r.write("sub/b.txt");
  fs.renameSync(path.join(root, "sub"), path.join(base, "sub-moved"));
  fs.symlinkSync(path.join(base, "outside/sub"), path.join(root, "sub"));
  await refused(t.readText());
  await refused(w.writeFile("pwned"));
  // A relative link climbing out is refused the same way.
  fs.rmSync(path.join(root, "sub"));
  fs.symlinkSync("../outside/sub", path.join(root, "sub"));
  await refused(t.readText());
  await refused(w.writeFile("pwned"));
  assert.equal(fs.readFileSync(path.join(base, "outside/sub/b.txt"), "utf8"), "SECRET\n");
}));

test("attack: the swap races the walk itself (between its steps, and between the walk and the open)", withFixture(async (base, root, r) => {
  // Between the check and the last open, the file becomes a link out.
  walkHooks.beforeOpen = () => {
    walkHooks.beforeOpen = undefined;
    fs.rmSync(path.join(root, "sub/b.txt"));
    fs.symlinkSync(path.join(base, "outside/secret.txt"), path.join(root, "sub/b.txt"));
  };
  await refused(r.readText("sub/b.txt"));
  fs.rmSync(path.join(root, "sub/b.txt"));
  fs.writeFileSync(path.join(root, "sub/b.txt"), "in\n");

  // The folder the walk just opened is moved out of the root: what is
  // opened in it is outside, and the check of the opened file refuses it.
  walkHooks.afterStep = (dir) => {
    if (dir !== path.join(root, "sub")) return;
    walkHooks.afterStep = undefined;
    fs.renameSync(path.join(root, "sub"), path.join(base, "outside/moved"));
  };
  const e = await refused(r.readText("sub/b.txt"));
  assert.match(e.message, /moved out while it was opened/);

  // A write into a folder moved out between the walk and the write is refused too.
  fs.mkdirSync(path.join(root, "sub"));
  walkHooks.beforeOpen = () => {
    walkHooks.beforeOpen = undefined;
    fs.renameSync(path.join(root, "sub"), path.join(base, "outside/moved2"));
  };
  await refused(r.writeFile("sub/new.txt", "x"));
  assert.equal(fs.existsSync(path.join(base, "outside/moved2/new.txt")), false);
}));

test("a served folder replaced after the host resolved it is refused", withFixture(async (base, root, r) => {
  assert.throws(() => new Roots([path.join(root, "in-dir")]), /the served folder changed: it now resolves to/);
  assert.throws(() => new Roots(["relative/dir"]), /not an absolute path/);
  assert.throws(() => new Roots([path.join(root, "a.txt")]), /not a directory/);
  const t = r.read("a.txt");
  fs.renameSync(root, path.join(base, "root-old"));
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, "a.txt"), "other\n");
  let e = await refused(r.readText("a.txt"), ToolError);
  assert.match(e.message, /the served folder changed: another directory is in its place/);
  fs.rmSync(root, { recursive: true });
  fs.symlinkSync(path.join(base, "outside"), root);
  await refused(r.readText("secret.txt")); // resolves outside
  fs.writeFileSync(path.join(base, "outside/a.txt"), "SECRET\n");
  e = await refused(t.readText(), ToolError); // resolved before: the open refuses the link
  assert.match(e.message, /the served folder changed/);
}));

test("writeFile: atomic replace, mode kept, FileChange, mkdir, links inside followed", withFixture(async (_base, root, r) => {
  fs.chmodSync(path.join(root, "a.txt"), 0o600);
  const ch = await r.writeFile("a.txt", "new\n");
  assert.equal(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "new\n");
  assert.equal(fs.statSync(path.join(root, "a.txt")).mode & 0o777, 0o600);
  assert.deepEqual(ch, {
    path: path.join(root, "a.txt"),
    beforeSha256: sha256Hex(Buffer.from("in:root/a.txt\n")),
    afterSha256: sha256Hex(Buffer.from("new\n")),
    before: Buffer.from("in:root/a.txt\n"),
    after: Buffer.from("new\n"),
  });
  assert.deepEqual(fs.readdirSync(root).filter((n) => n.endsWith(".tmp")), []);

  await refused(r.writeFile("deep/er/c.txt", "c"), PathError);
  const made = await r.writeFile("deep/er/c.txt", "c", { mkdir: true });
  assert.equal(made.beforeSha256, "");
  assert.equal(fs.readFileSync(path.join(root, "deep/er/c.txt"), "utf8"), "c");

  const viaLink = await r.writeFile("in-link", "through\n");
  assert.equal(viaLink.path, path.join(root, "sub/b.txt"));
  assert.equal(fs.readFileSync(path.join(root, "sub/b.txt"), "utf8"), "through\n");
  assert.equal(fs.lstatSync(path.join(root, "in-link")).isSymbolicLink(), true);

  await r.writeFile("dangling-in", "created\n");
  assert.equal(fs.readFileSync(path.join(root, "new.txt"), "utf8"), "created\n");

  assert.equal((await refused(r.writeFile("sub", "x"), PathError) as PathError).code, "EISDIR");
  assert.equal((await refused(r.writeFile(".", "x"), PathError) as PathError).code, "EISDIR");
}));
