// Declaring tools: tool() for an ordinary (completion) tool and one helper
// per agent task (sdk/toolbox.go's TypedTool and sdk/tasks.go in the Go
// module). Each takes the tool's spec, its arguments as a zod object (the
// input JSON Schema is derived from it, and the handler's argument type
// inferred), and a handler whose return type is what its task answers:
//
//   helper          task        handler returns     on the wire
//   tool            completion  string or Result    as it is
//                               (with output: the output's type, sent as structured JSON and as text)
//   contextTool     context     string              one text block
//   evaluationTool  evaluation  Evaluation          {"is_valid", "score", "feedback"}, structured and as text
//   postTool        post_tool   nothing             one empty text block
//   skillTool       skill       string (SKILL.md)   one text block, front matter checked
//   skillText       skill       (a fixed SKILL.md)  as skillTool, checked when declared
//   noneTool        none        as tool             as tool
//
// What the types cannot say is checked when the tool is declared, throwing
// an Error that names the tool: a bad name or kind, a spec declared for
// another task, a mode or asUserMessage where the task takes none, a skill
// text that does not name its skill.

import type { z } from "zod";
import type { Call } from "./call.js";
import { ToolError, errorResult, textResult, type Result } from "./result.js";
import { inputSchemaOf, isObjectSchema, outputSchemaOf, parseWith, type ObjectSchema } from "./schema.js";
import { parseSkill, skillTextError } from "./skill.js";
import type { Annotations, Kind, SkillMode, Task, ToolSpec } from "./types.js";
import { q, taskError, toolSpecError } from "./validate.js";

/** A declared tool: its spec as the host gets it, and what runs a call of it. */
export interface Tool {
  readonly spec: ToolSpec;
  /**
   * run runs one call: args are the call's decoded JSON arguments. A
   * ToolError the handler throws, and arguments that do not fit the input,
   * become a Result with isError; any other exception is a fault, thrown on.
   */
  readonly run: (args: unknown, call: Call) => Promise<Result>;
}

type Awaitable<T> = T | Promise<T>;

/** The handler's arguments for an input schema I: its parsed type (defaults filled in), or no arguments. */
export type Args<I> = I extends ObjectSchema ? z.output<I> : Record<string, never>;

/** What every tool declares besides its handler. */
export interface BaseOptions {
  /** 1 to 128 letters, digits, '_' and '-'; unique across every mounted group. */
  name: string;
  /** A short human-readable title. */
  title?: string;
  /** The text a model reads to decide how to call the tool: what it does, what it returns, its one or two rules. */
  description: string;
  /** read, write or act; required. */
  kind: Kind;
  /** Overrides of the hints the kind gives. */
  annotations?: Annotations;
}

/** The options of tool() and noneTool(). */
export interface ToolOptions<I extends ObjectSchema | undefined, O extends ObjectSchema | undefined> extends BaseOptions {
  /** The arguments, as a zod object (z.object({...}) with .describe() on each); none when absent. */
  input?: I;
  /** The structured output, as a zod object; the handler then returns its value, sent as structured JSON and as text. */
  output?: O;
  /** completion (the default) or none; the tasks with a helper of their own are refused here. */
  task?: "completion" | "none";
  /** Runs one call. Throw ToolError for a failure the model can act on. */
  handler: (args: Args<I>, call: Call) => Awaitable<O extends ObjectSchema ? z.input<O> : string | Result>;
}

/**
 * tool declares an ordinary tool, offered to the model (a completion
 * tool). Without an output schema its handler returns text or a Result;
 * with one, the output's value, which is checked against it and sent as
 * structured content and as one text block of the same JSON.
 */
export function tool<I extends ObjectSchema | undefined = undefined, O extends ObjectSchema | undefined = undefined>(
  opts: ToolOptions<I, O>,
): Tool {
  const helper = helpers[opts.task ?? "completion"];
  if (helper) throw declError(opts.name, `its task is ${opts.task}: declare it with ${helper}, which checks what it returns`);
  return typed(opts, opts.task === "none" ? "none" : "completion", "tool");
}

/** noneTool declares a tool agents leave alone; other MCP clients list and call it as tool()'s. */
export function noneTool<I extends ObjectSchema | undefined = undefined, O extends ObjectSchema | undefined = undefined>(
  opts: Omit<ToolOptions<I, O>, "task">,
): Tool {
  return typed(opts, "none", "noneTool");
}

/** The options of contextTool(). */
export interface ContextOptions<I extends ObjectSchema | undefined> extends BaseOptions {
  input?: I;
  /** Put the text in a user message instead of the system prompt. */
  asUserMessage?: boolean;
  handler: (args: Args<I>, call: Call) => Awaitable<string>;
}

