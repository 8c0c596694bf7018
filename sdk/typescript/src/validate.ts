// The host's checks of a description (sdk/validate.go in the Go module), in
// the same words: the Toolbox runs them when a group is added, the test
// harness on what a plugin serves over the wire. A description is accepted
// or refused by the same rules wherever it is checked.

import type { Description, DescribedGroup, ToolSpec } from "./types.js";

const nameRE = /^[a-z0-9][a-z0-9-]*$/;

/** The longest tool name a description may declare. */
export const MAX_TOOL_NAME = 128;

/** validName reports whether name is a valid plugin or group name: lower-case letters, digits and '-', not starting with '-'. */
export function validName(name: string): boolean {
  return nameRE.test(name);
}

/** validToolName reports whether name is a valid tool name: 1 to 128 letters, digits, '_' and '-'. */
export function validToolName(name: string): boolean {
  return name.length >= 1 && name.length <= MAX_TOOL_NAME && /^[A-Za-z0-9_-]+$/.test(name);
}

/** pluginNameError says what is wrong with a plugin's name, if anything. */
export function pluginNameError(name: string): string | undefined {
  return validName(name) ? undefined : `plugin name ${q(name)}: use lower-case letters, digits and '-'`;
}

/**
 * descriptionError reports the first reason the host would refuse d: a bad
 * plugin or group name, no groups, a tool declared twice, or a tool that
 * fails toolSpecError; undefined when it would accept it. The message names
 * the group and tool.
 */
export function descriptionError(d: Description): string | undefined {
  const bad = pluginNameError(d.name);
  if (bad) return bad;
  if (d.groups.length === 0) return "it describes no tool groups";
  const seen = new Map<string, string>();
  for (const g of d.groups) {
    const err = groupError(g, seen);
    if (err) return err;
  }
  return undefined;
}

/**
 * groupError checks one group, its tools' names against seen (tool name to
 * group, of the groups before it), which it extends.
 */
export function groupError(g: Pick<DescribedGroup, "name" | "tools">, seen: Map<string, string>): string | undefined {
  if (!validName(g.name)) return `group name ${q(g.name)}: use lower-case letters, digits and '-'`;
  for (const t of g.tools) {
    const other = seen.get(t.name);
    if (other !== undefined) return `tool ${q(t.name)} is declared twice (groups ${q(other)} and ${q(g.name)})`;
    seen.set(t.name, g.name);
    const err = toolSpecError(t);
    if (err) return `group ${q(g.name)}: ${err}`;
  }
  return undefined;
}

/**
 * toolSpecError reports the first reason the host would refuse the plugin
 * for this tool: a bad name, no kind, an input schema that is missing or
 * whose root is not "type": "object", or such an output schema.
 */
export function toolSpecError(s: ToolSpec): string | undefined {
  if (typeof s.name !== "string" || !validToolName(s.name)) {
    return `tool name ${q(String(s.name))}: use letters, digits, '_' and '-' (1 to ${MAX_TOOL_NAME})`;
  }
  const kind = s.kind as string | undefined;
  if (kind === undefined || kind === "" || kind === "unspecified") return `tool ${q(s.name)}: declares no kind: read, write or act`;
  if (kind !== "read" && kind !== "write" && kind !== "act") return `tool ${q(s.name)}: unknown kind ${q(kind)}: read, write or act`;
  if (s.inputSchema === undefined) return `tool ${q(s.name)}: no input schema`;
  if (!isObjectSchema(s.inputSchema)) return `tool ${q(s.name)}: input schema: the root must have "type": "object"`;
  if (s.outputSchema !== undefined && !isObjectSchema(s.outputSchema)) {
    return `tool ${q(s.name)}: output schema: the root must have "type": "object"`;
  }
  return undefined;
}

function isObjectSchema(s: unknown): boolean {
  return typeof s === "object" && s !== null && !Array.isArray(s) && (s as { type?: unknown }).type === "object";
}

const tasks = ["completion", "context", "evaluation", "post_tool", "skill", "none"];

/**
 * taskError reports why the host would leave this one tool out: an
 * unknown task or skill mode, a mode on a tool that is not a skill, or
 * asUserMessage on a tool that is not a context tool. The message names the
 * tool.
 */
export function taskError(s: Pick<ToolSpec, "name" | "task" | "mode" | "asUserMessage">): string | undefined {
  const task = (s.task as string | undefined) || "completion";
  const mode = (s.mode as string | undefined) || "";
  let err: string | undefined;
  if (!tasks.includes(task)) err = `unknown task ${q(task)}: completion, context, evaluation, post_tool, skill or none`;
  else if (mode !== "" && task !== "skill") err = `mode ${q(mode)} is for skill tools only, and the task is ${task}`;
  else if (mode !== "" && mode !== "always-on" && mode !== "auto") err = `unknown skill mode ${q(mode)}: always-on or auto`;
  else if (s.asUserMessage && task !== "context") err = `as_user_message is for context tools only, and the task is ${task}`;
  return err === undefined ? undefined : `tool ${q(s.name)}: ${err}`;
}

/** q quotes s as Go's %q does for the names these messages show. */
export function q(s: string): string {
  return JSON.stringify(s);
}
