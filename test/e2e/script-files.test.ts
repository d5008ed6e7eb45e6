/**
 * Scripts as files (issue 32): the folder `init` and `types` write makes a real `tsc --noEmit`
 * judge a script file as run_script's type check does; `run FILE --arg …` checks arguments before
 * anything runs; a 30-task batch shows its progress on stderr in a pseudo-terminal and piped.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasOfficialSchema } from '../../src/schema/official-schemas.js';
import { loadSchemaFromFile } from '../../src/schema/loader.js';
import { ScriptChecker } from '../../src/script/typecheck.js';
import { sdkDeclarationFiles } from '../../src/typegen/index.js';
import { BIN, OFFICIAL_SCHEMA, runCli, startE2eEnv, type E2eEnv } from './helpers/harness.js';

const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

function tsc(dir: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TSC, '--noEmit', '-p', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

describe.skipIf(!hasOfficialSchema('9.1'))('init and types: tsc checks a script file as run_script does', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pve-scripts-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('accepts the example and rejects a misspelt parameter, with the type check agreeing', async () => {
    const init = await runCli(['init', dir]);
    expect(init.code, init.stderr).toBe(0);
    const types = await runCli(['types', '--out', dir, '--schema', OFFICIAL_SCHEMA]);
    expect(types.code, types.stderr).toBe(0);
    const good = readFileSync(join(dir, 'snapshot-pool.ts'), 'utf8');
    const bad = good.replace('snapname: name })\n      : pve.post', 'snapnme: name })\n      : pve.post');
    expect(bad).not.toBe(good);

    expect(await tsc(dir)).toEqual({ code: 0, out: '' });
    writeFileSync(join(dir, 'misspelt.ts'), bad);
    const refused = await tsc(dir);
    expect(refused.code).not.toBe(0);
    const badLine = bad.split('\n').findIndex((l) => l.includes('snapnme')) + 1;
    const found = /misspelt\.ts\((\d+),(\d+)\): error TS(\d+): .*'snapnme'/.exec(refused.out);
    expect(found, refused.out).not.toBeNull();
    const [, line, col, code] = (found as RegExpExecArray).map(Number);
    expect(line).toBe(badLine);

    // The same declarations in run_script's checker: the same verdicts, at the same place.
    const model = await loadSchemaFromFile(OFFICIAL_SCHEMA);
    const checker = new ScriptChecker({ files: sdkDeclarationFiles(model), model });
    try {
      expect(checker.check(good).errors).toEqual([]);
      expect(checker.check(bad).errors.map((e) => [e.line, e.col, e.code])).toEqual([[line, col, code]]);
    } finally {
      checker.dispose();
    }
  }, 120_000);
});

const BATCH = `export const args = {
  name: { type: 'string', pattern: '[a-z_]+' },
  count: { type: 'integer', minimum: 1, maximum: 30 },
} as const;

export default (async (pve, { name, count }) => {
  const guests = (await pve.get('/cluster/resources', { type: 'vm' })).filter((g) => !g.template);
  const snap = (g: { node: string; vmid: number; type?: string }, snapname: string) =>
    g.type === 'lxc'
      ? pve.post('/nodes/{node}/lxc/{vmid}/snapshot', { node: g.node, vmid: g.vmid, snapname })
      : pve.post('/nodes/{node}/qemu/{vmid}/snapshot', { node: g.node, vmid: g.vmid, snapname });
  const first = guests.slice(0, Math.min(count, guests.length));
  const results = await pve.waitTasks(first.map((g) => snap(g, name)));
  // One more task after the batch, on a guest now free: ${'`count`'} tasks in all.
  const rest = count - first.length;
  const more = rest > 0 ? await pve.waitTasks(guests.slice(0, rest).map((g) => snap(g, name + '_2'))) : [];
  return [...results, ...more].map((r) => ({ outcome: r.outcome, upid: r.upid }));
}) satisfies PveScript<typeof args>;
`;

describe("run FILE --arg: arguments and a batch's progress", () => {
  let env: E2eEnv;
  let file: string;
  /** The e2e policy with room for a 30-guest batch (its default budget stops at 20 writes, 10 guests). */
  let config: string;

  beforeAll(async () => {
    env = await startE2eEnv();
    file = join(env.dir, 'batch.ts');
    writeFileSync(file, BATCH);
    const base = JSON.parse(readFileSync(env.configFile, 'utf8')) as { policies: { e2e: Record<string, unknown> } };
    base.policies.e2e.budget = { write: 60, guests: 40 };
    config = join(env.dir, 'batch-config.json');
    writeFileSync(config, JSON.stringify(base), { mode: 0o600 });
  }, 120_000);

  afterAll(async () => {
    await env?.close();
  });

  it('refuses a missing or malformed argument with the expected form, and runs nothing', async () => {
    const missing = await runCli(['run', file, '-c', env.configFile, '--arg', 'count=3'], { env: env.env });
    expect(missing.code).toBe(1);
    const answer = JSON.parse(missing.stdout) as { ok: boolean; error: { kind: string; message: string }; stats: { calls: { total: number } } };
    expect(answer.error.kind).toBe('invalid');
    expect(answer.error.message).toContain("missing argument 'name'");
    expect(answer.error.message).toContain('expected: name: string matching /[a-z_]+/; count: integer 1..30');
    expect(JSON.stringify(answer.stats)).not.toMatch(/"total":[1-9]/);
    const malformed = await runCli(['run', file, '-c', env.configFile, '--arg', 'name=Pre-Upgrade', '--arg', 'count=x'], { env: env.env });
    expect(malformed.code).toBe(1);
    expect(malformed.stdout).toContain("argument 'name' must match /[a-z_]+/");
    expect(malformed.stdout).toContain('argument \'count\' must be an integer, got \\"x\\"');
    const usage = await runCli(['run', file, '-c', env.configFile, '--arg', 'count'], { env: env.env });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("--arg takes NAME=VALUE, got 'count'");
  }, 60_000);

  it('prints plain progress lines when piped, and the rows as CSV', async () => {
    const r = await runCli(['run', file, '-c', config, '--arg', 'name=piped', '--arg', 'count=30', '--format', 'csv'], { env: env.env, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trim().split('\r\n');
    expect(rows[0]).toBe('outcome,upid');
    expect(rows.slice(1)).toHaveLength(30);
    for (const row of rows.slice(1)) expect(row).toMatch(/^done,UPID:/);
    const progress = r.stderr.split('\n').filter((l) => /tasks \d+ done of \d+ started/.test(l));
    expect(r.stderr).not.toContain('\r');
    expect(progress.at(-1)).toMatch(/^\[\d\d:\d\d\] tasks 30 done of 30 started · /);
    // A line when the counts change, not one per status poll: at most one per start and per end.
    expect(progress.length).toBeGreaterThan(2);
    expect(progress.length).toBeLessThanOrEqual(60);
  }, 150_000);

  it('redraws one progress line in a pseudo-terminal', async () => {
    const command = [process.execPath, BIN, 'run', file, '-c', config, '--arg', 'name=tty', '--arg', 'count=30', '--format', 'table'].map((a) => `'${a}'`).join(' ');
    const out = await new Promise<{ code: number | null; text: string }>((resolve, reject) => {
      const child = spawn('script', ['-qfec', command, '/dev/null'], { env: env.env, stdio: ['pipe', 'pipe', 'pipe'] });
      let text = '';
      child.stdout.on('data', (d) => (text += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, text }));
      child.stdin.end();
    });
    expect(out.code, out.text).toBe(0);
    const redraws = out.text.split('\r\x1b[K').slice(1);
    expect(redraws.length).toBeGreaterThan(30);
    expect(redraws.some((d) => /^\[\d\d:\d\d\] tasks 30 done of 30 started · /.test(d))).toBe(true);
    // The table follows on its own line.
    expect(out.text).toMatch(/\noutcome\s+upid/);
  }, 150_000);
});
