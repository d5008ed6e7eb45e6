/**
 * The shared state's database goes away under a running replica and comes back: no change reaches
 * PVE without its intent in the database, the agent is told the audit is unavailable, the
 * balancer's probe says 503, runs resume by themselves once the database answers (the gap explained
 * by an alert in the chain), and the writer's liveness lock is taken again. A replica started while
 * the database is down does not start, and says why.
 */
import { request } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { postgresUnavailable, queryOnce, startPostgres, type TestPostgres } from '../support/postgres.js';
import { runCli, startE2eEnv, type E2eEnv } from '../e2e/helpers/harness.js';
import { simSnapshots } from './audit-trail.js';
import { callTool, connectHttp, runAnswer, spawnHttpServe, textOf, type Connected, type HttpServerProcess } from '../e2e/helpers/mcp.js';

const TOKEN = 'pg-down-token-0123456789abcdef';
const why = postgresUnavailable();

function healthOf(url: string): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: '/healthz' }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const snapshot = (node: string, vmid: number, name: string) => `const upid = await pve.post('/nodes/{node}/qemu/{vmid}/snapshot', { node: '${node}', vmid: ${vmid}, snapname: '${name}' });
return (await pve.waitTask(upid)).exitstatus;`;

describe.skipIf(why !== undefined)(`a replica whose PostgreSQL goes away${why ? ` (skipped: ${why})` : ''}`, () => {
  let db: TestPostgres;
  let url: string;
  let env: E2eEnv;
  let config: string;
  let server: HttpServerProcess;
  let mcp: Connected;
  const snapshotsNamed = (prefix: string) => {
    env.sim.cluster.settle();
    return simSnapshots(env.sim, prefix);
  };

  beforeAll(async () => {
    db = await startPostgres();
    url = await db.createDatabase('down');
    env = await startE2eEnv();
    const base = JSON.parse(readFileSync(env.configFile, 'utf8')) as Record<string, unknown>;
    config = join(env.dir, 'pg.json');
    writeFileSync(config, JSON.stringify({ ...base, state: { dir: env.stateDir, postgres: { url, connectTimeoutMs: 1_000, statementTimeoutMs: 1_000 } } }), { mode: 0o600 });
    server = await spawnHttpServe({ configFile: config, env: env.env }, ['--token', TOKEN]);
    mcp = await connectHttp(server.url, TOKEN, { name: 'pg-down' });
  }, 180_000);

  afterAll(async () => {
    try {
      await mcp?.close().catch(() => undefined);
      await server?.close();
      await env?.close();
    } finally {
      await db?.stop();
    }
  });

  it('sends no change while the database is down, answers why, and resumes when it is back', async () => {
    const guest = env.sim.cluster.guests().find((g) => g.type === 'qemu' && !g.config.template && !g.config.lock)!;
    expect(runAnswer((await callTool(mcp, 'run_script', { code: snapshot(guest.node, guest.vmid, 'pgup0') })).result).ok).toBe(true);
    expect((await healthOf(server.url)).status).toBe(200);

    db.pause();
    const refused = await callTool(mcp, 'run_script', { code: snapshot(guest.node, guest.vmid, 'pgdown1') }, { timeout: 60_000 });
    const answer = runAnswer(refused.result);
    expect(answer.ok).toBe(false);
    expect(answer.error?.kind).toBe('audit');
    expect(textOf(refused.result)).toMatch(/error \[audit\]/);
    expect(snapshotsNamed('pgdown')).toEqual([]);
    await vi.waitFor(async () => expect(await healthOf(server.url)).toMatchObject({ status: 503, body: expect.stringContaining('does not answer') }), { timeout: 20_000, interval: 500 });

    db.resume();
    await vi.waitFor(async () => expect((await healthOf(server.url)).status).toBe(200), { timeout: 30_000, interval: 500 });
    const resumed = await vi.waitFor(
      async () => {
        const a = runAnswer((await callTool(mcp, 'run_script', { code: snapshot(guest.node, guest.vmid, 'pgup2') }, { timeout: 60_000 })).result);
        expect(a.ok, JSON.stringify(a)).toBe(true);
        expect(a.result).toBe('OK');
        return a;
      },
      { timeout: 30_000, interval: 1_000 },
    );
    expect(resumed.ok).toBe(true);
    expect(snapshotsNamed('pgup').sort()).toEqual(['pgup0', 'pgup2']);
    // The gap is explained in the chain, and the chain verifies.
    const alerts = await queryOnce<{ line: string }>(url, "SELECT line FROM audit_entries WHERE type = 'alert'");
    expect(alerts.some((a) => /could not be written/.test(a.line))).toBe(true);
    const verified = await runCli(['audit', 'verify', '--config', config], { env: env.env });
    expect(verified.stdout + verified.stderr).not.toMatch(/edited|deleted|reordered|truncated/);
    // The writer is alive again in the database's eyes: its lock was taken again after the restart.
    await vi.waitFor(
      async () => {
        const held = await queryOnce<{ n: string }>(
          url,
          "SELECT count(*) AS n FROM audit_writers w JOIN pg_locks l ON l.locktype = 'advisory' AND l.granted AND ((l.classid::bigint << 32) | l.objid::bigint) = w.lock_key WHERE w.retired_at IS NULL",
        );
        expect(Number(held[0]?.n)).toBeGreaterThanOrEqual(1);
      },
      { timeout: 20_000, interval: 500 },
    );
  }, 240_000);

  it('does not start a replica while the database is down, and names it', async () => {
    db.pause();
    try {
      await expect(spawnHttpServe({ configFile: config, env: env.env }, ['--token', TOKEN])).rejects.toThrow(/cannot reach PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:\d+\/down/);
    } finally {
      db.resume();
    }
  }, 120_000);
});
