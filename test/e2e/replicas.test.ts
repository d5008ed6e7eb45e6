/**
 * Two `serve --http` replicas on one PostgreSQL, behind a load balancer that spreads new sessions
 * round-robin and keeps each session on its replica (test/support/sticky-proxy.ts): what a team
 * running several replicas relies on (docs/deployment.md). A plan made on one replica is approved
 * once and used once on the other; many runs over both leave one audit chain that verifies; a
 * replica killed mid-write leaves its intent, which the other settles; a session sent to the wrong
 * replica gets 404 and re-initialises.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { postgresUnavailable, queryOnce, startPostgres, type TestPostgres } from '../support/postgres.js';
import { startStickyProxy, type StickyProxy } from '../support/sticky-proxy.js';
import { statusOf, stopScript } from './helpers/flows.js';
import { runCli, startE2eEnv, type E2eEnv } from './helpers/harness.js';
import { callTool, connectHttp, runAnswer, spawnHttpServe, type Connected, type HttpServerProcess } from './helpers/mcp.js';

const TOKEN = 'replica-token-0123456789abcdef';
const why = postgresUnavailable();
/** The write the kill test interrupts: the simulator holds it this long before doing it. */
const HELD_PATH = '/nodes/pve3/qemu/*/status/shutdown';