/** contextTool declares a context tool: an agent calls it before its run and puts the text in its system prompt (or a user message). */
export function contextTool<I extends ObjectSchema | undefined = undefined>(opts: ContextOptions<I>): Tool {
  return typed({ ...opts, output: undefined, handler: async (a: Args<I>, c: Call) => textResult(checkString(opts.name, await opts.handler(a, c))) }, "context", "contextTool", opts);
}

/**
 * Evaluation is an evaluation tool's verdict on an agent's answer; its JSON
 * is {"is_valid": boolean, "score": number, "feedback": string | null}.
 * Make one with Evaluation.valid or Evaluation.invalid.
 */
export interface Evaluation {
  is_valid: boolean;
  score: number;
  feedback: string | null;
}

/** The verdicts of an evaluation tool. */
export const Evaluation = {
  /** valid is a passing verdict with no feedback. */
  valid(score: number): Evaluation {
    return { is_valid: true, score, feedback: null };
  },
  /** invalid is a failing verdict with feedback for the agent's next try. */
  invalid(score: number, feedback: string): Evaluation {
    return { is_valid: false, score, feedback };
  },
};

/** The output schema of every evaluation tool. */
export const evaluationSchema = {
  type: "object",
  properties: {
    is_valid: { type: "boolean", description: "whether the answer passes" },
    score: { type: "number", description: "how good the answer is" },
    feedback: { type: ["string", "null"], description: "what to change, for another try" },
  },
  required: ["is_valid", "score", "feedback"],
  additionalProperties: false,
};

/** The options of evaluationTool(). */
export interface EvaluationOptions<I extends ObjectSchema | undefined> extends BaseOptions {
  /** The arguments; an agent fills string properties named answer (or output, response...) and task (or query, prompt...). */
  input?: I;
  handler: (args: Args<I>, call: Call) => Awaitable<Evaluation>;
}

/**
 * evaluationTool declares an evaluation tool: an agent calls it on each
 * final answer, and a verdict that is not valid sends the feedback back for
 * another try. The verdict is sent as structured content (with its output
 * schema) and as one text block of the same JSON. A score that is not a
 * finite number is a fault.
 */
export function evaluationTool<I extends ObjectSchema | undefined = undefined>(opts: EvaluationOptions<I>): Tool {
  const name = opts.name;
  const run = async (a: Args<I>, c: Call): Promise<Result> => {
    const ev = await opts.handler(a, c);
    const out = {
      is_valid: ev?.is_valid,
      score: ev?.score,
      feedback: ev?.feedback === undefined ? null : ev.feedback,
    };
    if (typeof out.is_valid !== "boolean") throw new Error(`tool ${q(name)}: the evaluation's is_valid is ${JSON.stringify(out.is_valid)}, want true or false`);
    if (typeof out.score !== "number" || !Number.isFinite(out.score)) throw new Error(`tool ${q(name)}: evaluation score ${out.score} is not a finite number`);
    if (out.feedback !== null && typeof out.feedback !== "string") throw new Error(`tool ${q(name)}: the evaluation's feedback is not a string or null`);
    return { content: [{ type: "text", text: JSON.stringify(out) }], structured: out };
  };
  const t = typed({ ...opts, output: undefined, handler: run }, "evaluation", "evaluationTool", opts);
  t.spec.outputSchema = structuredClone(evaluationSchema);
  return t;
}

/** The options of postTool(). */
export interface PostOptions<I extends ObjectSchema | undefined> extends BaseOptions {
  input?: I;
  handler: (args: Args<I>, call: Call) => Awaitable<void>;
}

/** postTool declares a post tool: an agent runs it for its side effects on each final answer, before evaluating it. The wire carries one empty text block. */
export function postTool<I extends ObjectSchema | undefined = undefined>(opts: PostOptions<I>): Tool {
  return typed({ ...opts, output: undefined, handler: async (a: Args<I>, c: Call) => { await opts.handler(a, c); return textResult(""); } }, "post_tool", "postTool", opts);
}

/** The options of skillTool(). */
export interface SkillOptions extends BaseOptions {
  /** always-on: put into every agent run's system prompt; auto: listed by its description, loaded when the model asks. */
  mode: SkillMode;
  /** Returns the text of a SKILL.md, front matter included, naming the skill skillName(name). */
  handler: (call: Call) => Awaitable<string>;
}

/**
 * skillTool declares a skill tool, which takes no arguments and returns a
 * SKILL.md whose front matter's name is the tool's in lower case with '_'
 * as '-'. Its description is required: the host lists the skill by it.
 * Each text is checked; one that fails is a fault naming the tool. A fixed
 * text is better declared with skillText, which checks it now.
 */
export function skillTool(opts: SkillOptions): Tool {
  if (!opts.mode) throw declError(opts.name, 'skillTool needs a mode: "always-on" or "auto"');
  if (!opts.description?.trim()) throw declError(opts.name, "a skill tool needs a description: the host lists the skill by it");
  const run = async (_: unknown, c: Call): Promise<Result> => {
    const text = checkString(opts.name, await opts.handler(c));
    const err = skillTextError(opts.name, text);
    if (err) throw new Error(err);
    return textResult(text);
  };
  return typed({ ...opts, input: undefined, output: undefined, handler: run }, "skill", "skillTool", opts);
}

