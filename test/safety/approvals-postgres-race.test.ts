/**
 * Approvals are single-use across replicas: two processes, each with its own connection pool to one
 * PostgreSQL database and its own ApprovalStore (as two `serve --http` replicas have), claim the
 * same approvals at the same instant. Each approval goes to exactly one of them, and the loser of
 * each race finds nothing (the store's advisory lock made it see the winner's consume), rather than
 * tripping over the unique index. Runs the built code (`npm run build`).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresApprovalBackend } from '../../src/safety/approval-postgres.js';
import { ApprovalStore } from '../../src/safety/approval.js';
import { deletePlan } from '../support/delete-plan.js';
import { openPostgres } from '../../src/state/postgres/open.js';
import type { PostgresState } from '../../src/state/postgres/sql.js';
import { postgresUnavailable, startPostgres, type TestPostgres } from '../support/postgres.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const CLAIMER = join(HERE, 'fixtures', 'pg-claimer.mjs');
if (!existsSync(resolve(HERE, '..', '..', 'dist', 'src', 'safety', 'approval-postgres.js'))) throw new Error('dist is missing: run `npm run build` first (npm test does)');

const why = postgresUnavailable();

interface Replica {
  ready: Promise<void>;
  go(): void;
  result: Promise<{ runId: string; won: string[]; errors: string[] }>;
}

function replica(url: string, runId: string, codeHashes: string[]): Replica {
  const child = spawn(process.execPath, [CLAIMER, url, runId, ...codeHashes], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  let readied: () => void = () => undefined;
  const ready = new Promise<void>((r) => {
    readied = r;
  });
  const result = new Promise<{ runId: string; won: string[]; errors: string[] }>((resolveResult, reject) => {
    child.once('exit', (code) => code !== 0 && reject(new Error(`claimer ${runId} exited with ${code}`)));
    lines.on('line', (line) => (line === 'ready' ? readied() : resolveResult(JSON.parse(line))));
  });
  return { ready, go: () => child.stdin.write('go\n'), result };
}

describe.skipIf(why !== undefined)(`approvals raced for by two replicas on one PostgreSQL${why ? ` (skipped: ${why})` : ''}`, () => {
  let server: TestPostgres;
  let url: string;
  let pg: PostgresState;

  beforeAll(async () => {
    server = await startPostgres();
    url = await server.createDatabase();
    pg = openPostgres({ url });
  }, 120_000);
  afterAll(async () => {
    pg?.close();
    await server?.stop();
  });

  it('each approval is claimed by exactly one replica, and the other finds it taken', async () => {
    const store = new ApprovalStore(new PostgresApprovalBackend(pg));
    const plans = Array.from({ length: 30 }, (_, i) => deletePlan(i));
    for (const p of plans) {
      store.savePlan(p);
      store.approve(p.planId, { approvedBy: 'operator' });
    }
    const hashes = plans.map((p) => p.codeHash);
    const replicas = [replica(url, 'replica-a', hashes), replica(url, 'replica-b', hashes)];
    await Promise.all(replicas.map((r) => r.ready));
    for (const r of replicas) r.go();
    const results = await Promise.all(replicas.map((r) => r.result));
    expect(results.flatMap((r) => r.errors)).toEqual([]);
    const won = results.flatMap((r) => r.won);
    expect(won.sort()).toEqual(plans.map((p) => p.planId).sort());
    const consumes = pg.query<{ n: string }>("SELECT count(*)::text AS n FROM approval_records WHERE record->>'type' = 'consume'");
    expect(consumes[0]?.n).toBe(String(plans.length));
    for (const p of plans) expect(store.status(p.planId)?.status).toBe('ran');
  }, 60_000);
});
