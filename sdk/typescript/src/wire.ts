// The wire side of the contract: the gRPC service definitions loaded from
// the descriptor the kit carries (contract.ts, generated from proto/), the
// messages as @grpc/proto-loader gives them (field names as in the .proto,
// enums as their names, bytes as Buffers), and the conversions between them
// and the kit's plain types, both ways (the plugin's side and the test
// harness's host side).

import type * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { contract } from "./contract.js";
import type { Content, FileChange, Result } from "./result.js";
import type { CallEvent } from "./call.js";
import type { LogLevel } from "./log.js";
import type { Description, GroupMode, HostContext, JsonSchema, Kind, SkillMode, Task, ToolSpec } from "./types.js";
import { q } from "./validate.js";

/** The loaded contract: every message and service of the three files. */
export const packageDefinition = protoLoader.fromJSON(contract as unknown as Parameters<typeof protoLoader.fromJSON>[0], {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
});

function service(name: string): grpc.ServiceDefinition {
  const def = packageDefinition[name];
  if (!def || "format" in def) throw new Error(`the kit's contract has no service ${name}: regenerate src/contract.ts`);
  return def as grpc.ServiceDefinition;
}

/** ramabana.plugin.v1.ToolGroupService: Describe and the server-streaming Call. */
export const toolGroupService = service("ramabana.plugin.v1.ToolGroupService");
/** grpc.health.v1.Health. */
export const healthService = service("grpc.health.v1.Health");
/** go-plugin's plugin.GRPCController: Shutdown. */
export const controllerService = service("plugin.GRPCController");

/** The gRPC metadata key of the call token, and the variable the host passes it in. */
export const TOKEN_KEY = "ramabana-plugin-token";
export const TOKEN_ENV = "RAMABANA_PLUGIN_TOKEN";
/** go-plugin's handshake cookie. */
export const COOKIE_KEY = "RAMABANA_PLUGIN_MAGIC_COOKIE";
export const COOKIE_VALUE = "c2f6e5b4a1d94e0f9c7b3a8d6e2f1c0a";
/** The app protocol version of this contract, and go-plugin's core protocol version. */
export const APP_PROTOCOL_VERSION = 1;
export const CORE_PROTOCOL_VERSION = 1;
/** The gRPC message limit of both sides: 256 MiB. */
export const MAX_MESSAGE_SIZE = 256 << 20;
/** The channel and server options that raise gRPC's limits to MAX_MESSAGE_SIZE. */
export const channelOptions = {
  "grpc.max_receive_message_length": MAX_MESSAGE_SIZE,
  "grpc.max_send_message_length": MAX_MESSAGE_SIZE,
};

// --- the messages as proto-loader has them -------------------------------------

/* eslint-disable @typescript-eslint/naming-convention */
export interface WireHostContext {
  roots: string[];
  read_outside: boolean;
  web: boolean;
  config_dir: string;
  host_version: string;
  write: boolean;
  commands: boolean;
  no_sandbox: boolean;
}

export interface WireToolSpec {
  name: string;
  title: string;
  description: string;
  input_schema: Buffer;
  output_schema: Buffer;
  kind: string | number;
  annotations: { read_only?: boolean; destructive?: boolean; idempotent?: boolean; open_world?: boolean } | null;
  task: string | number;
  as_user_message: boolean;
  mode: string | number;
}

export interface WireGroup {
  name: string;
  description: string;
  mode: string | number;
  replaced_by: string;
  tools: WireToolSpec[];
  local_data: boolean;
}

export interface WireDescription {
  name: string;
  version: string;
  description: string;
  groups: WireGroup[];
}

export interface WireContent {
  text?: string;
  image?: { data: Buffer; mime_type: string };
  resource?: { uri: string; mime_type: string; text: string; blob: Buffer };
  kind?: string;
}

export interface WireFileChange {
  path: string;
  before_sha256: string;
  after_sha256: string;
  before: Buffer;
  after: Buffer;
}

export interface WireResult {
  content: WireContent[];
  structured: Buffer;
  is_error: boolean;
  changes: WireFileChange[];
}

export interface WireCallResponse {
  progress?: { progress: number; total: number; message: string };
  log?: { level: string | number; message: string };
  result?: WireResult;
  event?: string;
}
/* eslint-enable @typescript-eslint/naming-convention */

// --- enums ----------------------------------------------------------------------

