// The plain data of the plugin contract (proto/ramabana/plugin/v1/plugin.proto),
// in TypeScript's idiom: what a plugin describes and what the host tells it.

/** A JSON Schema, as a JSON object. */
export type JsonSchema = { [key: string]: unknown };

/**
 * What a tool does, which decides when the host mounts it and its default
 * MCP hints: "read" tools only read (always mounted; read-only and
 * idempotent), "write" tools change files or state (mounted with --write;
 * destructive), "act" tools act without writing the served files (always
 * mounted). Every tool must say one: the host refuses a plugin with a tool
 * of no kind.
 */
export type Kind = "read" | "write" | "act";

/**
 * The agent task a tool serves (docs/agent-tasks.md): "completion" (the
 * default) is offered to the model; "context" builds the prompt;
 * "evaluation" judges each final answer; "post_tool" runs on each final
 * answer; "skill" holds instructions; "none" is never used by agents.
 */
export type Task = "completion" | "context" | "evaluation" | "post_tool" | "skill" | "none";

/** When an agent loads a skill tool's text: into every run ("always-on") or when the model asks ("auto"). */
export type SkillMode = "always-on" | "auto";

/**
 * When the host mounts a group: "default" unless the user opts out,
 * "opt-in" only when named in --groups, "legacy" only when no agent is
 * configured (its tools are then deprecated in favour of replacedBy).
 */
export type GroupMode = "default" | "opt-in" | "legacy";

/** Overrides of the MCP hints a tool's kind gives; an absent field keeps the derived hint. */
export interface Annotations {
  readOnly?: boolean;
  destructive?: boolean;
  idempotent?: boolean;
  openWorld?: boolean;
}

/**
 * One tool as a plugin describes it. The kit builds these from the tool
 * helpers (tool, contextTool, ...); the test harness gives them back as the
 * host received them.
 */
export interface ToolSpec {
  /** Unique across every mounted group: 1 to 128 letters, digits, '_' and '-'. */
  name: string;
  /** A short human-readable title; may be empty. */
  title: string;
  /** The text a model reads to decide how to call the tool. */
  description: string;
  /** JSON Schema of the arguments; its root has "type": "object". */
  inputSchema: JsonSchema;
  /** Optional JSON Schema of the structured result; its root has "type": "object". */
  outputSchema?: JsonSchema;
  kind: Kind;
  annotations: Annotations;
  task: Task;
  /** Context tools only: the text goes into a user message, not the system prompt. */
  asUserMessage: boolean;
  /** Skill tools only. */
  mode?: SkillMode;
}

/** A set of tools that the user opts in or out of as one. */
export interface GroupSpec {
  /** Lower-case letters, digits and '-'. */
  name: string;
  /** One line. */
  description?: string;
  /** When the host mounts the group; "default" when absent. */
  mode?: GroupMode;
  /** For legacy groups: what replaces them (a group or tool name). */
  replacedBy?: string;
  /**
   * The group's read and write tools keep what they are given on this
   * machine. A privilege the host grants only to the groups its own binary
   * serves: from a plugin it is ignored.
   */
  localData?: boolean;
}

/** A group with its tools, as described. */
export interface DescribedGroup {
  name: string;
  description: string;
  mode: GroupMode;
  replacedBy: string;
  localData: boolean;
  tools: ToolSpec[];
}

/** What a plugin serves: its name, version, one-line description and groups. */
export interface Description {
  /** Lower-case letters, digits and '-'; the plugin is installed as ramabana-plugin-<name>. */
  name: string;
  version: string;
  description: string;
  groups: DescribedGroup[];
}

/**
 * What the host tells a plugin in Describe about the session it serves. A
 * plugin keeps it for the calls of that process.
 */
export interface HostContext {
  /** The served folders: absolute, cleaned, symlinks resolved, in --root order. */
  roots: string[];
  /** Reads may name paths outside the roots; writes never may. */
  readOutside: boolean;
  /** Tools may reach the network. */
  web: boolean;
  /** Write tools are mounted for the client. */
  write: boolean;
  /**
   * The shell group is mounted, so the user has allowed programs to run:
   * only then may a tool run a program named by the data it serves (git
   * hooks, filters, textconv, fsmonitor).
   */
  commands: boolean;
  /** The user turned the command sandbox off (--sandbox off). */
  noSandbox: boolean;
  /** The config dir (CFG), for the plugin's own settings and stores. */
  configDir: string;
  /** The host's version, for logs. */
  hostVersion: string;
}

/** hostContext is a HostContext with the fields of partial and the zero value of the rest. */
export function hostContext(partial: Partial<HostContext> = {}): HostContext {
  return {
    roots: [...(partial.roots ?? [])],
    readOutside: partial.readOutside ?? false,
    web: partial.web ?? false,
    write: partial.write ?? false,
    commands: partial.commands ?? false,
    noSandbox: partial.noSandbox ?? false,
    configDir: partial.configDir ?? "",
    hostVersion: partial.hostVersion ?? "",
  };
}
