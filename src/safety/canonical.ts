/**
 * Canonical JSON and hashing shared by plans, approvals and the audit chain.
 *
 * Hashes must not depend on key insertion order (the same plan built twice must get the same
 * planId), so objects are serialized with sorted keys. Only JSON data is expected here; anything
 * else (functions, symbols, undefined inside arrays) is normalized the way JSON.stringify does.
 */
import { createHash, createHmac } from 'node:crypto';

export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export function hmacSha256Hex(key: string | Buffer, text: string): string {
  return createHmac('sha256', key).update(text, 'utf8').digest('hex');
}
