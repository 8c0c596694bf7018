// The check of a skill tool's text (internal/skills in the Go module): a
// SKILL.md whose YAML front matter names the skill the tool serves (the
// tool's name in lower case, '_' as '-') and describes it.
//
// The front matter is read with a small reader of YAML's common subset, not
// a whole YAML parser: top-level `key: value` lines whose values are plain,
// 'single-' or "double-quoted" scalars on one line, plain scalars continued
// on indented lines, or `|` and `>` block scalars; nested mappings and
// lists are skipped. What it cannot read it refuses, saying so, so that no
// text the host would refuse passes here.

import { q } from "./validate.js";

/** The longest skill name and description the Agent Skills format allows. */
export const MAX_SKILL_NAME = 64;
export const MAX_SKILL_DESCRIPTION = 1024;
const MAX_COMPATIBILITY = 500;

/** skillName is the skill a skill tool serves: the tool's name in lower case with '_' as '-' (house_style serves house-style). */
export function skillName(tool: string): string {
  return tool.toLowerCase().replaceAll("_", "-");
}

/** A skill's front matter: the fields the kit checks. */
export interface SkillInfo {
  name: string;
  description: string;
}

const NESTED = Symbol("nested");
type Value = string | null | typeof NESTED;

/**
 * parseSkill reads the front matter of a SKILL.md text and checks it as the
 * host does: a valid name (lower-case letters, digits and single hyphens,
 * at most 64), a description of 1 to 1024 characters. It throws an Error
 * saying what is wrong.
 */
export function parseSkill(text: string): SkillInfo {
  text = text.replace(/^\ufeff/, "");
  const header = splitFrontMatter(text);
  if (header === undefined) {
    throw new Error('no front matter: SKILL.md must start with a line "---", then YAML, then a line "---"');
  }
  if (header.trim() === "") throw new Error("front matter is empty: name and description are required");
  const fields = readMapping(header);
  const str = (key: string): string => {
    const v = fields.get(key);
    if (v === NESTED) throw new Error(`front matter is not valid YAML: ${key} must be a string, not a mapping or list`);
    return v ?? "";
  };
  const name = str("name");
  const description = str("description").trim();
  const compatibility = str("compatibility").trim();
  if (name === "") throw new Error("name is missing");
  if (name.length > MAX_SKILL_NAME) throw new Error(`name ${q(name)} is ${name.length} characters, more than ${MAX_SKILL_NAME}`);
  if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(name)) {
    throw new Error(`name ${q(name)} is invalid: use lowercase letters, digits and single hyphens, not at the start or end`);
  }
  const n = [...description].length;
  if (n === 0) throw new Error("description is missing: say what the skill does and when to use it");
  if (n > MAX_SKILL_DESCRIPTION) throw new Error(`description is ${n} characters, more than ${MAX_SKILL_DESCRIPTION}`);
  const c = [...compatibility].length;
  if (c > MAX_COMPATIBILITY) throw new Error(`compatibility is ${c} characters, more than ${MAX_COMPATIBILITY}`);
  return { name, description };
}

/**
 * skillTextError reports why text is not what the skill tool called tool
 * must return (a SKILL.md naming the skill skillName(tool), with a
 * description), naming the tool; undefined when it is.
 */
export function skillTextError(tool: string, text: string): string | undefined {
  let info: SkillInfo;
  try {
    info = parseSkill(text);
  } catch (e) {
    return `tool ${q(tool)}: its SKILL.md text: ${(e as Error).message}`;
  }
  const want = skillName(tool);
  if (info.name !== want) return `tool ${q(tool)}: its SKILL.md names the skill ${q(info.name)}; the tool serves the skill ${q(want)}`;
  return undefined;
}

/** splitFrontMatter returns the lines between the opening "---" line and the next, or undefined. */
function splitFrontMatter(text: string): string | undefined {
  const lines = text.split("\n").map((l) => l.replace(/\r$/, ""));
  if (lines.length < 2 || !isMarker(lines[0]!)) return undefined;
  const end = lines.findIndex((l, i) => i > 0 && isMarker(l));
  return end < 0 ? undefined : lines.slice(1, end).join("\n");
}

function isMarker(line: string): boolean {
  return line.replace(/[ \t\r]+$/, "") === "---";
}

