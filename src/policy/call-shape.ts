/**
 * The shape of a script's call, checked once before the schema is consulted: a path of plain
 * segments (no dot segments, percent-encoding, `?`/`#`, whitespace or control characters, each
 * from a safe character set), `{placeholders}` filled from the params, and params that are plain
 * JSON data copied into null-prototype objects. Request resolution (request.ts) starts here; the
 * sandbox's test bridge makes the same check.
 *
 * Params arrive from untrusted code: before the host looks at them they are copied into fresh
 * null-prototype objects after checking that they are plain JSON data — no prototype keys
 * (`__proto__`, `constructor`, `prototype`), no non-finite numbers, bounded depth and size.
 * Nothing from the sandbox is ever merged into a host object.
 */
import { REST_OF_PATH_PARAMS } from '../schema/model.js';
import { UPID_SHAPE, parseUpid } from '../pve/upid.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export type Params = Record<string, JsonValue>;

export class InvalidCallError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(hint ? `${message}. ${hint}` : message);
    this.name = 'InvalidCallError';
  }
}

/**
 * The limits of a bridge call, one set for every place that reads one (the contract's envelope,
 * this check), so they cannot disagree.
 */
export const CALL_LIMITS = {
  /** A call's path, as written by the script. */
  pathChars: 2_048,
  /** A task ID (`UPID:node:…`). */
  upidChars: 512,
  /** `waitTask`'s `timeoutMs`: at least 1 ms, at most a day (the run's task-wait budget caps it further). */
  minTimeoutMs: 1,
  maxTimeoutMs: 86_400_000,
} as const;

