/**
 * An entry's data as the audit signs it, in one pass. `canonicalJson` (src/safety/canonical.ts)
 * defines the bytes: a sorted copy of the value, then `JSON.stringify`. For plain JSON data —
 * plain objects and arrays of strings, numbers, booleans and null — the same bytes can be written
 * straight from the value, without the copy: a call's entry is rendered on every bridged call,
 * and the copies (null-prototype objects, which V8 keeps in dictionary mode) plus the scrubber's
 * own deep copy were a fifth of what the server allocated per call in the sweep benchmark
 * (docs/benchmarks.md, "session 11"). Anything else — a Date, a Buffer, a class instance, an
 * integer-like key (JSON orders those first), a `toJSON` key, nesting as deep as the scrubber cuts
 * off — makes `plainCanonicalJson` answer undefined, and the caller takes the general way.
 */
import { MAX_REDACT_DEPTH, type SecretScrubber } from '../safety/redact.js';

/** An array index as a property key: JSON.stringify lists such keys first, in numeric order. */
const INDEX_KEY = /^(?:0|[1-9]\d{0,9})$/;

/**
 * `canonicalJson(value)` for plain JSON data; undefined for anything else. `seen` is called with
 * every string value (not the keys), in order.
 */
export function plainCanonicalJson(value: unknown, seen?: (text: string) => void): string | undefined {
  return write(value, 0, seen);
}

function write(value: unknown, depth: number, seen: ((text: string) => void) | undefined): string | undefined {
  switch (typeof value) {
    case 'string':
      seen?.(value);
      return JSON.stringify(value);
    case 'number':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return 'null';
  if (depth >= MAX_REDACT_DEPTH) return undefined;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === Array.prototype) {
    const items = value as unknown[];
    let out = '[';
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      // As JSON.stringify writes what cannot stand in an array.
      const text = item === undefined || typeof item === 'function' || typeof item === 'symbol' ? 'null' : write(item, depth + 1, seen);
      if (text === undefined) return undefined;
      out += i === 0 ? text : `,${text}`;
    }
    return `${out}]`;
  }
  if (proto !== Object.prototype && proto !== null) return undefined;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  for (const key of keys) if (key === 'toJSON' || (INDEX_KEY.test(key) && Number(key) < 4294967295)) return undefined;
  keys.sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    const v = obj[key];
    // Left out, as JSON.stringify leaves them out of an object.
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    const text = write(v, depth + 1, seen);
    if (text === undefined) return undefined;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${text}`;
    first = false;
  }
  return `${out}}`;
}

/**
 * What the audit writes for `data`: the data itself when no known secret is in it (the scrubber's
 * copy would be identical), else the scrubbed copy; and its canonical JSON when it is plain data
 * (undefined: `entryHash` computes it the general way).
 */
export function auditData(data: Record<string, unknown>, scrubber?: SecretScrubber): { data: Record<string, unknown>; json: string | undefined } {
  let secret = false;
  const json = plainCanonicalJson(
    data,
    scrubber
      ? (text) => {
          if (!secret && scrubber.scrub(text) !== text) secret = true;
        }
      : undefined,
  );
  if (json !== undefined && !secret) return { data, json };
  if (!scrubber) return { data, json };
  const clean = scrubber.scrubDeep(data);
  return { data: clean, json: plainCanonicalJson(clean) };
}