describe.skipIf(why !== undefined)(`two replicas on one PostgreSQL${why ? ` (skipped: ${why})` : ''}`, () => {
  let db: TestPostgres;
  let url: string;
  let env: E2eEnv;
  let configs: string[];
  let replicas: HttpServerProcess[];
  let proxy: StickyProxy;
  const clients: Connected[] = [];

  const replicaConfig = (name: string): string => {
    const base = JSON.parse(readFileSync(env.configFile, 'utf8')) as Record<string, unknown>;
    delete base.stateDir;
    // Each replica its own state directory: whatever they share can only come from the database.
    const config = { ...base, state: { dir: join(env.dir, `state-${name}`), postgres: { url, recoverEveryMs: 300 } }, audit: { hmacKey: { env: 'REPLICA_AUDIT_KEY' } } };
    const file = join(env.dir, `${name}.json`);
    writeFileSync(file, JSON.stringify(config), { mode: 0o600 });
    return file;
  };
  const childEnvOf = () => ({ ...env.env, REPLICA_AUDIT_KEY: 'replica-audit-key-0123456789abcdef' });
  const startReplica = (config: string) => spawnHttpServe({ configFile: config, env: childEnvOf() }, ['--token', TOKEN]);
  const connect = async (name: string) => {
    const c = await connectHttp(proxy.url, TOKEN, { name });
    clients.push(c);
    return c;
  };
  /** The replica a session landed on, as the load balancer recorded it. */
  const replicaOf = (c: Connected): number | undefined => {
    const id = (c.client.transport as { sessionId?: string } | undefined)?.sessionId;
    return id ? proxy.sessions.get(id) : undefined;
  };

  beforeAll(async () => {
    db = await startPostgres();
    url = await db.createDatabase('replicas');
    env = await startE2eEnv({ sandbox: { workers: 2, limits: { entryTimeoutMs: 300_000, cpuMs: 300_000, wallMs: 300_000 } }, scenarios: [{ kind: 'slow', ms: 20_000, path: HELD_PATH }] });
    configs = [replicaConfig('a'), replicaConfig('b')];
    replicas = await Promise.all(configs.map(startReplica));
    proxy = await startStickyProxy(replicas.map((r) => r.url));
  }, 240_000);

  afterAll(async () => {
    // Each step whatever the one before did: a database left running outlives the test run.
    try {
      for (const c of clients) await c.close().catch(() => undefined);
      await proxy?.close();
      await Promise.allSettled((replicas ?? []).map((r) => r.close()));
      await env?.close();
    } finally {
      await db?.stop();
    }
  });

  it('spreads new sessions over both replicas and keeps each on its own', async () => {
    const [one, two] = [await connect('one'), await connect('two')];
    expect(new Set([replicaOf(one), replicaOf(two)])).toEqual(new Set([0, 1]));
    await one.client.listTools();
    await two.client.listTools();
  });

  it('uses a plan made on replica A once, on replica B, after an operator approved it, and refuses it on A afterwards', async () => {
    const onA = await connect('plan-a');
    const onB = await connect('plan-b');
    const [a, b] = replicaOf(onA) === 0 ? [onA, onB] : [onB, onA];
    const code = stopScript('pve1', 100);
    const planned = runAnswer((await callTool(a, 'run_script', { code, dryRun: true })).result);
    const planId = planned.plan?.planId as string;
    expect(planId).toMatch(/^[0-9a-f]{64}$/);
    // The operator approves on replica B's host, with its configuration.
    const approved = await runCli(['approve', planId, '--config', configs[1] as string, '--yes'], { env: childEnvOf() });
    expect(approved.code, approved.stderr).toBe(0);
    const ran = runAnswer((await callTool(b, 'run_script', { code })).result);
    expect(ran.error).toBeUndefined();
    expect(statusOf(env.sim, 100)).toBe('stopped');
    const again = runAnswer((await callTool(a, 'run_script', { code })).result);
    expect(again.error?.kind).toBe('approval');
    const consumed = await queryOnce<{ n: string }>(url, "SELECT count(*) AS n FROM approval_records WHERE plan_id = $1 AND record->>'type' = 'consume'", [planId]);
    expect(consumed[0]?.n).toBe('1');
  });

  it('carries an approval through elicitation and a cancellation to the replica that holds the run', async () => {
    const c = await connectHttp(proxy.url, TOKEN, { name: 'elicit', elicit: () => ({ action: 'accept', content: { approve: true } }) });
    clients.push(c);
    const ran = runAnswer((await callTool(c, 'run_script', { code: stopScript('pve2', 110) })).result);
    expect(ran.error).toBeUndefined();
    expect(ran.approval).toMatchObject({ via: 'elicitation', answer: 'accept' });
    expect(statusOf(env.sim, 110)).toBe('stopped');
    const controller = new AbortController();
    const spinning = callTool(
      c,
      'run_script',
      { code: "console.log('spinning');\nawait pve.get('/version');\nwhile (true) {}" },
      { signal: controller.signal, timeout: 120_000, onProgress: (p) => (p.message === 'log: spinning' ? controller.abort('stop') : undefined) },
    );
    await expect(spinning).rejects.toThrow();
    // The replica freed its worker: the session's next runs are answered.
    const [one, two] = await Promise.all([callTool(c, 'run_script', { code: 'return 1;' }), callTool(c, 'run_script', { code: 'return 2;' })]);
    expect([runAnswer(one.result).result, runAnswer(two.result).result]).toEqual([1, 2]);
  }, 180_000);

  it('keeps one audit chain that verifies after 200 runs spread over both replicas', async () => {
    const sessions = await Promise.all(Array.from({ length: 8 }, (_, i) => connect(`runs-${i}`)));
    expect(new Set(sessions.map(replicaOf))).toEqual(new Set([0, 1]));
    let done = 0;
    await Promise.all(
      sessions.map(async (c, i) => {
        for (let n = 0; n < 25; n++) {
          const answer = runAnswer((await callTool(c, 'run_script', { code: `return (await pve.get('/version')).version + ':${i}:${n}';` }, { timeout: 120_000 })).result);
          expect(answer.error).toBeUndefined();
          done++;
        }
      }),
    );
    expect(done).toBe(200);
    const verified = await runCli(['audit', 'verify', '--config', configs[0] as string], { env: childEnvOf() });
    expect(verified.code, `${verified.stdout}\n${verified.stderr}`).toBe(0);
    const writers = await queryOnce<{ n: string }>(url, 'SELECT count(DISTINCT writer) AS n FROM audit_writers');
    expect(Number(writers[0]?.n)).toBeGreaterThanOrEqual(2);
    const calls = await queryOnce<{ n: string }>(url, "SELECT count(*) AS n FROM audit_entries WHERE type = 'call' AND line LIKE '%/version%'");
    expect(Number(calls[0]?.n)).toBeGreaterThanOrEqual(200);
  }, 600_000);

  it('sends a session that reaches the wrong replica a 404, and the client starts a new session', async () => {
    const c = await connect('misrouted');
    const home = replicaOf(c) as number;
    const id = (c.client.transport as { sessionId?: string }).sessionId as string;
    proxy.misroute(id, 1 - home);
    await expect(c.client.listTools()).rejects.toThrow(/404|Session not found/);
    const fresh = await connect('reinitialised');
    expect((await fresh.client.listTools()).tools.map((t) => t.name)).toContain('run_script');
  });

  it('loses no intent when a replica is killed mid-write: the other replica settles it', async () => {
    const onA = await connect('kill-a');
    const onB = await connect('kill-b');
    const victim = replicaOf(onA) === 0 ? onA : onB;
    const victimIndex = replicaOf(victim) as number;
    const code = `return await pve.post('/nodes/{node}/qemu/{vmid}/status/shutdown', { node: 'pve3', vmid: 108 });`;
    void callTool(victim, 'run_script', { code }, { timeout: 120_000 }).catch(() => undefined);
    // The intent is durable in the database before the write leaves.
    const intent = await vi.waitFor(
      async () => {
        const rows = await queryOnce<{ seq: string; writer: string }>(url, "SELECT seq, writer FROM audit_entries WHERE type = 'intent' AND line LIKE '%/status/shutdown%'");
        expect(rows).toHaveLength(1);
        return rows[0] as { seq: string; writer: string };
      },
      { timeout: 60_000, interval: 100 },
    );
    (replicas[victimIndex] as HttpServerProcess).child.kill('SIGKILL');
    const settled = await vi.waitFor(
      async () => {
        const rows = await queryOnce<{ line: string }>(url, "SELECT line FROM audit_entries WHERE type = 'recovered' AND settles = $1", [intent.seq]);
        expect(rows).toHaveLength(1);
        return JSON.parse((rows[0] as { line: string }).line) as { data: { writer: string; outcome: string } };
      },
      { timeout: 90_000, interval: 250 },
    );
    expect(settled.data.writer).toBe(intent.writer);
    expect(['made', 'not-made', 'unknown']).toContain(settled.data.outcome);
    const verified = await runCli(['audit', 'verify', '--config', configs[1 - victimIndex] as string], { env: childEnvOf() });
    expect(verified.code, `${verified.stdout}\n${verified.stderr}`).toBe(0);
  }, 240_000);
});
