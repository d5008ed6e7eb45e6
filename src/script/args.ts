/**
 * A script's declared arguments (`export const args = { pool: { type: 'string' } }` in the file
 * form) and the one check that turns what a caller gave — typed JSON from run_script, or
 * `--arg name=value` text from the command line — into the values the script reads as `args`.
 * The declarations are read where the script is parsed (the type-check process or the sandbox
 * worker, src/script/file-form.ts) and cross to the server as plain data; nothing here loads
 * TypeScript. A missing or malformed argument refuses the run before anything is read from a
 * cluster, and the refusal says what was expected.
 */
import { z } from 'zod';

export const ARG_TYPES = ['string', 'integer', 'number', 'boolean'] as const;
export type ArgType = (typeof ARG_TYPES)[number];
export type ArgValue = string | number | boolean;

export interface ArgSpec {
  type: ArgType;
  description?: string;
  enum?: Array<string | number>;
  /** A regular expression the whole string must match (strings only). */
  pattern?: string;
  minimum?: number;
  maximum?: number;
  default?: ArgValue;
  optional?: boolean;
}

export type ArgSpecs = Record<string, ArgSpec>;

/** Limits of a declaration: a script declares a few arguments, not a data set. */
export const ARG_LIMITS = { count: 32, nameChars: 64, textChars: 1_000, enumValues: 100, valueChars: 4_096 } as const;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const text = z.string().max(ARG_LIMITS.textChars);
const value = z.union([z.string().max(ARG_LIMITS.valueChars), z.number().finite(), z.boolean()]);

export const argSpecSchema = z
  .object({
    type: z.enum(ARG_TYPES),
    description: text.optional(),
    enum: z
      .array(z.union([z.string().max(ARG_LIMITS.valueChars), z.number().finite()]))
      .min(1)
      .max(ARG_LIMITS.enumValues)
      .optional(),
    pattern: text.optional(),
    minimum: z.number().finite().optional(),
    maximum: z.number().finite().optional(),
    default: value.optional(),
    optional: z.boolean().optional(),
  })
  .strict();

/** What crosses a process boundary: checked again by the server, which trusts no child process. */
export const argSpecsSchema = z
  .record(z.string().max(ARG_LIMITS.nameChars).regex(NAME), argSpecSchema)
  .refine((specs) => Object.keys(specs).length <= ARG_LIMITS.count, `at most ${ARG_LIMITS.count} arguments`);

/** The values given to a run: what run_script's `args` and a runbook's bounds hold. */
export const argValuesSchema = z.record(z.string().max(ARG_LIMITS.nameChars), value).refine((v) => Object.keys(v).length <= ARG_LIMITS.count, `at most ${ARG_LIMITS.count} arguments`);
export type ArgValues = Record<string, ArgValue>;

/** A declaration problem, found where the script is parsed; `at` is the offending name. */
export function argSpecProblem(name: string, spec: ArgSpec): string | undefined {
  if (!NAME.test(name)) return `argument name '${name}' must be an identifier (letters, digits, _)`;
  if (spec.pattern !== undefined) {
    if (spec.type !== 'string') return `argument '${name}': pattern applies to strings only`;
    try {
      new RegExp(spec.pattern, 'u');
    } catch (err) {
      return `argument '${name}': pattern is not a valid regular expression (${(err as Error).message})`;
    }
  }
  if ((spec.minimum !== undefined || spec.maximum !== undefined) && spec.type !== 'integer' && spec.type !== 'number') return `argument '${name}': minimum/maximum apply to numbers only`;
  if (spec.enum?.some((e) => typeof e !== (spec.type === 'string' ? 'string' : 'number'))) return `argument '${name}': enum values must be ${spec.type === 'string' ? 'strings' : 'numbers'}`;
  if (spec.enum && spec.type === 'boolean') return `argument '${name}': a boolean takes no enum`;
  if (spec.default !== undefined) {
    const bad = valueProblem(name, spec, spec.default, false);
    if (bad) return `argument '${name}': its default is invalid (${bad})`;
  }
  return undefined;
}

/** `pool: string`, `keep: integer 1..10 (default 3)`: the expected form, for refusals and listings. */
export function describeArg(name: string, spec: ArgSpec): string {
  const range = spec.minimum !== undefined || spec.maximum !== undefined ? ` ${spec.minimum ?? ''}..${spec.maximum ?? ''}` : '';
  const shape = spec.enum ? spec.enum.map((e) => JSON.stringify(e)).join(' | ') : `${spec.type}${range}${spec.pattern ? ` matching /${spec.pattern}/` : ''}`;
  const extra = spec.default !== undefined ? ` (default ${JSON.stringify(spec.default)})` : spec.optional ? ' (optional)' : '';
  return `${name}: ${shape}${extra}${spec.description ? ` — ${spec.description}` : ''}`;
}

