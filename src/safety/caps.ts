/**
 * Size caps for what the safety layer keeps and shows: plan steps (in tool outputs, elicitation
 * prompts and plan files) and audit records. A script controls every byte of its parameters, so
 * without caps one dry-run with a 20 MB parameter becomes a 60 MB JSON-RPC message and a 20 MB plan
 * file, and refused calls with huge parameters grow the audit by megabytes each. Long strings keep
 * their start, their length and a hash (so two values can still be told apart and matched against
 * the script); what is still too big is cut structurally (valid JSON of the same shape).
 */
import { createHash } from 'node:crypto';
import { truncateJson } from './truncate.js';

/** Strings longer than this keep their first `KEEP_CHARS` characters, their length and a hash. */
export const MAX_VALUE_CHARS = 256;
const KEEP_CHARS = 64;
/** One capped value (a step's params, a call record's params) as JSON at most. */
export const MAX_CAPPED_BYTES = 8 * 1024;
const MAX_DEPTH = 32;

/** `abcd…[3214 chars, sha256 1f2e3d4c]`: recognisable, comparable, small. */
export function capString(text: string): string {
  if (text.length <= MAX_VALUE_CHARS) return text;
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 16);
  return `${text.slice(0, KEEP_CHARS)}…[${text.length} chars, sha256 ${hash}]`;
}

/**
 * JSON data with long strings capped and the whole cut to `MAX_CAPPED_BYTES`: the value itself
 * when it is already within the caps (the common case, checked without serialising), else a copy.
 */
export function capValue(value: unknown): unknown {
  if (withinCaps(value, 0, { bytes: 0 })) return value;
  const capped = capStrings(value, 0);
  return truncateJson(capped, MAX_CAPPED_BYTES).value;
}

/** A cheap upper bound of the JSON size, stopping at the first long string or deep level. */
function withinCaps(value: unknown, depth: number, size: { bytes: number }): boolean {
  if (typeof value === 'string') {
    size.bytes += value.length * 2 + 2;
    return value.length <= MAX_VALUE_CHARS && size.bytes <= MAX_CAPPED_BYTES;
  }
  if (value === null || typeof value !== 'object') {
    size.bytes += 24;
    return size.bytes <= MAX_CAPPED_BYTES;
  }
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const v of value) if (!withinCaps(v, depth + 1, size)) return false;
    return true;
  }
  for (const k in value) {
    if (!Object.hasOwn(value, k)) continue;
    if (k.length > MAX_VALUE_CHARS) return false;
    size.bytes += k.length * 2 + 4;
    if (!withinCaps((value as Record<string, unknown>)[k], depth + 1, size)) return false;
  }
  return true;
}

function capStrings(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return capString(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[nested too deep]';
  if (Array.isArray(value)) return value.map((v) => capStrings(v, depth + 1));
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of Object.entries(value)) out[capString(k)] = capStrings(v, depth + 1);
  return out;
}
