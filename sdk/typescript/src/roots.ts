// Confinement of the paths a tool takes to the folders the host serves
// (sdk/roots in the Go module).
//
// A path is first resolved, for the check and for messages: made absolute
// (a relative path against the first root), every symlink followed, and the
// result must lie inside a root (reads may go outside with readOutside;
// writes never). Then the access itself is made beneath the root, without
// trusting that check: Node cannot call openat2(RESOLVE_BENEATH), so the kit
// walks the path one component at a time from the root's directory, each
// step looked up by the kernel inside the directory the previous step
// opened (through its /proc/self/fd/N entry, which names that open
// directory, not a path), with O_NOFOLLOW: the kernel never follows a
// symlink. The walk reads each symlink it meets and resolves it itself,
// refusing a ".." above the root and an absolute target outside it. The
// file opened is then checked once more through /proc/self/fd: its path
// must be inside the root. docs/plugins-typescript.md says what that
// guarantees. Linux only (it needs /proc/self/fd).

import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import { randomBytes } from "node:crypto";
import { ToolError, fileChange, type FileChange } from "./result.js";
import { q } from "./validate.js";

const C = fs.constants;

/** The symlinks followed in one path at most, as the kernel's limit. */
const MAX_LINKS = 40;

/** How often an access is walked again when a symlink is swapped in between its walk and its open. */
const RETRIES = 3;

/**
 * OutsideError is the error for a path outside the served folders (or one
 * that leaves its folder while it is reached). It is a ToolError: thrown
 * from a handler, the model gets its message.
 */
export class OutsideError extends ToolError {
  /** The path as the caller gave it. */
  readonly path: string;
  /** The absolute path with symlinks followed; "" when not resolved. */
  readonly resolved: string;
  readonly roots: string[];

  constructor(p: string, resolved: string, roots: string[], why?: string) {
    let msg = roots.length === 0
      ? `path ${q(p)} is outside the served folders (none are served)`
      : `path ${q(p)} is outside the served folders (${roots.join(", ")})`;
    if (why) msg += `; ${why}`;
    else if (resolved !== "" && resolved !== lexical(p, roots)) msg += `; it resolves to ${q(resolved)} through a symlink`;
    super(msg);
    this.name = "OutsideError";
    this.path = p;
    this.resolved = resolved;
    this.roots = roots;
  }
}

/**
 * PathError is a file-system error of an access through Roots that the
 * model can act on (no such file, not a directory, not a regular file...),
 * with Node's error code (ENOENT, ENOTDIR, EISDIR, ...) and the path as the
 * model gave it, relative to the first root.
 */
export class PathError extends ToolError {
  readonly code: string;
  readonly path: string;

  constructor(op: string, shown: string, code: string, reason: string) {
    super(`${op} ${q(shown)}: ${reason}`);
    this.name = "PathError";
    this.code = code;
    this.path = shown;
  }
}

const reasons: Record<string, string> = {
  ENOENT: "no such file or directory",
  ENOTDIR: "not a directory",
  EISDIR: "is a directory",
  ELOOP: "too many levels of symbolic links",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENAMETOOLONG: "file name too long",
  EEXIST: "file exists",
  ENOTEMPTY: "directory not empty",
};

/** asPathError turns the fs errors a model can act on into PathErrors; others are rethrown as they are. */
function asPathError(e: unknown, op: string, shown: string): unknown {
  const code = (e as NodeJS.ErrnoException)?.code;
  if (code && reasons[code] && !(e instanceof ToolError)) return new PathError(op, shown, code, reasons[code]);
  return e;
}

/** A served folder and the identity of the directory it was when the Roots were made. */
interface Root {
  path: string;
  dev: number;
  ino: number;
}

/** Options of a confined read. */
export interface ReadOptions {
  /** Refuse a file larger than this many bytes (a PathError with code EFBIG). */
  maxBytes?: number;
}

/** Options of a confined atomic write. */
export interface WriteOptions {
  /** Create the missing folders up to the file (mode 0755 before the umask). Default false. */
  mkdir?: boolean;
  /** The file's mode; default: the replaced file's, or 0644 before the umask for a new one. */
  mode?: number;
}

/**
 * Roots is the set of served folders of a host context, which confines the
 * paths a tool takes to them. It holds no open file; it is immutable.
 */
export class Roots {
  readonly #roots: Root[];
  /** Reads may leave the roots; writes never do. */
  readonly readOutside: boolean;