/** The options of skillText(). */
export interface SkillTextOptions extends Omit<BaseOptions, "description"> {
  /** Defaults to the front matter's description. */
  description?: string;
  mode: SkillMode;
  /** The SKILL.md, front matter included; checked now. */
  text: string;
}

/** skillText declares a skill tool that returns a fixed SKILL.md text, checked when declared. */
export function skillText(opts: SkillTextOptions): Tool {
  const err = skillTextError(opts.name, opts.text);
  if (err) throw new Error("ramabana: " + err);
  const description = opts.description?.trim() ? opts.description : parseSkill(opts.text).description;
  const text = opts.text;
  return skillTool({ ...opts, description, handler: () => text });
}

// --- the common part --------------------------------------------------------

/** The helper each task with a fixed result is declared with. */
const helpers: Partial<Record<string, string>> = {
  context: "contextTool",
  evaluation: "evaluationTool",
  post_tool: "postTool",
  skill: "skillTool",
};

function declError(name: string, msg: string): Error {
  return new Error(`ramabana: tool ${q(String(name))}: ${msg}`);
}

function checkString(name: string, v: unknown): string {
  if (typeof v !== "string") throw new Error(`tool ${q(name)}: the handler returned ${typeof v}, want a string`);
  return v;
}

interface TypedOptions extends BaseOptions {
  input?: ObjectSchema | undefined;
  output?: ObjectSchema | undefined;
  task?: Task;
  asUserMessage?: boolean;
  mode?: SkillMode;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  handler: (args: any, call: Call) => Awaitable<unknown>;
}

/**
 * typed builds the tool of opts for task, declared by helper: it checks the
 * spec (what the host would refuse), derives the schemas, and wraps the
 * handler. given is what the author passed, checked for a task, an output
 * or a mode the helper does not take.
 */
function typed(opts: TypedOptions, task: Task, helper: string, given: object = opts): Tool {
  const g = given as { task?: unknown; output?: unknown; mode?: unknown; asUserMessage?: unknown };
  const name = opts.name;
  if (g.task !== undefined && g.task !== task) {
    throw declError(name, `${helper} declares a ${task} tool, and the spec says ${g.task}`);
  }
  if (g.output !== undefined && task !== "completion" && task !== "none") {
    throw declError(name, `a ${task} tool's result is fixed by ${helper}; drop the output schema`);
  }
  if (opts.input !== undefined && !isObjectSchema(opts.input)) {
    throw declError(name, "input must be a zod object (z.object({...})): the input schema's root is an object");
  }
  const spec: ToolSpec = {
    name,
    title: opts.title ?? "",
    description: opts.description ?? "",
    inputSchema: inputSchemaOf(name, opts.input),
    kind: opts.kind,
    annotations: { ...(opts.annotations ?? {}) },
    task,
    asUserMessage: Boolean(g.asUserMessage),
  };
  if (typeof g.mode === "string") spec.mode = g.mode as SkillMode;
  if (opts.output !== undefined) spec.outputSchema = outputSchemaOf(name, opts.output);
  const bad = toolSpecError(spec) ?? taskError(spec);
  if (bad) throw new Error("ramabana: " + bad);
  const input = opts.input?.strict();
  const output = opts.output;
  const handler = opts.handler;
  const run = async (raw: unknown, call: Call): Promise<Result> => {
    let args: unknown = {};
    if (input) {
      const parsed = parseWith(input, raw ?? {});
      if (!parsed.ok) return errorResult(`invalid arguments for ${name}: ${parsed.problems}`);
      args = parsed.value;
    } else if (raw !== undefined && raw !== null && (typeof raw !== "object" || Object.keys(raw).length > 0)) {
      return errorResult(`invalid arguments for ${name}: it takes no arguments`);
    }
    let out: unknown;
    try {
      out = await handler(args, call);
    } catch (e) {
      if (e instanceof ToolError) return errorResult(e.message);
      throw e;
    }
    if (output) {
      const parsed = parseWith(output, out);
      if (!parsed.ok) throw new Error(`tool ${q(name)}: its output does not match its output schema: ${parsed.problems}`);
      return { content: [{ type: "text", text: JSON.stringify(parsed.value) }], structured: parsed.value };
    }
    if (typeof out === "string") return textResult(out);
    if (isResult(out)) return out;
    throw new Error(`tool ${q(name)}: the handler returned ${out === null ? "null" : typeof out}; without an output schema it returns a string or a Result`);
  };
  return { spec, run };
}

function isResult(v: unknown): v is Result {
  return typeof v === "object" && v !== null && Array.isArray((v as Result).content);
}
