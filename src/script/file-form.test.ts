import { describe, expect, it } from 'vitest';
import { bindArgs } from './args.js';
import { compileScript } from './compile.js';
import { programSource } from './file-form.js';

const FILE = `import type { Unused } from './types';
export const args = {
  pool: { type: 'string', description: 'the pool' },
  keep: { type: 'integer', minimum: 1, maximum: 10, default: 3 },
} as const;

export default (async (pve, { pool, keep }) => {
  const members = await pve.get('/pools/{poolid}', { poolid: pool });
  await pve.post('/nodes/{node}/qemu/{vmid}/snapshot', { node: 'pve1', vmid: 100, snapname: 'x' });
  return { members, keep };
}) satisfies PveScript<typeof args>;
`;

describe('file form', () => {
  it('becomes a body with every offset kept, and its arguments read from the literal', () => {
    const p = programSource(FILE);
    if (!('body' in p) || p.form !== 'file') throw new Error('expected the file form');
    expect(p.body.slice(0, FILE.length).length).toBe(FILE.length);
    const pos = FILE.indexOf('pve.post');
    expect(p.body.indexOf('pve.post')).toBe(pos);
    expect(p.args).toEqual({ pool: { type: 'string', description: 'the pool' }, keep: { type: 'integer', minimum: 1, maximum: 10, default: 3 } });
  });

  it('compiles with the SDK calls of its function (its first parameter is the SDK)', () => {
    const c = compileScript(FILE);
    expect(c.transpiled.ok).toBe(true);
    if (!c.transpiled.ok) return;
    expect(c.transpiled.form).toBe('file');
    expect(c.transpiled.calls.map((k) => `${k.method} ${k.path} ${k.line}`)).toEqual(['GET /pools/{poolid} 8', 'POST /nodes/{node}/qemu/{vmid}/snapshot 9']);
  });

  it('keeps a body a body, also with `export default` in a string', () => {
    expect(programSource('const s = `\nexport default 1`;\nreturn s;').form).toBe('body');
  });

  it('refuses value imports and non-literal arguments with a position', () => {
    const p = programSource("import { x } from 'y';\nexport const args = { a: x };\nexport default async () => 1;\n");
    expect('diagnostics' in p && p.diagnostics.map((d) => `${d.line}: ${d.message}`)).toEqual(['1: a script cannot import values', '2: `args` must be literal data (no variables, calls or spreads)']);
  });
});

describe('bindArgs', () => {
  const specs = { pool: { type: 'string' as const, pattern: '[a-z]+' }, keep: { type: 'integer' as const, minimum: 1, default: 3 }, force: { type: 'boolean' as const, optional: true } };
  it('converts --arg text by type and fills defaults', () => {
    expect(bindArgs(specs, { pool: 'development', force: 'true' }, { fromText: true, patterns: true })).toEqual({ ok: true, values: { pool: 'development', keep: 3, force: true } });
  });
  it('refuses missing, malformed and unknown arguments with the expected form', () => {
    const r = bindArgs(specs, { keep: '0.5', name: 'x' }, { fromText: true, patterns: true });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.message).toContain("unknown argument 'name'");
    expect(r.message).toContain("missing argument 'pool'");
    expect(r.message).toContain("argument 'keep' must be an integer");
    expect(r.message).toContain('expected: pool: string matching /[a-z]+/; keep: integer 1.. (default 3); force: boolean (optional)');
  });
  it('tests patterns only when asked (an agent could declare one that backtracks for minutes)', () => {
    expect(bindArgs(specs, { pool: 'Prod' }, { patterns: true }).ok).toBe(false);
    expect(bindArgs(specs, { pool: 'Prod' }).ok).toBe(true);
  });
});