  /**
   * Each folder must be an absolute path to an existing directory with no
   * symlink in it, as the host sends them (resolved): a folder that now
   * resolves elsewhere is refused (it was replaced by a link since). With
   * readOutside, reads accept any path. An empty list serves nothing: only
   * absolute reads with readOutside succeed. Throws when /proc/self/fd is
   * missing (not Linux), which the confinement needs.
   */
  constructor(dirs: readonly string[], readOutside = false) {
    this.readOutside = readOutside;
    this.#roots = dirs.map((d) => {
      if (!path.isAbsolute(d)) throw new Error(`served folder ${q(d)}: not an absolute path`);
      const clean = cleanAbs(d);
      let real: string;
      try {
        real = fs.realpathSync.native(clean);
      } catch (e) {
        throw new Error(`served folder ${q(d)}: ${(e as Error).message}`);
      }
      if (real !== clean) {
        throw new ToolError(`served folder ${q(d)}: the served folder changed: it now resolves to ${q(real)} through a symbolic link; restart the server to serve it anew`);
      }
      const st = fs.statSync(real);
      if (!st.isDirectory()) throw new Error(`served folder ${q(d)}: not a directory`);
      const root = { path: real, dev: st.dev, ino: st.ino };
      probeProc(root);
      return root;
    });
  }

  /** The served folders, resolved, in the host's order. */
  list(): string[] {
    return this.#roots.map((r) => r.path);
  }

  /** resolveRead resolves a path to read: the absolute path with symlinks followed, inside the roots or, with readOutside, anywhere. The path need not exist. Throws OutsideError. */
  resolveRead(p: string): string {
    return this.#resolve(p, this.readOutside);
  }

  /** resolveWrite resolves a path to write, always inside the roots; a dangling symlink counts by its target. Throws OutsideError. */
  resolveWrite(p: string): string {
    return this.#resolve(p, false);
  }

  /** read resolves a path to read into a Target, whose accesses are confined at the moment they are made. */
  read(p: string): Target {
    return this.#target(this.resolveRead(p));
  }

  /** write resolves a path to write into a Target, which is always inside a root. */
  write(p: string): Target {
    return this.#target(this.resolveWrite(p));
  }

  /** open opens the file at p for reading, confined (see Target.open). */
  async open(p: string): Promise<fsp.FileHandle> {
    return this.read(p).open();
  }

  /** readFile reads the regular file at p, confined (see Target.readFile). */
  async readFile(p: string, opts?: ReadOptions): Promise<Buffer> {
    return this.read(p).readFile(opts);
  }

  /** readText reads the regular file at p as UTF-8 text, confined (see Target.readText). */
  async readText(p: string, opts?: ReadOptions): Promise<string> {
    return this.read(p).readText(opts);
  }

  /** writeFile replaces the file at p atomically, confined, and returns the change (see Target.writeFile). */
  async writeFile(p: string, data: string | Uint8Array, opts?: WriteOptions): Promise<FileChange> {
    return this.write(p).writeFile(data, opts);
  }

  /** root returns the first served folder containing abs (an absolute resolved path); a folder contains itself. */
  root(abs: string): string | undefined {
    return this.#roots.find((r) => within(r.path, abs))?.path;
  }

  /**
   * rel is the path to show for abs, an absolute resolved path: relative to
   * the first root when inside it ("." for the root itself), else absolute
   * (a relative path always means the first root).
   */
  rel(abs: string): string {
    const first = this.#roots[0];
    if (first && within(first.path, abs)) return path.relative(first.path, abs) || ".";
    return abs;
  }

  #resolve(p: string, anywhere: boolean): string {
    if (p === "") throw new ToolError("empty path: give a file or folder path");
    if (p.includes("\0")) throw new ToolError(`path ${q(p)} contains a NUL byte`);
    const abs = lexical(p, this.list());
    if (abs === "") throw new OutsideError(p, "", this.list());
    const real = follow(abs);
    if (!anywhere && this.root(real) === undefined) throw new OutsideError(p, real, this.list());
    return real;
  }

  #target(abs: string): Target {
    const root = this.#roots.find((r) => within(r.path, abs));
    return new Target(abs, this.rel(abs), root);
  }
}

/**
 * Target is a resolved path, and the way to reach it: every access walks it
 * again beneath its served folder (see the top of this file), so it stays
 * inside that folder whatever changed on disk since the path was resolved.
 * A Target outside the roots (a read with readOutside) is read by its
 * absolute name, and never written.
 */
export class Target {
  /** The resolved absolute path, to show and to record. */
  readonly abs: string;
  /** The path to show the model: relative to the first root when inside it. */
  readonly shown: string;
  readonly #root: Root | undefined;

  /** Made by Roots.read and Roots.write. */
  constructor(abs: string, shown: string, root: Root | undefined) {
    this.abs = abs;
    this.shown = shown;
    this.#root = root;
  }

