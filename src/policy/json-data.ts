/**
 * Bridge arguments arrive from untrusted code. Before the host looks at them they are copied into
 * fresh null-prototype objects after checking that they are plain JSON data: no prototype keys
 * (`__proto__`, `constructor`, `prototype`), no non-finite numbers, bounded depth and size.
 * Nothing from the sandbox is ever merged into a host object.
 */

export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export interface JsonLimits {
  maxDepth: number;
  maxKeys: number;
  maxStringLength: number;
}

export const DEFAULT_JSON_LIMITS: JsonLimits = { maxDepth: 16, maxKeys: 2000, maxStringLength: 1_000_000 };

export class JsonDataError extends Error {
  constructor(readonly where: string, reason: string) {
    super(`${where} ${reason}`);
    this.name = 'JsonDataError';
  }
}

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Validated null-prototype deep copy of JSON data; throws `JsonDataError` naming the location. */
export function copyJsonData(value: unknown, where = 'params', limits: JsonLimits = DEFAULT_JSON_LIMITS): JsonValue {
  const budget = { keys: 0 };
  return copy(value, where, 0, limits, budget);
}

function copy(value: unknown, where: string, depth: number, limits: JsonLimits, budget: { keys: number }): JsonValue {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new JsonDataError(where, `is ${value}; only finite numbers are JSON data`);
    return value;
  }
  if (typeof value === 'string') {
    if (value.length > limits.maxStringLength) {
      throw new JsonDataError(where, `is a string of ${value.length} characters (limit ${limits.maxStringLength})`);
    }
    return value;
  }
  if (typeof value !== 'object') throw new JsonDataError(where, `is a ${typeof value}; only JSON data (objects, arrays, strings, numbers, booleans, null) can be passed`);
  if (depth >= limits.maxDepth) throw new JsonDataError(where, `is nested deeper than ${limits.maxDepth} levels`);
  if (Array.isArray(value)) {
    budget.keys += value.length;
    if (budget.keys > limits.maxKeys) throw new JsonDataError(where, `has more than ${limits.maxKeys} entries in all`);
    return value.map((v, i) => copy(v, `${where}[${i}]`, depth + 1, limits, budget));
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) {
    throw new JsonDataError(where, 'is not a plain object');
  }
  const out = Object.create(null) as { [key: string]: JsonValue };
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key)) throw new JsonDataError(`${where}.${key}`, 'is a forbidden key (prototype manipulation)');
    budget.keys++;
    if (budget.keys > limits.maxKeys) throw new JsonDataError(where, `has more than ${limits.maxKeys} entries in all`);
    const desc = Object.getOwnPropertyDescriptor(value, key);
    if (!desc || !('value' in desc)) throw new JsonDataError(`${where}.${key}`, 'is an accessor, not data');
    if (desc.value === undefined) continue;
    out[key] = copy(desc.value, `${where}.${key}`, depth + 1, limits, budget);
  }
  return out;
}
