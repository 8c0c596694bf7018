// What a tool call answers: content blocks, structured JSON, the error flag
// and the files it changed; and ToolError, the failure a model can act on.

import { createHash } from "node:crypto";
import { isUtf8 } from "node:buffer";

/** One content block: text, an image or an embedded resource. */
export type Content =
  | { type: "text"; text: string }
  | { type: "image"; data: Uint8Array; mimeType: string }
  | { type: "resource"; uri: string; mimeType: string; text?: string; blob?: Uint8Array };

/**
 * FileChange records one file a call created, changed or deleted, for the
 * host's changes ledger. Make one with fileChange.
 */
export interface FileChange {
  /** Absolute path. */
  path: string;
  /** Hex SHA-256 of the content before; "" when the file was created. */
  beforeSha256: string;
  /** Hex SHA-256 of the content after; "" when the file was deleted. */
  afterSha256: string;
  /** The contents, for the ledger's diffs: set for UTF-8 text up to MAX_DIFF_CONTENT bytes, else absent. */
  before?: Uint8Array;
  after?: Uint8Array;
}

/** What a tool call answers. */
export interface Result {
  content: Content[];
  /** Optional structured value (any JSON value), matching the tool's output schema. */
  structured?: unknown;
  /** The tool failed in a way the model can act on; content says why. */
  isError?: boolean;
  /** The files the call created, changed or deleted (write tools). */
  changes?: FileChange[];
}

/**
 * ToolError is a failure the model can act on (a bad path, a stale line):
 * a handler throws it, and the call answers a Result with isError set and
 * the message as its text. Any other exception is a fault: the host gets a
 * gRPC INTERNAL error, and the plugin logs the stack.
 */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolError";
  }
}

/** text is a content block of text. */
export function text(value: string): Content {
  return { type: "text", text: value };
}

/** image is a content block of an inline image (data are the image's bytes, e.g. a PNG file's). */
export function image(data: Uint8Array, mimeType: string): Content {
  return { type: "image", data, mimeType };
}

/** resource is a content block of an embedded resource: text or a blob, by its URI. */
export function resource(uri: string, mimeType: string, body: string | Uint8Array): Content {
  return typeof body === "string"
    ? { type: "resource", uri, mimeType, text: body }
    : { type: "resource", uri, mimeType, blob: body };
}

/** textResult is a successful result of one text block. */
export function textResult(value: string): Result {
  return { content: [text(value)] };
}

/** errorResult is the result a ToolError becomes: isError, and message as its one text block. */
export function errorResult(message: string): Result {
  return { content: [text(message)], isError: true };
}

/** resultText joins a result's text blocks with newlines (images and resources left out). */
export function resultText(r: Result): string {
  return r.content.filter((c) => c.type === "text").map((c) => (c as { text: string }).text).join("\n");
}

/** The largest content a FileChange carries for a diff: 1 MiB. */
export const MAX_DIFF_CONTENT = 1 << 20;

/**
 * fileChange describes a change of the file at path (absolute) from before
 * to after: null before means the file was created, null after that it was
 * deleted (an existing empty file is an empty array). The contents are
 * carried for diffs when both sides are UTF-8 text of at most
 * MAX_DIFF_CONTENT bytes.
 */
export function fileChange(path: string, before: Uint8Array | null, after: Uint8Array | null): FileChange {
  const ch: FileChange = {
    path,
    beforeSha256: before ? sha256Hex(before) : "",
    afterSha256: after ? sha256Hex(after) : "",
  };
  if (diffable(before) && diffable(after)) {
    if (before) ch.before = before;
    if (after) ch.after = after;
  }
  return ch;
}

function diffable(b: Uint8Array | null): boolean {
  return b === null || (b.length <= MAX_DIFF_CONTENT && isUtf8(b));
}

/** sha256Hex is the lower-case hex SHA-256 of b. */
export function sha256Hex(b: Uint8Array): string {
  return createHash("sha256").update(b).digest("hex");
}