const MAX_PATH_LENGTH = CALL_LIMITS.pathChars;
const MAX_SEGMENT_LENGTH = 512;
/** Characters PVE identifiers use (node, storage, snapshot, user@realm!token, UPID, pool…). */
const SAFE_SEGMENT = /^[A-Za-z0-9._~:@!+,=-]+$/;
export const PLACEHOLDER = /^\{([A-Za-z][A-Za-z0-9_-]*)\}$/;
const FORBIDDEN = /[?#%\\\s\u0000-\u001f\u007f]/;

export interface CallShape {
  /** The concrete path's segments, raw (unencoded) values. */
  segments: string[];
  /** The params left once the placeholders took theirs (null-prototype, JSON data only). */
  params: Params;
}

/** Throws `InvalidCallError` naming what is wrong and how to write it. */
export function callShape(rawPath: unknown, rawParams: unknown): CallShape {
  const params = copyParams(rawParams);
  return { segments: substitute(checkPathText(rawPath), params), params };
}

/**
 * The node of a task ID a script waits for: a UPID PVE would read (src/pve/upid.ts) that is also a
 * plain path segment, since its status and log are read at `/nodes/{node}/tasks/{upid}/…`.
 */
export function taskNode(upid: string): string {
  const node = upid.length <= CALL_LIMITS.upidChars ? parseUpid(upid)?.node : undefined;
  if (node === undefined || FORBIDDEN.test(upid) || !SAFE_SEGMENT.test(upid)) {
    throw new InvalidCallError(`'${upid.slice(0, 80)}' is not a task ID (${UPID_SHAPE})`, 'Pass the UPID a write returned');
  }
  return node;
}

function copyParams(raw: unknown): Params {
  if (raw === undefined || raw === null) return Object.create(null) as Params;
  const copied = copyJsonData(raw, 'params');
  if (copied === null || typeof copied !== 'object' || Array.isArray(copied)) {
    throw new InvalidCallError('params must be an object of parameter names to values', "e.g. { node: 'pve1', vmid: 101 }");
  }
  return copied;
}

function checkPathText(rawPath: unknown): string[] {
  if (typeof rawPath !== 'string' || !rawPath.startsWith('/')) {
    throw new InvalidCallError(`path ${JSON.stringify(rawPath)} must start with '/'`, "e.g. '/nodes/{node}/qemu'");
  }
  if (rawPath.length > MAX_PATH_LENGTH) throw new InvalidCallError(`path is longer than ${MAX_PATH_LENGTH} characters`);
  if (FORBIDDEN.test(rawPath)) {
    throw new InvalidCallError(
      `path ${JSON.stringify(rawPath)} contains '?', '#', '%', a backslash, whitespace or a control character`,
      'Pass query parameters in params and values unencoded; the bridge encodes them',
    );
  }
  const stripped = rawPath.replace(/^\/api2\/json(?=\/|$)/, '');
  const parts = stripped.split('/').slice(1);
  if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

function substitute(parts: string[], params: Params): string[] {
  const out: string[] = [];
  parts.forEach((part, index) => {
    if (part === '') throw new InvalidCallError('path has an empty segment (//)');
    const m = PLACEHOLDER.exec(part);
    if (m?.[1]) {
      const name = m[1];
      const raw = Object.hasOwn(params, name) ? params[name] : undefined;
      if (raw === undefined || raw === null || raw === '') {
        throw new InvalidCallError(`path placeholder {${name}} has no value`, `Pass it in params: { ${name}: ... }`);
      }
      if (typeof raw !== 'string' && !(typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0)) {
        throw new InvalidCallError(`params.${name} fills a path segment and must be a string or a whole number`);
      }
      delete params[name];
      const value = String(raw);
      const restOfPath = REST_OF_PATH_PARAMS.has(name) && index === parts.length - 1;
      checkValue(name, value, restOfPath);
      out.push(...(restOfPath ? value.split('/') : [value]));
      return;
    }
    if (part.includes('{') || part.includes('}')) {
      throw new InvalidCallError(`path segment '${part}' mixes text and a placeholder`, 'A placeholder must be a whole segment, e.g. /{vmid}/');
    }
    checkSegment(part, `path segment '${part}'`);
    out.push(part);
  });
  return out;
}

function checkValue(name: string, value: string, restOfPath: boolean): void {
  if (FORBIDDEN.test(value)) {
    throw new InvalidCallError(`value of {${name}} contains '?', '#', '%', a backslash, whitespace or a control character`);
  }
  const pieces = restOfPath ? value.split('/') : [value];
  for (const piece of pieces) checkSegment(piece, `value of {${name}} (${JSON.stringify(value)})`);
}

function checkSegment(segment: string, what: string): void {
  if (segment === '') throw new InvalidCallError(`${what} has an empty segment`);
  if (segment === '.' || segment === '..') throw new InvalidCallError(`${what} is a dot segment; relative paths are not allowed`);
  if (segment.length > MAX_SEGMENT_LENGTH) throw new InvalidCallError(`${what} is longer than ${MAX_SEGMENT_LENGTH} characters`);
  if (!SAFE_SEGMENT.test(segment)) {
    throw new InvalidCallError(`${what} contains characters outside A-Z a-z 0-9 . _ ~ : @ ! + , = -`);
  }
}

/** Keys that would reach an object's prototype: refused wherever a call's JSON is read. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

const JSON_LIMITS = { maxDepth: 16, maxKeys: 2000, maxStringLength: 1_000_000 } as const;

/** Validated null-prototype deep copy of JSON data; throws `InvalidCallError` naming the location. */
export function copyJsonData(value: unknown, where = 'params'): JsonValue {
  return copy(value, where, 0, { keys: 0 });
}

function refused(where: string, reason: string): InvalidCallError {
  return new InvalidCallError(`${where} ${reason}`);
}

function copy(value: unknown, where: string, depth: number, budget: { keys: number }): JsonValue {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw refused(where, `is ${value}; only finite numbers are JSON data`);
    return value;
  }
  if (typeof value === 'string') {
    if (value.length > JSON_LIMITS.maxStringLength) throw refused(where, `is a string of ${value.length} characters (limit ${JSON_LIMITS.maxStringLength})`);
    return value;
  }
  if (typeof value !== 'object') throw refused(where, `is a ${typeof value}; only JSON data (objects, arrays, strings, numbers, booleans, null) can be passed`);
  if (depth >= JSON_LIMITS.maxDepth) throw refused(where, `is nested deeper than ${JSON_LIMITS.maxDepth} levels`);
  if (Array.isArray(value)) {
    budget.keys += value.length;
    if (budget.keys > JSON_LIMITS.maxKeys) throw refused(where, `has more than ${JSON_LIMITS.maxKeys} entries in all`);
    return value.map((v, i) => copy(v, `${where}[${i}]`, depth + 1, budget));
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) throw refused(where, 'is not a plain object');
  const out = Object.create(null) as { [key: string]: JsonValue };
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key)) throw refused(`${where}.${key}`, 'is a forbidden key (prototype manipulation)');
    budget.keys++;
    if (budget.keys > JSON_LIMITS.maxKeys) throw refused(where, `has more than ${JSON_LIMITS.maxKeys} entries in all`);
    const desc = Object.getOwnPropertyDescriptor(value, key);
    if (!desc || !('value' in desc)) throw refused(`${where}.${key}`, 'is an accessor, not data');
    if (desc.value === undefined) continue;
    out[key] = copy(desc.value, `${where}.${key}`, depth + 1, budget);
  }
  return out;
}
