/**
 * The envelope of a bridge call, read where a call enters the server (the sandbox channel relays
 * the script's JSON untouched). The sandbox controls every byte, so the JSON is parsed here once
 * and its envelope checked: a known kind and method, a path that is a string within
 * `CALL_LIMITS`, params that are an object, a cluster name, a task ID of bounded length, a
 * timeout in range. What is inside the path and the params — segments, encoding, prototype keys,
 * nesting, values against the schema — is checked once, by request resolution
 * (src/policy/request.ts), where the call is resolved to an operation; a task ID by the handler,
 * which reads it with src/pve/upid.ts and resolves its status and log paths the same way. What
 * passes is a typed `BridgeCall`: the only zod parse of a call.
 */
import { z } from 'zod';
import type { BridgeCall } from './protocol.js';
import { CLUSTER_NAME_PATTERN, CLUSTER_NAME_RULE } from '../client/config.js';
import { CALL_LIMITS, FORBIDDEN_KEYS } from '../policy/call-shape.js';
import { HTTP_METHODS } from '../schema/model.js';

const clusterSchema = z.string().regex(CLUSTER_NAME_PATTERN, CLUSTER_NAME_RULE);

/** Passed through as it is: request resolution copies it, and refuses what is not plain JSON data. */
const paramsSchema = z.custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), 'params must be an object of parameter names to values');

const requestSchema = z
  .object({
    kind: z.literal('request'),
    method: z.enum(HTTP_METHODS),
    path: z.string().max(CALL_LIMITS.pathChars, `path is longer than ${CALL_LIMITS.pathChars} characters`),
    params: paramsSchema,
    cluster: clusterSchema.optional(),
  })
  .strict();

const waitTaskSchema = z
  .object({
    kind: z.literal('waitTask'),
    upid: z.string().max(CALL_LIMITS.upidChars),
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
  // Schema parsing silently drops an own `__proto__` key instead of reporting it (params are resolution's).
  const bent = raw !== null && typeof raw === 'object' ? Object.keys(raw).find((k) => FORBIDDEN_KEYS.has(k)) : undefined;
  if (bent !== undefined) return { ok: false, message: `invalid call: the key '${bent}' is not allowed` };
  const parsed = callSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    return { ok: false, message: `invalid call: ${where}${issue?.message ?? 'unknown problem'}` };
  }
  return { ok: true, call: parsed.data };
}

/** The sandbox replaces a call over the size limit by `{"kind":"oversized","bytes":N}` (its size). */
function oversizedStandIn(raw: unknown): number | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const r = raw as Record<string, unknown>;
  if (r.kind !== 'oversized' || Object.keys(r).length !== 2) return undefined;
  return typeof r.bytes === 'number' && Number.isSafeInteger(r.bytes) && r.bytes > 0 ? r.bytes : undefined;
}
