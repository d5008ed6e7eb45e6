import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../safety/canonical.js';
import { MAX_REDACT_DEPTH, REDACTED, SecretScrubber } from '../safety/redact.js';
import { auditData, plainCanonicalJson } from './canonical-data.js';
import { entryHash } from './entry.js';

/** Nested `depth` objects deep: { a: { a: … 1 } }. */
function nested(depth: number): Record<string, unknown> {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value as Record<string, unknown>;
}

describe('plainCanonicalJson', () => {
  const plain: unknown[] = [
    {},
    [],
    { b: 1, a: 'x', c: null, d: true, e: false },
    { z: [3, 'two', { y: 1, x: [null, -0, 1.5e300, 'é\u2028"\\\n'] }], a: { c: {}, b: [] } },
    { skipped: undefined, fn: () => 1, sym: Symbol('s'), kept: 0 },
    [undefined, () => 1, Symbol('s'), Number.NaN, Number.POSITIVE_INFINITY],
    // A hole in an array, as JSON.stringify writes it.
    [1, , 3],
    { B: 1, a: 2, _: 3, ä: 4, '': 5, '10x': 6 },
    JSON.parse('{"__proto__": {"x": 1}, "a": 2}'),
    Object.assign(Object.create(null), { m: 1, l: [Object.assign(Object.create(null), { k: 'v' })] }),
    { runId: 'r', mode: 'live', cluster: 'c', method: 'GET', path: '/nodes/n1/qemu/100/config', risk: 'read', status: 'ok', outcome: 'done', durationMs: 5.123 },
  ];

  it('writes the bytes canonicalJson writes, for plain JSON data', () => {
    for (const value of plain) expect(plainCanonicalJson(value)).toBe(canonicalJson(value));
  });

  it('declines what canonicalJson writes differently from the value (the caller takes the general way)', () => {
    const declined: unknown[] = [
      { when: new Date(0) },
      { bytes: Buffer.from('ab') },
      { map: new Map([['a', 1]]) },
      {
        instance: new (class Point {
          x = 1;
        })(),
      },
      // JSON.stringify lists index-like keys first, in numeric order.
      { '10': 'a', '9': 'b', x: 1 },
      { toJSON: 'x' },
      { big: 1n },
      nested(MAX_REDACT_DEPTH + 1),
    ];
    for (const value of declined) expect(plainCanonicalJson(value)).toBeUndefined();
  });

  it('hands every string value to `seen`, keys excluded', () => {
    const seen: string[] = [];
    plainCanonicalJson({ key: 'v1', list: ['v2', { k: 'v3' }] }, (s) => seen.push(s));
    expect(seen.sort()).toEqual(['v1', 'v2', 'v3']);
  });
});

describe('auditData', () => {
  const scrubber = new SecretScrubber(['s3cret-token-value']);

  it('keeps data without a known secret as it is, with its canonical JSON', () => {
    const data = { path: '/version', params: { a: [1, 'x'] } };
    const out = auditData(data, scrubber);
    expect(out.data).toBe(data);
    expect(out.json).toBe(canonicalJson(data));
  });

  it('writes a scrubbed copy when a string holds a known secret, nested or not', () => {
    const data = { message: 'token s3cret-token-value refused', nested: { list: ['ok', 'x s3cret-token-value'] } };
    const out = auditData(data, scrubber);
    expect(out.data).not.toBe(data);
    expect(JSON.stringify(out.data)).not.toContain('s3cret-token-value');
    expect(out.data.message).toBe(`token ${REDACTED} refused`);
    expect(out.json).toBe(canonicalJson(out.data));
    expect(data.message).toContain('s3cret-token-value');
  });

  it('scrubs data that is not plain too, the general way', () => {
    const out = auditData({ when: new Date(0), message: 's3cret-token-value' }, scrubber);
    expect(JSON.stringify(out.data)).not.toContain('s3cret-token-value');
  });
});

describe('entryHash', () => {
  it('signs the same text whichever way the data was written', () => {
    const base = { v: 1 as const, seq: 7, ts: '2026-12-03T12:00:00.000Z', type: 'call' as const, prev: '0'.repeat(64) };
    for (const data of [
      { b: 1, a: ['x', { d: null, c: true }] },
      { when: new Date(0), '3': 1, x: 'y' },
    ]) {
      const general = canonicalJson({ ...base, data });
      const key = 'audit-key';
      expect(entryHash({ ...base, data }, key)).toBe(createHmac('sha256', key).update(general, 'utf8').digest('hex'));
      expect(entryHash({ ...base, data }, key, plainCanonicalJson(data))).toBe(createHmac('sha256', key).update(general, 'utf8').digest('hex'));
    }
  });
});