const kinds: Record<Kind, string> = { read: "TOOL_KIND_READ", write: "TOOL_KIND_WRITE", act: "TOOL_KIND_ACT" };
const tasks: Record<Task, string> = {
  completion: "TOOL_TASK_COMPLETION",
  context: "TOOL_TASK_CONTEXT",
  evaluation: "TOOL_TASK_EVALUATION",
  post_tool: "TOOL_TASK_POST_TOOL",
  skill: "TOOL_TASK_SKILL",
  none: "TOOL_TASK_NONE",
};
const skillModes: Record<SkillMode, string> = { "always-on": "SKILL_MODE_ALWAYS_ON", auto: "SKILL_MODE_AUTO" };
const groupModes: Record<GroupMode, string> = { default: "GROUP_MODE_DEFAULT", "opt-in": "GROUP_MODE_OPT_IN", legacy: "GROUP_MODE_LEGACY" };
const levels: Record<LogLevel, string> = { debug: "LOG_LEVEL_DEBUG", info: "LOG_LEVEL_INFO", warning: "LOG_LEVEL_WARNING", error: "LOG_LEVEL_ERROR" };

/** fromEnum maps a wire enum value back through table; unspecified gives dflt, an unknown value its own text. */
function fromEnum<T extends string>(table: Record<T, string>, v: string | number, unspecified: string, dflt: string): string {
  if (v === unspecified || v === 0) return dflt;
  const hit = (Object.keys(table) as T[]).find((k) => table[k] === v);
  return hit ?? `unknown(${v})`;
}

// --- the plugin's side ------------------------------------------------------------

/** hostFromWire is the HostContext of a DescribeRequest's host. */
export function hostFromWire(h: Partial<WireHostContext> | null | undefined): HostContext {
  return {
    roots: [...(h?.roots ?? [])],
    readOutside: Boolean(h?.read_outside),
    web: Boolean(h?.web),
    write: Boolean(h?.write),
    commands: Boolean(h?.commands),
    noSandbox: Boolean(h?.no_sandbox),
    configDir: h?.config_dir ?? "",
    hostVersion: h?.host_version ?? "",
  };
}

/** descriptionToWire is the DescribeResponse of d. */
export function descriptionToWire(d: Description): WireDescription {
  return {
    name: d.name,
    version: d.version,
    description: d.description,
    groups: d.groups.map((g) => ({
      name: g.name,
      description: g.description,
      mode: groupModes[g.mode] ?? "GROUP_MODE_UNSPECIFIED",
      replaced_by: g.replacedBy,
      local_data: g.localData,
      tools: g.tools.map(toolToWire),
    })),
  };
}

function toolToWire(t: ToolSpec): WireToolSpec {
  const a = t.annotations ?? {};
  return {
    name: t.name,
    title: t.title,
    description: t.description,
    input_schema: Buffer.from(JSON.stringify(t.inputSchema)),
    output_schema: t.outputSchema ? Buffer.from(JSON.stringify(t.outputSchema)) : Buffer.alloc(0),
    kind: kinds[t.kind] ?? "TOOL_KIND_UNSPECIFIED",
    annotations: { read_only: a.readOnly, destructive: a.destructive, idempotent: a.idempotent, open_world: a.openWorld },
    task: tasks[t.task] ?? "TOOL_TASK_UNSPECIFIED",
    as_user_message: t.asUserMessage,
    mode: t.mode ? skillModes[t.mode] : "SKILL_MODE_UNSPECIFIED",
  };
}

/** eventToWire is the CallResponse of a progress or log event. */
export function eventToWire(ev: CallEvent): WireCallResponse {
  return ev.type === "progress"
    ? { progress: { progress: Number(ev.progress), total: Number(ev.total), message: String(ev.message) } }
    : { log: { level: levels[ev.level] ?? "LOG_LEVEL_INFO", message: String(ev.message) } };
}

/** resultToWire is the CallResponse of a result. It throws on a content block of no known type or a structured value JSON cannot carry. */
export function resultToWire(r: Result): WireCallResponse {
  const content = (r.content ?? []).map((c, i): WireContent => {
    switch (c?.type) {
      case "text":
        return { text: String(c.text) };
      case "image":
        return { image: { data: Buffer.from(c.data), mime_type: c.mimeType } };
      case "resource":
        return {
          resource: {
            uri: c.uri,
            mime_type: c.mimeType,
            text: c.text ?? "",
            blob: c.blob ? Buffer.from(c.blob) : Buffer.alloc(0),
          },
        };
    }
    throw new Error(`result content block ${i}: its type must be "text", "image" or "resource"`);
  });
  let structured = Buffer.alloc(0);
  if (r.structured !== undefined) {
    const json = JSON.stringify(r.structured);
    if (json === undefined) throw new Error("the result's structured value is not JSON");
    structured = Buffer.from(json);
  }
  const changes = (r.changes ?? []).map((ch) => ({
    path: ch.path,
    before_sha256: ch.beforeSha256,
    after_sha256: ch.afterSha256,
    before: ch.before ? Buffer.from(ch.before) : Buffer.alloc(0),
    after: ch.after ? Buffer.from(ch.after) : Buffer.alloc(0),
  }));
  return { result: { content, structured, is_error: Boolean(r.isError), changes } };
}

