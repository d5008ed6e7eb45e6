/**
 * The one contract of a bridge call, checked here, where a call enters the server (the
 * sandbox channel relays the script's JSON untouched). The sandbox controls every byte of a call,
 * so the server parses the JSON itself and admits only safe shapes: a known method, a path of
 * plain segments (no `..`, no percent-encoding, no query), JSON params without prototype-bending
 * keys, a task ID PVE would read (src/pve/upid.ts), limits from `CALL_LIMITS`. What passes is a
 * typed `BridgeCall`, the only zod check of a call. Request resolution (src/policy/request.ts)
 * still checks the path's segments and copies the params as plain JSON as it resolves them
 * against the schema.
 */
import { z } from 'zod';
import type { BridgeCall } from './protocol.js';
import { CLUSTER_NAME_PATTERN, CLUSTER_NAME_RULE } from '../client/config.js';
import { CALL_LIMITS } from '../policy/request.js';
import { UPID_SHAPE, parseUpid } from '../pve/upid.js';
import { HTTP_METHODS } from '../schema/model.js';

const MAX_PATH = CALL_LIMITS.pathChars;
const MAX_PARAM_DEPTH = 16;
const SEGMENT = /^(?:\{[A-Za-z0-9_-]+\}|[A-Za-z0-9_.:@!+=,~-]+)$/;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

const pathSchema = z
  .string()
  .max(MAX_PATH, `path is longer than ${MAX_PATH} characters`)
  .superRefine((path, ctx) => {
    const problem = pathProblem(path);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

const clusterSchema = z
  .string()
  .regex(CLUSTER_NAME_PATTERN, CLUSTER_NAME_RULE);

const requestSchema = z
  .object({
    kind: z.literal('request'),
    method: z.enum(HTTP_METHODS),
    path: pathSchema,
    params: z.record(z.string().max(256), z.unknown()),
    cluster: clusterSchema.optional(),
  })
  .strict();

const waitTaskSchema = z
  .object({
    kind: z.literal('waitTask'),
    // A UPID PVE would read, and a plain path segment too: the handler puts it in the task's path.
    upid: z
      .string()
      .max(CALL_LIMITS.upidChars)
      .refine((upid) => SEGMENT.test(upid) && parseUpid(upid) !== undefined, `not a task ID (${UPID_SHAPE})`),
    timeoutMs: z.number().int().min(CALL_LIMITS.minTimeoutMs, 'timeoutMs is at least 1 (milliseconds); leave it out for the default').max(CALL_LIMITS.maxTimeoutMs).optional(),
    cluster: clusterSchema.optional(),
  })
  .strict();

const undoSchema = z
  .object({
    kind: z.literal('undo'),
    // A run id as the pipeline mints them (a UUID): it is searched for in the audit.
    runId: z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'not a run id (a UUID like 0f8e…-…: the changes.runId of a run_script answer)'),
    cluster: clusterSchema.optional(),
  })
  .strict();

const callSchema = z.discriminatedUnion('kind', [requestSchema, waitTaskSchema, undoSchema]);

export type ParsedCall = { ok: true; call: BridgeCall } | { ok: false; message: string };

export function parseBridgeCall(json: string, maxBytes: number): ParsedCall {
  if (json.length > maxBytes) return { ok: false, message: `the call is ${json.length} bytes; the limit is ${maxBytes}` };
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return { ok: false, message: 'the call is not valid JSON' };
  }
  const stand = oversizedStandIn(raw);
  if (stand !== undefined) return { ok: false, message: `the call is ${stand} bytes as JSON; the limit is ${maxBytes}` };
  // Checked on the raw JSON: schema parsing silently drops a `__proto__` key instead of reporting it.
  const problem = keysProblem(raw);
  if (problem) return { ok: false, message: `invalid params: ${problem}` };
  const parsed = callSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    return { ok: false, message: `invalid call: ${where}${issue?.message ?? 'unknown problem'}` };
  }
  return { ok: true, call: parsed.data };
}

function pathProblem(path: string): string | undefined {
  if (!path.startsWith('/')) return "a path starts with '/'";
  if (path === '/') return undefined;
  const segments = path.slice(1).split('/');
  for (const segment of segments) {
    if (segment === '') return 'empty path segment (//)';
    if (segment === '.' || segment === '..') return `'${segment}' segments are not allowed`;
    if (!SEGMENT.test(segment)) {
      return `segment '${segment.slice(0, 64)}' has characters outside letters, digits and _ . : @ ! + = , ~ - (give values unencoded; no ? or #)`;
    }
  }
  return undefined;
}

/** Walks the call without recursion: nesting depth and key names are both bounded. */
function keysProblem(call: unknown): string | undefined {
  const stack: Array<{ value: unknown; depth: number; path: string }> = [{ value: call, depth: 0, path: '' }];
  while (stack.length > 0) {
    const { value, depth, path } = stack.pop() as { value: unknown; depth: number; path: string };
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_PARAM_DEPTH + 1) return `nested deeper than ${MAX_PARAM_DEPTH} levels at ${path}`;
    for (const [key, child] of Object.entries(value)) {
      if (FORBIDDEN_KEYS.has(key)) return `the key '${key}' is not allowed (at ${path || 'the top level'})`;
      const childPath = Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
      stack.push({ value: child, depth: depth + 1, path: childPath });
    }
  }
  return undefined;
}

/** The sandbox replaces a call over the size limit by `{"kind":"oversized","bytes":N}` (its size). */
function oversizedStandIn(raw: unknown): number | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const r = raw as Record<string, unknown>;
  if (r.kind !== 'oversized' || Object.keys(r).length !== 2) return undefined;
  return typeof r.bytes === 'number' && Number.isSafeInteger(r.bytes) && r.bytes > 0 ? r.bytes : undefined;
}