export function describeArgs(specs: ArgSpecs): string {
  const names = Object.keys(specs);
  return names.length === 0 ? 'no arguments' : names.map((n) => describeArg(n, specs[n] as ArgSpec)).join('; ');
}

export interface BindOptions {
  /** `given` holds the strings of `--arg name=value`, converted by each declared type. */
  fromText?: boolean;
  /**
   * Test `pattern`s. Only for declarations the caller did not write itself (a runbook, a file the
   * operator runs): an agent's own script could declare a pattern that backtracks for minutes
   * on the server's thread, and would gain nothing from checking values it also chose.
   */
  patterns?: boolean;
}

export type BindResult = { ok: true; values: ArgValues } | { ok: false; message: string };

/**
 * Checks and converts the given arguments against the declarations. `given` is typed JSON
 * (run_script) or, with `fromText`, the strings of `--arg name=value`. Without declarations (a
 * script in the body form) the given values pass as they are. Unknown names are refused: a
 * misspelt argument must not silently fall back to a default.
 */
export function bindArgs(specs: ArgSpecs | undefined, given: Record<string, unknown>, options: BindOptions = {}): BindResult {
  const parsedGiven = options.fromText ? z.record(z.string(), z.string()).safeParse(given) : argValuesSchema.safeParse(given);
  if (!parsedGiven.success) return { ok: false, message: `malformed arguments: ${parsedGiven.error.issues[0]?.message ?? 'malformed'}; give an object of name: string | number | boolean` };
  if (!specs) return { ok: true, values: { ...(parsedGiven.data as ArgValues) } };
  const expected = `expected: ${describeArgs(specs)}`;
  const problems: string[] = [];
  for (const name of Object.keys(given)) if (!Object.hasOwn(specs, name)) problems.push(`unknown argument '${name}'`);
  const values: ArgValues = {};
  for (const [name, spec] of Object.entries(specs)) {
    const raw = Object.hasOwn(given, name) ? given[name] : undefined;
    if (raw === undefined) {
      if (spec.default !== undefined) values[name] = spec.default;
      else if (!spec.optional) problems.push(`missing argument '${name}'`);
      continue;
    }
    const converted = options.fromText ? fromText(spec, raw as string) : raw;
    const bad = valueProblem(name, spec, converted, options.patterns === true);
    if (bad) problems.push(bad);
    else values[name] = converted as ArgValue;
  }
  if (problems.length > 0) return { ok: false, message: `${problems.join('; ')} (${expected})` };
  return { ok: true, values };
}

function fromText(spec: ArgSpec, raw: string): unknown {
  switch (spec.type) {
    case 'string':
      return raw;
    case 'boolean':
      return raw === 'true' ? true : raw === 'false' ? false : raw;
    case 'integer':
    case 'number':
      // Number('') is 0 and Number(' 1') is 1: only a plain decimal numeral counts as a number.
      return /^-?(?:\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?$/.test(raw) ? Number(raw) : raw;
  }
}

function valueProblem(name: string, spec: ArgSpec, v: unknown, patterns: boolean): string | undefined {
  const shown = JSON.stringify(v)?.slice(0, 80);
  switch (spec.type) {
    case 'string':
      if (typeof v !== 'string') return `argument '${name}' must be a string, got ${shown}`;
      if (v.length > ARG_LIMITS.valueChars) return `argument '${name}' is longer than ${ARG_LIMITS.valueChars} characters`;
      if (patterns && spec.pattern !== undefined && !new RegExp(`^(?:${spec.pattern})$`, 'u').test(v)) return `argument '${name}' must match /${spec.pattern}/, got ${shown}`;
      break;
    case 'boolean':
      if (typeof v !== 'boolean') return `argument '${name}' must be true or false, got ${shown}`;
      break;
    case 'integer':
    case 'number':
      if (typeof v !== 'number' || !Number.isFinite(v)) return `argument '${name}' must be ${spec.type === 'integer' ? 'an integer' : 'a number'}, got ${shown}`;
      if (spec.type === 'integer' && !Number.isInteger(v)) return `argument '${name}' must be an integer, got ${shown}`;
      if (spec.minimum !== undefined && v < spec.minimum) return `argument '${name}' must be at least ${spec.minimum}, got ${shown}`;
      if (spec.maximum !== undefined && v > spec.maximum) return `argument '${name}' must be at most ${spec.maximum}, got ${shown}`;
      break;
  }
  if (spec.enum && !spec.enum.includes(v as string | number)) return `argument '${name}' must be one of ${spec.enum.map((e) => JSON.stringify(e)).join(', ')}, got ${shown}`;
  return undefined;
}