// --- the host's side (the test harness) ------------------------------------------------

/** hostToWire is the DescribeRequest host of h. */
export function hostToWire(h: HostContext): WireHostContext {
  return {
    roots: h.roots,
    read_outside: h.readOutside,
    web: h.web,
    config_dir: h.configDir,
    host_version: h.hostVersion,
    write: h.write,
    commands: h.commands,
    no_sandbox: h.noSandbox,
  };
}

function schemaFromWire(tool: string, which: string, b: Buffer | undefined): JsonSchema | undefined {
  if (!b || b.length === 0) return undefined;
  try {
    return JSON.parse(b.toString("utf8")) as JsonSchema;
  } catch (e) {
    throw new Error(`tool ${q(tool)}: ${which} schema is not JSON: ${(e as Error).message}`);
  }
}

/**
 * descriptionFromWire is the Description the host reads from a
 * DescribeResponse. Enum values the contract does not know read as
 * "unknown(N)", which the checks refuse. It throws on a schema that is not
 * JSON.
 */
export function descriptionFromWire(d: WireDescription): Description {
  return {
    name: d.name,
    version: d.version,
    description: d.description,
    groups: (d.groups ?? []).map((g) => ({
      name: g.name,
      description: g.description,
      mode: fromEnum(groupModes, g.mode, "GROUP_MODE_UNSPECIFIED", "default") as GroupMode,
      replacedBy: g.replaced_by,
      localData: g.local_data,
      tools: (g.tools ?? []).map((t) => {
        const spec: ToolSpec = {
          name: t.name,
          title: t.title,
          description: t.description,
          inputSchema: schemaFromWire(t.name, "input", t.input_schema) as JsonSchema,
          kind: fromEnum(kinds, t.kind, "TOOL_KIND_UNSPECIFIED", "unspecified") as Kind,
          annotations: {},
          task: fromEnum(tasks, t.task, "TOOL_TASK_UNSPECIFIED", "completion") as Task,
          asUserMessage: t.as_user_message,
        };
        const out = schemaFromWire(t.name, "output", t.output_schema);
        if (out) spec.outputSchema = out;
        const mode = fromEnum(skillModes, t.mode, "SKILL_MODE_UNSPECIFIED", "");
        if (mode) spec.mode = mode as SkillMode;
        const a = t.annotations;
        if (a?.read_only !== undefined) spec.annotations.readOnly = a.read_only;
        if (a?.destructive !== undefined) spec.annotations.destructive = a.destructive;
        if (a?.idempotent !== undefined) spec.annotations.idempotent = a.idempotent;
        if (a?.open_world !== undefined) spec.annotations.openWorld = a.open_world;
        return spec;
      }),
    })),
  };
}

/** eventFromWire is the progress or log event of a CallResponse; undefined for a result. */
export function eventFromWire(m: WireCallResponse): CallEvent | undefined {
  if (m.progress) return { type: "progress", progress: m.progress.progress, total: m.progress.total, message: m.progress.message };
  if (m.log) return { type: "log", level: fromEnum(levels, m.log.level, "LOG_LEVEL_UNSPECIFIED", "info") as LogLevel, message: m.log.message };
  return undefined;
}

/** resultFromWire is the Result the host reads from a Result message. */
export function resultFromWire(r: WireResult): Result {
  const content = (r.content ?? []).map((c): Content => {
    if (c.image) return { type: "image", data: c.image.data, mimeType: c.image.mime_type };
    if (c.resource) {
      const res = c.resource;
      return res.blob && res.blob.length > 0
        ? { type: "resource", uri: res.uri, mimeType: res.mime_type, blob: res.blob }
        : { type: "resource", uri: res.uri, mimeType: res.mime_type, text: res.text };
    }
    return { type: "text", text: c.text ?? "" };
  });
  const out: Result = { content, isError: r.is_error };
  if (r.structured && r.structured.length > 0) out.structured = JSON.parse(r.structured.toString("utf8"));
  if (r.changes && r.changes.length > 0) {
    out.changes = r.changes.map((ch): FileChange => {
      const fc: FileChange = { path: ch.path, beforeSha256: ch.before_sha256, afterSha256: ch.after_sha256 };
      if (ch.before && ch.before.length > 0) fc.before = ch.before;
      if (ch.after && ch.after.length > 0) fc.after = ch.after;
      return fc;
    });
  }
  return out;
}