/** readMapping reads the top-level keys of the front matter. Error lines count from the file's first line. */
function readMapping(header: string): Map<string, Value> {
  const lines = header.split("\n");
  const out = new Map<string, Value>();
  const where = new Map<string, number>();
  const fail = (i: number, msg: string): never => {
    throw new Error(`front matter is not valid YAML: line ${i + 2}: ${msg}`);
  };
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (/^\s*(#.*)?$/.test(line)) {
      i++;
      continue;
    }
    if (/^[ \t]/.test(line)) fail(i, "unexpected indentation");
    const m = /^([A-Za-z0-9_.-]+)[ \t]*:(?:[ \t]+(.*))?$/.exec(line);
    if (!m) fail(i, "expected a `key: value` line");
    const key = m![1]!;
    if (where.has(key)) fail(i, `mapping key ${q(key)} already defined at line ${where.get(key)! + 2}`);
    where.set(key, i);
    const first = i;
    const rest = (m![2] ?? "").trim();
    i++;
    const block: string[] = [];
    while (i < lines.length && (lines[i]!.trim() === "" || /^[ \t]/.test(lines[i]!))) block.push(lines[i++]!);
    out.set(key, scalar(rest, block, (msg) => fail(first, msg)));
  }
  return out;
}

/** scalar reads the value that starts as rest on its key's line and goes on in the indented block lines after it. */
function scalar(rest: string, block: string[], fail: (msg: string) => never): Value {
  const more = block.filter((l) => l.trim() !== "" && !/^\s*#/.test(l));
  if (rest === "" || rest.startsWith("#")) return more.length > 0 ? NESTED : null;
  const c = rest[0]!;
  if (c === "|" || c === ">") return blockScalar(rest, block, fail);
  if (c === "[" || c === "{") return NESTED;
  if (c === '"' || c === "'") {
    if (more.length > 0) fail("a quoted value must end on its line here: write it on one line, or as a | or > block");
    const end = rest.lastIndexOf(c);
    const tail = rest.slice(end + 1).trim();
    if (end === 0 || (tail !== "" && !tail.startsWith("#"))) fail("a quoted value must end with its quote");
    const body = rest.slice(0, end + 1);
    if (c === "'") return body.slice(1, -1).replaceAll("''", "'");
    try {
      return JSON.parse(body) as string;
    } catch {
      return fail("a double-quoted value with an escape JSON does not have: use single quotes or a block");
    }
  }
  if ("@`".includes(c)) fail(`found character ${q(c)} that cannot start any token`);
  if ("&*!%".includes(c)) fail("anchors, aliases, tags and directives are not read here: write the value plainly");
  const parts = [rest, ...more.map((l) => l.trim())].map((p) => p.replace(/\s+#.*$/, ""));
  const value = parts.join(" ");
  if (/:(\s|$)/.test(value)) fail("mapping values are not allowed in this context (quote a value that holds ': ')");
  return ["null", "Null", "NULL", "~"].includes(value) ? null : value;
}

/** blockScalar reads a `|` (literal) or `>` (folded) block, with its chomping indicator. */
function blockScalar(head: string, block: string[], fail: (msg: string) => never): string {
  const m = /^([|>])([+-]?)(?:[ \t]+#.*)?$/.exec(head);
  if (!m) fail("a block scalar header is | or > with an optional + or - (no indentation indicator)");
  const lines = [...block];
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === "") lines.pop();
  const trailing = block.length - lines.length;
  const first = lines.find((l) => l.trim() !== "");
  if (first === undefined) return "";
  const indent = /^[ \t]*/.exec(first)![0].length;
  const body = lines.map((l) => (l.trim() === "" ? "" : l.slice(indent)));
  let text: string;
  if (m![1] === "|") text = body.join("\n");
  else {
    text = "";
    for (let k = 0; k < body.length; k++) {
      const l = body[k]!;
      if (k > 0) text += body[k - 1] === "" || l === "" || /^\s/.test(l) ? "\n" : " ";
      text += l;
    }
    text = text.replace(/\n\n/g, "\n");
  }
  if (m![2] === "-") return text;
  if (m![2] === "+") return text + "\n".repeat(trailing + 1);
  return text + "\n";
}
