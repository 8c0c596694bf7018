// Input and output JSON Schemas derived from zod object schemas, in the
// form the Go sdk gives them: root "type": "object" with
// "additionalProperties": false, required = the properties without a
// default that are not optional, and each top-level property's default and
// bounds said in its description too, since some clients strip those
// keywords before the model sees the schema.

import { z } from "zod";
import type { JsonSchema } from "./types.js";
import { q } from "./validate.js";

/** A zod object schema: the arguments of a tool, or its structured output. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ObjectSchema = z.ZodObject<any, any>;

/** isObjectSchema reports whether s is a zod object schema (z.object, z.strictObject, ...). */
export function isObjectSchema(s: unknown): s is ObjectSchema {
  return s instanceof z.ZodObject;
}

/**
 * inputSchemaOf derives the input JSON Schema of the tool called tool from
 * s (no arguments when s is undefined), as a call's arguments are read:
 * a property with a default or .optional() is not required. It throws,
 * naming the tool, when s is not a zod object or cannot be said in JSON
 * Schema (a z.date(), a transform...).
 */
export function inputSchemaOf(tool: string, s: ObjectSchema | undefined): JsonSchema {
  if (s === undefined) return { type: "object", properties: {}, additionalProperties: false };
  return derive(tool, "input", s);
}

/**
 * outputSchemaOf derives the output JSON Schema of the tool called tool
 * from s, as the handler's value is sent. It throws, naming the tool, as
 * inputSchemaOf does.
 */
export function outputSchemaOf(tool: string, s: ObjectSchema): JsonSchema {
  return derive(tool, "output", s);
}

function derive(tool: string, io: "input" | "output", s: ObjectSchema): JsonSchema {
  if (!isObjectSchema(s)) {
    throw new Error(`ramabana: tool ${q(tool)}: the ${io} must be a zod object (z.object({...})): the ${io} schema's root is an object`);
  }
  let out: JsonSchema;
  try {
    out = z.toJSONSchema(s, { io, unrepresentable: "throw" }) as JsonSchema;
  } catch (e) {
    throw new Error(`ramabana: tool ${q(tool)}: ${io} schema: ${(e as Error).message}`);
  }
  delete out.$schema;
  out.additionalProperties = false;
  out.properties ??= {};
  dropSafeIntegerBounds(out);
  for (const p of Object.values(out.properties as Record<string, JsonSchema>)) saysBounds(p);
  return out;
}

/** dropSafeIntegerBounds removes, at every depth, the bounds zod gives every z.int() (±2^53-1), which say nothing. */
function dropSafeIntegerBounds(s: unknown): void {
  if (Array.isArray(s)) {
    s.forEach(dropSafeIntegerBounds);
    return;
  }
  if (typeof s !== "object" || s === null) return;
  const o = s as JsonSchema;
  if (o.minimum === Number.MIN_SAFE_INTEGER) delete o.minimum;
  if (o.maximum === Number.MAX_SAFE_INTEGER) delete o.maximum;
  Object.values(o).forEach(dropSafeIntegerBounds);
}

/**
 * saysBounds appends to p's description what its keywords say of a call
 * that leaves it out or goes beyond it, as the Go sdk's SaysBounds does:
 * "(default 2000, at least 1)". A description that already says "default"
 * keeps it said once; a false default and a minimum length of 1 go unsaid.
 */
export function saysBounds(p: JsonSchema): void {
  const parts: string[] = [];
  const desc = typeof p.description === "string" ? p.description : "";
  if ("default" in p && p.default !== false && !desc.toLowerCase().includes("default")) {
    parts.push("default " + JSON.stringify(p.default));
  }
  const min = typeof p.minimum === "number" ? p.minimum : undefined;
  const max = typeof p.maximum === "number" ? p.maximum : undefined;
  if (min !== undefined && max !== undefined) parts.push(`${fmtG(min)} to ${fmtG(max)}`);
  else if (min !== undefined) parts.push(`at least ${fmtG(min)}`);
  else if (max !== undefined) parts.push(`at most ${fmtG(max)}`);
  if (typeof p.minLength === "number" && p.minLength > 1) parts.push(`at least ${p.minLength} characters`);
  if (typeof p.maxLength === "number") parts.push(`at most ${p.maxLength} characters`);
  if (typeof p.format === "string" && p.format !== "") parts.push("format " + p.format);
  if (parts.length === 0) return;
  const said = "(" + parts.join(", ") + ")";
  if (desc.includes(said)) return;
  p.description = desc === "" ? said : desc + " " + said;
}

/** fmtG formats n as Go's %g does: the shortest digits, in exponent form below 1e-4 and from 1e6 on (1e+06). */
function fmtG(n: number): string {
  if (!Number.isFinite(n) || n === 0) return String(n);
  const [mant, expText] = n.toExponential().split("e");
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) return `${mant}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  return String(n);
}

/**
 * parseWith checks value against s and returns the parsed value (defaults
 * filled in) or the problems, each naming its argument, in words a model
 * can act on.
 */
export function parseWith(s: ObjectSchema, value: unknown): { ok: true; value: unknown } | { ok: false; problems: string } {
  const r = s.safeParse(value);
  if (r.success) return { ok: true, value: r.data };
  return { ok: false, problems: r.error.issues.map(issueText).join("; ") };
}

function issueText(i: z.core.$ZodIssue): string {
  const where = i.path.map(String).join(".");
  return where === "" ? i.message : `${q(where)}: ${i.message}`;
}
