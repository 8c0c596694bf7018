// The Toolbox: a plugin's groups of declared tools, which serve() serves.

import { Call, type CallEvent } from "./call.js";
import type { Result } from "./result.js";
import { Roots } from "./roots.js";
import type { Tool } from "./tools.js";
import { hostContext, type Description, type DescribedGroup, type GroupSpec, type HostContext } from "./types.js";
import { groupError, pluginNameError, q, taskError } from "./validate.js";

/** The optional parts of what a Toolbox describes. */
export interface ToolboxOptions {
  /** The plugin's version (semver, free-form), which the host records at install. */
  version?: string;
  /** One line saying what the plugin offers. */
  description?: string;
}

/** UnknownToolError is thrown by Toolbox.call for a tool it does not have; the host gets NOT_FOUND. */
export class UnknownToolError extends Error {
  constructor(tool: string) {
    super(`unknown tool ${q(tool)}`);
    this.name = "UnknownToolError";
  }
}

/** What Toolbox.call needs of the call besides its tool and arguments. */
export interface CallContext {
  id?: string;
  signal?: AbortSignal;
  emit?: (event: CallEvent) => void;
}

const groupModes = ["default", "opt-in", "legacy"];

/**
 * Toolbox is a plugin's groups of declared tools. Add the groups at start,
 * then serve it: serve(box).
 */
export class Toolbox {
  /** The plugin's name: lower-case letters, digits and '-'; it is installed as ramabana-plugin-<name>. */
  readonly name: string;
  readonly version: string;
  readonly description: string;
  readonly #groups: DescribedGroup[] = [];
  readonly #tools = new Map<string, Tool>();
  #onDescribe: ((host: HostContext) => void | Promise<void>) | undefined;
  #host: HostContext = hostContext();
  #roots: Roots | undefined;

  /** Makes an empty toolbox for the named plugin; a bad name throws now. */
  constructor(name: string, opts: ToolboxOptions = {}) {
    const bad = pluginNameError(name);
    if (bad) throw new Error("ramabana: " + bad);
    this.name = name;
    this.version = opts.version ?? "";
    this.description = opts.description ?? "";
  }

  /**
   * addGroup adds a group and its tools. It throws, at start, on what the
   * host would refuse (a bad group name, a tool declared twice, a tool
   * with no kind, a mode or asUserMessage its task does not take...), with
   * a message naming the group and tool.
   */
  addGroup(group: GroupSpec, ...tools: Tool[]): this {
    const mode = group.mode ?? "default";
    if (!groupModes.includes(mode)) throw new Error(`ramabana: group ${q(group.name)}: unknown mode ${q(mode)}: default, opt-in or legacy`);
    const g: DescribedGroup = {
      name: group.name,
      description: group.description ?? "",
      mode,
      replacedBy: group.replacedBy ?? "",
      localData: group.localData ?? false,
      tools: tools.map((t) => t.spec),
    };
    const seen = new Map<string, string>();
    for (const earlier of this.#groups) for (const t of earlier.tools) seen.set(t.name, earlier.name);
    const bad = groupError(g, seen) ?? tools.map((t) => taskError(t.spec)).find((e) => e !== undefined);
    if (bad) throw new Error("ramabana: " + bad);
    this.#groups.push(g);
    for (const t of tools) this.#tools.set(t.spec.name, t);
    return this;
  }

  /** onDescribe sets a hook run on every Describe with the new host context, before the description is returned; a throw fails the Describe. */
  onDescribe(fn: (host: HostContext) => void | Promise<void>): void {
    this.#onDescribe = fn;
  }

  /** describe keeps the host context for the calls that follow and returns what the plugin serves. */
  async describe(host: HostContext): Promise<Description> {
    await this.#onDescribe?.(host);
    this.#host = hostContext(host);
    this.#roots = undefined;
    return structuredClone({ name: this.name, version: this.version, description: this.description, groups: this.#groups });
  }

  /** The host context of the last Describe (empty before it). */
  get host(): HostContext {
    return this.#host;
  }

  /** roots are the served roots of the last Describe, made when first asked for. */
  roots(): Roots {
    this.#roots ??= new Roots(this.#host.roots, this.#host.readOutside);
    return this.#roots;
  }

  /**
   * call runs the named tool with args (the decoded JSON arguments). A
   * ToolError becomes an error result; an unknown tool throws
   * UnknownToolError; any other exception is the handler's fault, thrown on.
   */
  async call(tool: string, args: unknown, ctx: CallContext = {}): Promise<Result> {
    const t = this.#tools.get(tool);
    if (!t) throw new UnknownToolError(tool);
    const call = new Call({
      id: ctx.id ?? "",
      tool,
      host: this.#host,
      signal: ctx.signal ?? new AbortController().signal,
      emit: ctx.emit ?? (() => undefined),
      roots: () => this.roots(),
    });
    return t.run(args, call);
  }
}