  /** Whether the Target lies inside a served folder (else it is a read outside them). */
  get inside(): boolean {
    return this.#root !== undefined;
  }

  /** The served folder holding the Target; undefined outside. */
  get root(): string | undefined {
    return this.#root?.path;
  }

  /**
   * open opens the Target for reading (O_NONBLOCK: a FIFO or device does
   * not block the open; check the handle's stat() before reading). Inside
   * a root it is reached by the confined walk and checked after opening.
   */
  async open(): Promise<fsp.FileHandle> {
    try {
      if (!this.#root) return await fsp.open(this.abs, C.O_RDONLY | C.O_NONBLOCK);
      return await openBeneath(this.#root, path.relative(this.#root.path, this.abs), this.shown);
    } catch (e) {
      throw asPathError(e, "open", this.shown);
    }
  }

  /** readFile reads the Target, which must be a regular file, whole. */
  async readFile(opts: ReadOptions = {}): Promise<Buffer> {
    const fh = await this.open();
    try {
      const st = await fh.stat();
      if (st.isDirectory()) throw new PathError("read", this.shown, "EISDIR", "is a directory");
      if (!st.isFile()) throw new PathError("read", this.shown, "EINVAL", "not a regular file");
      if (opts.maxBytes !== undefined && st.size > opts.maxBytes) {
        throw new PathError("read", this.shown, "EFBIG", `the file is ${st.size} bytes, more than ${opts.maxBytes}`);
      }
      return await fh.readFile();
    } catch (e) {
      throw asPathError(e, "read", this.shown);
    } finally {
      await fh.close();
    }
  }

  /** readText reads the Target as UTF-8 text; a file that is not UTF-8 is a PathError (code EILSEQ). */
  async readText(opts: ReadOptions = {}): Promise<string> {
    const b = await this.readFile(opts);
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(b);
    } catch {
      throw new PathError("read", this.shown, "EILSEQ", "not UTF-8 text");
    }
  }

  /**
   * writeFile replaces the Target's content with data atomically: a
   * temporary file is created beside it (O_EXCL, O_NOFOLLOW) in the
   * directory the confined walk reached, written, synced, and renamed over
   * the Target, and the directory synced; a reader sees the old content or
   * the new, never a part. A symlink in the Target's place is replaced, not
   * followed out. It returns the FileChange to put in the call's result.
   * Only Targets inside a root are written.
   */
  async writeFile(data: string | Uint8Array, opts: WriteOptions = {}): Promise<FileChange> {
    if (!this.#root) throw new OutsideError(this.shown, this.abs, [], "writes stay inside the served folders");
    const rel = path.relative(this.#root.path, this.abs);
    if (rel === "") throw new PathError("write", this.shown, "EISDIR", "is a served folder itself, not a file in one");
    try {
      return await writeBeneath(this.#root, rel, this.shown, typeof data === "string" ? Buffer.from(data) : data, opts);
    } catch (e) {
      throw asPathError(e, "write", this.shown);
    }
  }
}

// --- resolving --------------------------------------------------------------

function cleanAbs(p: string): string {
  const n = path.normalize(p);
  return n.length > 1 ? n.replace(/\/+$/, "") : n;
}

/** lexical makes p absolute against the first root, without touching the file system; "" when p is relative and no root is served. */
function lexical(p: string, roots: readonly string[]): string {
  if (path.isAbsolute(p)) return cleanAbs(p);
  if (roots.length === 0) return "";
  return cleanAbs(path.join(roots[0]!, p));
}

/** within reports whether p is root or beneath it. */
function within(root: string, p: string): boolean {
  if (p === root) return true;
  const prefix = root.endsWith("/") ? root : root + "/";
  return p.startsWith(prefix);
}

function split(p: string): string[] {
  return p.split("/").filter((c) => c !== "" && c !== ".");
}

/**
 * follow resolves every symlink in abs, a clean absolute path, one
 * component at a time. Unlike realpath it succeeds for a path that does not
 * exist: from the first component that cannot be read on, the rest is
 * joined lexically, and a dangling link is replaced by its target.
 */
function follow(abs: string): string {
  let resolved = "/";
  let rest = split(abs);
  let links = 0;
  while (rest.length > 0) {
    const c = rest.shift()!;
    if (c === "..") {
      resolved = path.dirname(resolved);
      continue;
    }
    const next = path.join(resolved, c);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(next);
    } catch {
      return cleanAbs(path.join(next, ...rest));
    }
    if (!st.isSymbolicLink()) {
      resolved = next;
      continue;
    }
    if (++links > MAX_LINKS) throw new PathError("resolve", abs, "ELOOP", "too many levels of symbolic links");
    const target = fs.readlinkSync(next);
    if (path.isAbsolute(target)) resolved = "/";
    rest = [...split(target), ...rest];
  }
  return resolved;
}

// --- the confined walk --------------------------------------------------------

/** fdPath is the /proc/self/fd path of fd, or of name inside the directory open as fd. */
function fdPath(fd: number, name?: string): string {
  return name === undefined ? `/proc/self/fd/${fd}` : `/proc/self/fd/${fd}/${name}`;
}

/** probeProc checks, once per root, that /proc/self/fd names open directories as the walk needs. */
function probeProc(root: Root): void {
  const fd = fs.openSync(root.path, C.O_RDONLY | C.O_DIRECTORY);
  try {
    if (fs.readlinkSync(fdPath(fd)) !== root.path) throw new Error("it names another path");
  } catch (e) {
    throw new Error(`served folder ${q(root.path)}: confining paths needs Linux's /proc/self/fd: ${(e as Error).message}`);
  } finally {
    fs.closeSync(fd);
  }
}

/** openRoot opens the served folder, which must still be the directory it was when the Roots were made. */
function openRoot(root: Root): number {
  let fd: number;
  try {
    fd = fs.openSync(root.path, C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW);
  } catch (e) {
    throw new ToolError(`served folder ${q(root.path)}: the served folder changed (${(e as Error).message}); restart the server to serve it anew`);
  }
  const st = fs.fstatSync(fd);
  if (st.dev !== root.dev || st.ino !== root.ino) {
    fs.closeSync(fd);
    throw new ToolError(`served folder ${q(root.path)}: the served folder changed: another directory is in its place; restart the server to serve it anew`);
  }
  return fd;
}

/** The outcome of a walk: the open directories from the root down, and the final entry's name in the last one. */
interface Walked {
  /** Open directory descriptors, the root first; the caller closes them with closeAll. */
  fds: number[];
  /** The names of fds[1:] in their parents. */
  names: string[];
  /** The final entry, not a symlink when the walk returned (undefined: the last directory itself). */
  name: string | undefined;
}

/** Test hooks: called with the walk's state at points where another program could change the tree. Not part of the API. */
export const walkHooks: { afterStep?: (dirPath: string) => void; beforeOpen?: (dirPath: string) => void } = {};

function closeAll(fds: number[]): void {
  for (const fd of fds) fs.closeSync(fd);
}

/**
 * walk reaches rel beneath root one component at a time, each looked up in
 * the directory the step before opened, with O_NOFOLLOW. It resolves
 * symlinks itself: a relative target goes on from the link's directory, an
 * absolute one must lie in the root (the walk goes on from the root), and a
 * ".." pops the last directory, never above the root. With mkdir, a missing
 * directory on the way is created. The final component is left unopened;
 * a symlink there is followed likewise.
 */
function walk(root: Root, rel: string, shown: string, mkdir: boolean): Walked {
  const fds = [openRoot(root)];
  const names: string[] = [];
  let queue = split(rel);
  let links = 0;
  const escape = (why: string) => new OutsideError(shown, "", [root.path], why);
  const followLink = (at: string) => {
    const target = fs.readlinkSync(at);
    if (++links > MAX_LINKS) throw new PathError("open", shown, "ELOOP", "too many levels of symbolic links");
    if (!path.isAbsolute(target)) return split(target);
    const parts = split(target);
    const base = split(root.path);
    if (!base.every((c, i) => parts[i] === c)) throw escape(`a symbolic link on the way points to ${q(target)}, outside ${q(root.path)}`);
    closeAll(fds.splice(1));
    names.length = 0;
    return parts.slice(base.length);
  };
  try {
    for (;;) {
      if (queue.length === 0) return { fds, names, name: undefined };
      const c = queue.shift()!;
      const top = fds[fds.length - 1]!;
      if (c === "..") {
        if (fds.length === 1) throw escape(`it leaves ${q(root.path)} through ".."`);
        fs.closeSync(fds.pop()!);
        names.pop();
        continue;
      }
      const at = fdPath(top, c);
      if (queue.length === 0) {
        let target: string[] | undefined;
        try {
          target = followLink(at);
        } catch (e) {
          // EINVAL: not a symlink; ENOENT: not there (yet). Either is the final entry.
          const code = (e as NodeJS.ErrnoException).code;
          if (code !== "EINVAL" && code !== "ENOENT") throw e;
        }
        if (target === undefined) return { fds, names, name: c };
        queue = target;
        continue;
      }
      let fd: number;
      try {
        fd = fs.openSync(at, C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === "ELOOP" || code === "ENOTDIR") {
          // O_NOFOLLOW met a symlink (ENOTDIR is what O_DIRECTORY says first).
          let target: string[];
          try {
            target = followLink(at);
          } catch (e2) {
            if ((e2 as NodeJS.ErrnoException).code === "EINVAL") throw e; // not a link: the open's own error
            throw e2;
          }
          queue = [...target, ...queue];
          continue;
        }
        if (code === "ENOENT" && mkdir) {
          try {
            fs.mkdirSync(at, 0o755);
          } catch (e2) {
            if ((e2 as NodeJS.ErrnoException).code !== "EEXIST") throw e2;
          }
          queue.unshift(c); // open it, whatever is there now
          continue;
        }
        throw e;
      }
      fds.push(fd);
      names.push(c);
      walkHooks.afterStep?.(path.join(root.path, ...names));
    }
  } catch (e) {
    closeAll(fds);
    throw e;
  }
}

/** checkInside refuses fd, just opened, unless the kernel's path of it lies inside root. */
function checkInside(fd: number, root: Root, shown: string): void {
  const real = fs.readlinkSync(fdPath(fd)).replace(/ \(deleted\)$/, "");
  if (!within(root.path, real)) {
    throw new OutsideError(shown, real, [root.path], `it was reached at ${q(real)}: a folder on the way was moved out while it was opened`);
  }
}

/** openBeneath opens rel beneath root for reading, by the confined walk, and checks the opened file's path. */
async function openBeneath(root: Root, rel: string, shown: string): Promise<fsp.FileHandle> {
  for (let attempt = 0; ; attempt++) {
    const w = walk(root, rel, shown, false);
    try {
      const dir = w.fds[w.fds.length - 1]!;
      walkHooks.beforeOpen?.(path.join(root.path, ...w.names));
      let fh: fsp.FileHandle;
      try {
        fh = await fsp.open(fdPath(dir, w.name ?? "."), C.O_RDONLY | C.O_NONBLOCK | C.O_NOFOLLOW);
      } catch (e) {
        // A symlink swapped in after the walk looked: walk again, which follows it, confined.
        if ((e as NodeJS.ErrnoException).code === "ELOOP" && attempt < RETRIES) continue;
        throw e;
      }
      try {
        checkInside(fh.fd, root, shown);
      } catch (e) {
        await fh.close();
        throw e;
      }
      return fh;
    } finally {
      closeAll(w.fds);
    }
  }
}

/** writeBeneath writes rel beneath root atomically (see Target.writeFile). */
async function writeBeneath(root: Root, rel: string, shown: string, data: Uint8Array, opts: WriteOptions): Promise<FileChange> {
  for (let attempt = 0; ; attempt++) {
    const w = walk(root, rel, shown, opts.mkdir ?? false);
    try {
      if (w.name === undefined) throw new PathError("write", shown, "EISDIR", "is a directory");
      const dir = w.fds[w.fds.length - 1]!;
      const name = w.name;
      walkHooks.beforeOpen?.(path.join(root.path, ...w.names));
      checkInside(dir, root, shown);
      let before: Buffer | null = null;
      let mode = opts.mode;
      try {
        const fh = await fsp.open(fdPath(dir, name), C.O_RDONLY | C.O_NONBLOCK | C.O_NOFOLLOW);
        try {
          const st = await fh.stat();
          if (st.isDirectory()) throw new PathError("write", shown, "EISDIR", "is a directory");
          if (!st.isFile()) throw new PathError("write", shown, "EINVAL", "not a regular file");
          before = await fh.readFile();
          mode ??= st.mode & 0o7777;
        } finally {
          await fh.close();
        }
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === "ELOOP" && attempt < RETRIES) continue;
        if (code !== "ENOENT") throw e;
      }
      const tmp = `.${name}.${randomBytes(6).toString("hex")}.tmp`;
      const th = await fsp.open(fdPath(dir, tmp), C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, mode ?? 0o644);
      try {
        await th.writeFile(data);
        if (mode !== undefined) await th.chmod(mode);
        await th.sync();
        await th.close();
        fs.renameSync(fdPath(dir, tmp), fdPath(dir, name));
      } catch (e) {
        await th.close().catch(() => undefined);
        fs.rmSync(fdPath(dir, tmp), { force: true });
        throw e;
      }
      fs.fsyncSync(dir);
      return fileChange(path.join(root.path, ...w.names, name), before, Buffer.from(data));
    } finally {
      closeAll(w.fds);
    }
  }
}
