// The call object a tool handler gets besides its arguments.

import type { LogLevel } from "./log.js";
import type { Roots } from "./roots.js";
import type { HostContext } from "./types.js";

/** An event a call streams to the host before its result. */
export type CallEvent =
  | { type: "progress"; progress: number; total: number; message: string }
  | { type: "log"; level: LogLevel; message: string };

/** What the kit gives a Call when it makes one. */
export interface CallInit {
  id: string;
  tool: string;
  host: HostContext;
  signal: AbortSignal;
  emit: (event: CallEvent) => void;
  roots: () => Roots;
}

/**
 * Call is what a handler gets besides its arguments: the call's id and
 * tool, the host context of the last Describe, the served roots, events to
 * stream to the host, and the cancellation signal.
 */
export class Call {
  /** The call's identifier for logs (may be empty). */
  readonly id: string;
  /** The tool's name. */
  readonly tool: string;
  /** The host context of the last Describe (roots, readOutside, web, write, commands, ...). */
  readonly host: HostContext;
  /**
   * Aborted when the host cancels the call (the client cancelled, or the
   * host is stopping): pass it to what takes one (fetch, child_process,
   * timers/promises), or check `cancelled` between steps.
   */
  readonly signal: AbortSignal;
  readonly #emit: (event: CallEvent) => void;
  readonly #roots: () => Roots;

  constructor(init: CallInit) {
    this.id = init.id;
    this.tool = init.tool;
    this.host = init.host;
    this.signal = init.signal;
    this.#emit = init.emit;
    this.#roots = init.roots;
  }

  /** True once the host cancelled the call; a long handler stops then (its answer is dropped). */
  get cancelled(): boolean {
    return this.signal.aborted;
  }

  /**
   * progress tells the host how far the call is: progress out of total
   * (0 when unknown), with a message. The client gets it as an MCP progress
   * notification when it asked for them. Events after the result are dropped.
   */
  progress(progress: number, total = 0, message = ""): void {
    this.#emit({ type: "progress", progress, total, message });
  }

  /** log writes message to the host's log at level, naming the tool and call. */
  log(level: LogLevel, message: string): void {
    this.#emit({ type: "log", level, message });
  }

  /**
   * The served roots of the host context, to resolve and open the paths a
   * tool takes (relative ones against the first root), confined to them.
   * Getting it throws when a served folder no longer is what the host
   * resolved (replaced by a symlink, say).
   */
  get roots(): Roots {
    return this.#roots();
  }
}
