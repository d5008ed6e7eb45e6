import { describe, it, expect } from 'vitest';
import { jsonBytes, truncateJson } from './truncate.js';

describe('truncateJson', () => {
  it('returns small values untouched, without a report', () => {
    const value = { a: [1, 2, 3], b: 'text' };
    const out = truncateJson(value, 1_000);
    expect(out.value).toBe(value);
    expect(out.report).toBeUndefined();
  });

  it('shrinks the largest array first and keeps the shape valid', () => {
    const value = { node: 'pve1', vms: Array.from({ length: 1_000 }, (_, i) => ({ vmid: i, name: `vm-${i}` })), tags: ['a', 'b'] };
    const originalBytes = jsonBytes(value);
    const out = truncateJson(value, 2_000);
    const kept = out.value as typeof value;
    expect(jsonBytes(kept)).toBeLessThanOrEqual(2_000);
    expect(kept.node).toBe('pve1');
    expect(kept.tags).toEqual(['a', 'b']);
    expect(kept.vms.length).toBeGreaterThan(10);
    expect(kept.vms[0]).toEqual({ vmid: 0, name: 'vm-0' });
    expect(out.report).toMatchObject({ originalBytes, cuts: [{ path: '$.vms', kind: 'array', from: 1_000, to: kept.vms.length }] });
    expect(out.report?.keptBytes).toBe(jsonBytes(kept));
  });

  it('cuts long strings with a mark and records their original length', () => {
    const out = truncateJson({ log: 'x'.repeat(10_000), id: 1 }, 500);
    const kept = out.value as { log: string; id: number };
    expect(kept.id).toBe(1);
    expect(kept.log.endsWith('…')).toBe(true);
    expect(jsonBytes(kept)).toBeLessThanOrEqual(500);
    expect(out.report?.cuts[0]).toMatchObject({ path: '$.log', kind: 'string', from: 10_000 });
  });

  it('handles several large parts, largest first', () => {
    const value = { small: Array(50).fill(1), big: Array(2_000).fill('abc'), text: 'y'.repeat(3_000) };
    const out = truncateJson(value, 1_000);
    expect(jsonBytes(out.value)).toBeLessThanOrEqual(1_000);
    expect(out.report?.cuts.map((c) => c.path)).toContain('$.big');
  });

  it('drops keys of huge objects when nothing else can shrink', () => {
    const value = Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`k${i}`, i]));
    const out = truncateJson(value, 1_000);
    expect(jsonBytes(out.value)).toBeLessThanOrEqual(1_000);
    expect(out.report?.cuts[0]).toMatchObject({ path: '$', kind: 'object', from: 2_000 });
  });

  it('names awkward keys in paths with brackets', () => {
    const out = truncateJson({ 'net-0 list': Array(500).fill('abcdef') }, 200);
    expect(out.report?.cuts[0]?.path).toBe('$["net-0 list"]');
  });

  it('survives very deep nesting without recursion', () => {
    let deep: unknown = 'x'.repeat(5_000);
    for (let i = 0; i < 50_000; i++) deep = [deep];
    const out = truncateJson(deep, 101_000);
    expect(out.report?.cuts[0]?.kind).toBe('string');
  });

  it('keeps __proto__ keys as own data', () => {
    const value = JSON.parse(`{"__proto__":{"polluted":true},"list":${JSON.stringify(Array(500).fill('abcdef'))}}`) as object;
    const out = truncateJson(value, 200);
    expect(Object.keys(out.value as object)).toContain('__proto__');
    expect((out.value as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
