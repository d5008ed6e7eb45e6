/**
 * The operator's commands on a configuration whose state is shared in PostgreSQL (state.postgres),
 * as built, against a real server (test/support/postgres.ts; skipped, saying why, where there is
 * none): `approve` approves a plan kept in the database, `halt` sets the database's halt row (every
 * replica stops) and falls back to this host's file when the database cannot take it, `resume`
 * lifts the row and the file.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresApprovalBackend } from '../../src/safety/approval-postgres.js';
import { ApprovalStore } from '../../src/safety/approval.js';
import { PlanRecorder } from '../../src/safety/plan.js';
import { openPostgres } from '../../src/state/postgres/open.js';
import type { PostgresState } from '../../src/state/postgres/sql.js';
import { postgresUnavailable, startPostgres, type TestPostgres } from '../support/postgres.js';
import { BIN, childEnv, REPO_ROOT, runCli } from './helpers/harness.js';

const why = postgresUnavailable();

describe.skipIf(why !== undefined)(`the operator's commands on shared PostgreSQL state${why ? ` (skipped: ${why})` : ''}`, () => {
  let server: TestPostgres;
  let pg: PostgresState;
  let dir: string;
  let config: string;
  let haltFile: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await startPostgres();
    const url = await server.createDatabase();
    pg = openPostgres({ url });
    dir = mkdtempSync(join(tmpdir(), 'cli-pg-'));
    haltFile = join(dir, 'host', 'halt');
    config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ state: { dir: join(dir, 'state'), postgres: { url } }, halt: { file: haltFile } }));
    env = { ...childEnv(dir), XDG_CONFIG_HOME: join(dir, 'xdg-config') };
  }, 120_000);
  afterAll(async () => {
    pg?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('approve finds the plan in the database and approves it there', async () => {
    const rec = new PlanRecorder();
    rec.record({
      cluster: 'default',
      method: 'DELETE',
      path: '/nodes/pve1/qemu/105',
      template: '/nodes/{node}/qemu/{vmid}',
      params: {},
      fullParams: {},
      risk: 'destructive',
      needsApproval: true,
      targets: [{ vmid: 105, exists: true }],
      returnsTask: true,
      node: 'pve1',
    });
    const plan = rec.finish("await pve.delete('/nodes/pve1/qemu/105')", 'operator');
    const store = new ApprovalStore(new PostgresApprovalBackend(pg));
    store.savePlan(plan);

    const listed = await runCli(['approve', '--config', config], { env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(plan.planId);
    expect(listed.stdout).toContain(`approve: pve-code-mcp approve ${plan.planId} --config ${config}`);

    const approved = await runCli(['approve', plan.planId.slice(0, 10), '--yes', '--config', config], { env });
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain(`approved plan ${plan.planId}`);
    expect(approved.stdout).toContain(`in ${pg.where}`);
    expect(store.status(plan.planId)?.status).toBe('approved');
    expect(existsSync(join(dir, 'state', 'approvals.jsonl'))).toBe(false);
    // Audited in the deployment's audit, the database's.
    const entries = pg.query<{ line: string }>("SELECT line FROM audit_entries WHERE type = 'approval'").map((r) => JSON.parse(r.line) as { data: Record<string, unknown> });
    expect(entries.map((e) => e.data)).toEqual([expect.objectContaining({ via: 'cli', planId: plan.planId })]);
  });

  it('the local console shows the plans kept in the database', async () => {
    const rec = new PlanRecorder();
    rec.record({
      cluster: 'default',
      method: 'DELETE',
      path: '/nodes/pve1/qemu/106',
      template: '/nodes/{node}/qemu/{vmid}',
      params: {},
      fullParams: {},
      risk: 'destructive',
      needsApproval: true,
      targets: [{ vmid: 106, exists: true }],
      returnsTask: true,
      node: 'pve1',
    });
    const plan = rec.finish("await pve.delete('/nodes/pve1/qemu/106')", 'operator');
    new ApprovalStore(new PostgresApprovalBackend(pg)).savePlan(plan);
    const child = spawn(process.execPath, [BIN, 'console', '--config', config], { cwd: REPO_ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      let stderr = '';
      const link = await new Promise<string>((resolveLink, reject) => {
        const timer = setTimeout(() => reject(new Error(`no login link within 30 s:\n${stderr}`)), 30_000);
        child.stderr.setEncoding('utf8').on('data', (d: string) => {
          stderr += d;
          const m = /(http:\/\/127\.0\.0\.1:\d+\/console\/auth\/[\w-]{43})/.exec(stderr);
          if (m?.[1]) {
            clearTimeout(timer);
            resolveLink(m[1]);
          }
        });
      });
      expect(stderr).toContain(`(plans in ${pg.where})`);
      const signedIn = await fetch(link, { redirect: 'manual' });
      const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0] as string;
      const page = await (await fetch(new URL('/console/', link), { headers: { cookie } })).text();
      expect(page).toContain(plan.planId.slice(0, 12));
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('halt sets the halt row, not the host file; status shows both; resume lifts the row and the file', async () => {
    const idle = await runCli(['halt', '--status', '--config', config], { env });
    expect(idle.stdout).toBe(`not halted: changes are allowed\n  file: ${haltFile} (does not exist)\n  database: ${pg.where} (no halt row)\n`);

    const halted = await runCli(['halt', '--reason', 'incident 7', '--config', config], { env });
    expect(halted.code, halted.stderr).toBe(0);
    expect(halted.stdout).toContain(`database: ${pg.where}`);
    expect(halted.stdout).toContain('every server sharing this database');
    expect(pg.query('SELECT reason FROM halt')).toEqual([{ reason: 'incident 7' }]);
    expect(existsSync(haltFile)).toBe(false);

    const status = await runCli(['halt', '--status', '--config', config], { env });
    expect(status.stdout).toMatch(/^halted since \S+ by .+: incident 7\n/);
    expect(status.stdout).toContain('(halt row set: every server sharing it stops)');

    // A host file made by hand as well: resume lifts both.
    mkdirSync(dirname(haltFile), { recursive: true });
    writeFileSync(haltFile, 'this host too');
    const resumed = await runCli(['resume', '--config', config], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`removed the halt row of ${pg.where}`);
    expect(resumed.stdout).toContain(`removed ${haltFile}`);
    expect(pg.query('SELECT * FROM halt')).toEqual([]);
    expect(existsSync(haltFile)).toBe(false);
    expect((await runCli(['resume', '--config', config], { env })).stdout).toContain('not halted: nothing to resume');
    const entries = pg.query<{ line: string }>("SELECT line FROM audit_entries WHERE type = 'halt' ORDER BY seq").map((r) => JSON.parse(r.line) as { data: Record<string, unknown> });
    expect(entries.map((e) => e.data)).toEqual([
      expect.objectContaining({ action: 'halt', reason: 'incident 7', database: pg.where }),
      expect.objectContaining({ action: 'resume', database: pg.where, ended: expect.objectContaining({ reason: 'incident 7' }) }),
      expect.objectContaining({ action: 'resume', file: haltFile, ended: expect.objectContaining({ reason: 'this host too' }) }),
    ]);
  });

  it('when the database cannot be reached, halt stops this host with its file and fails loudly; resume is refused', async () => {
    const down = join(dir, 'down.json');
    writeFileSync(down, JSON.stringify({ state: { dir: join(dir, 'state'), postgres: { url: 'postgres://postgres@127.0.0.1:1/none', connectTimeoutMs: 500 } }, halt: { file: haltFile } }));
    const halted = await runCli(['halt', '--reason', 'db down', '--config', down], { env });
    expect(halted.code).toBe(1);
    expect(halted.stdout).toContain(`file: ${haltFile}`);
    expect(halted.stderr).toContain('only this host is halted');
    expect(existsSync(haltFile)).toBe(true);
    const resumed = await runCli(['resume', '--config', down], { env });
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toContain('not resumed: the database cannot be reached');
    expect(existsSync(haltFile)).toBe(true);
    rmSync(haltFile);
  });
});
