/**
 * `audit verify` against the database and `audit export`: the CLI (built) checks the chain in
 * PostgreSQL with the config's key and witness, exports it to the file log's format, and verifies
 * the export as a file; rows edited, deleted, swapped or cut off the end are reported as such.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAuditLog } from '../../src/audit/postgres-log.js';
import { verifyPostgresAudit } from '../../src/audit/postgres-verify.js';
import { openPostgres } from '../../src/state/postgres/open.js';
import type { PostgresState } from '../../src/state/postgres/sql.js';
import { runCli } from '../e2e/helpers/harness.js';
import { postgresUnavailable, queryOnce, startPostgres, type TestPostgres } from '../support/postgres.js';

const KEY = 'v'.repeat(32);
const why = postgresUnavailable();

describe.skipIf(why !== undefined)(`audit verify and export on PostgreSQL${why ? ` (skipped: ${why})` : ''}`, () => {
  let server: TestPostgres;
  let url: string;
  let db: PostgresState;
  let dir: string;
  let config: string;
  let witness: string;

  /** A chain of a run with a settled intent and one left open. */
  function writeChain(chain: string, withWitness = false): PostgresAuditLog {
    const log = PostgresAuditLog.open({ db, chain, hmacKey: KEY, ...(withWitness ? { witness: { file: witness } } : {}) });
    log.append('run-start', { runId: 'r1', code: 'await pve.post(…)' });
    for (let i = 0; i < 4; i++) {
      const intent = log.intend({ runId: 'r1', cluster: 'lab', method: 'POST', path: `/nodes/pve1/qemu/${100 + i}/snapshot`, params: { snapname: `s${i}` } });
      log.append('call', { runId: 'r1', intent: intent.seq, outcome: 'done', status: 200 });
    }
    log.intend({ runId: 'r1', cluster: 'lab', method: 'DELETE', path: '/nodes/pve1/qemu/104' });
    log.append('run-end', { runId: 'r1', ok: true });
    return log;
  }

  const cli = (args: string[]) => runCli(['audit', ...args, '-c', config], { env: { ...(process.env as Record<string, string>), PVE_CODE_MCP_CONFIG: '' } });

  beforeAll(async () => {
    server = await startPostgres();
    url = await server.createDatabase();
    db = openPostgres({ url });
    dir = mkdtempSync(join(tmpdir(), 'pg-audit-verify-'));
    witness = join(dir, 'witness', 'chain.log');
    config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ audit: { hmacKey: KEY, witness: { file: witness } }, state: { dir: join(dir, 'state'), postgres: { url } } }));
    mkdirSync(join(dir, 'witness'));
    const log = writeChain('audit', true);
    await log.flushWitness(1_000);
    log.close();
  }, 120_000);
  afterAll(async () => {
    db?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('verifies the database with the config, exports it, and the export verifies as a file', async () => {
    const v = await cli(['verify']);
    expect(v.code, v.stdout + v.stderr).toBe(0);
    expect(v.stdout).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/\w+ \(key config, witness .*chain\.log\)/);
    expect(v.stdout).toMatch(/audit OK: 12 entries in 1 file\(s\), 1 run\(s\), last seq 11, 1 witness record\(s\) matched/);
    expect(v.stdout).toMatch(/intents: 5 written, 4 settled by an outcome, 1 open/);
    expect(v.stdout).toMatch(/open intent seq 10 .* gone: to be recovered/);

    const out = join(dir, 'export', 'audit.jsonl');
    mkdirSync(join(dir, 'export'));
    const e = await cli(['export', '--out', out]);
    expect(e.code, e.stdout + e.stderr).toBe(0);
    expect(e.stdout).toContain(`exported 12 entries (last seq 11)`);
    const f = await cli(['verify', out]);
    expect(f.code, f.stdout + f.stderr).toBe(0);
    expect(f.stdout).toMatch(/audit OK: 12 entries in 1 file\(s\).*1 witness record\(s\) matched/);
    const again = await cli(['export', '--out', out]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/exists: export to a new path/);
  }, 60_000);

  it('reports a row edited in the database, and so does its export', async () => {
    writeChain('edited').close();
    const before = verifyPostgresAudit(db, { chain: 'edited', hmacKey: KEY });
    expect(before.ok, JSON.stringify(before.problems)).toBe(true);
    await queryOnce(url, `UPDATE audit_entries SET line = replace(line, '"snapname":"s2"', '"snapname":"s9"') WHERE chain = 'edited' AND seq = 6`);
    const after = verifyPostgresAudit(db, { chain: 'edited', hmacKey: KEY });
    expect(after.problems.map((p) => [p.kind, p.seq])).toEqual([['edited', 6]]);
  });

  it('the CLI reports the edited row of the deployment chain', async () => {
    await queryOnce(url, `UPDATE audit_entries SET line = replace(line, '"status":200', '"status":500') WHERE chain = 'audit' AND seq = 5`);
    const v = await cli(['verify']);
    expect(v.code).toBe(1);
    expect(v.stdout).toMatch(/audit FAILED/);
    expect(v.stdout).toMatch(/\[edited\] chain 'audit':6 entry seq 5 does not match its hash/);
  }, 30_000);

  it("reads a run's changes back for undo: its intents with their outcomes, a recovery's included", () => {
    const log = writeChain('undo');
    const changes = log.runChanges('r1');
    expect(changes.map((c) => [c.method, c.outcome])).toEqual([...Array(4).fill(['POST', 'done']), ['DELETE', 'open']]);
    const open = changes[4] as (typeof changes)[number];
    log.recovered({ intent: open.seq, writer: log.writer, outcome: 'made', evidence: 'test' });
    expect(log.runChanges('r1').at(-1)?.outcome).toBe('made');
    expect(log.runChanges('r2')).toEqual([]);
    log.close();
  });

  it('reports a deleted row, swapped rows and rows cut off the end', async () => {
    writeChain('deleted').close();
    await queryOnce(url, "DELETE FROM audit_entries WHERE chain = 'deleted' AND seq = 4");
    expect(verifyPostgresAudit(db, { chain: 'deleted', hmacKey: KEY }).problems.map((p) => [p.kind, p.seq])).toEqual([['deleted', 5]]);

    writeChain('swapped').close();
    await queryOnce(url, "UPDATE audit_entries SET seq = -1 WHERE chain = 'swapped' AND seq = 3");
    await queryOnce(url, "UPDATE audit_entries SET seq = 3 WHERE chain = 'swapped' AND seq = 4");
    await queryOnce(url, "UPDATE audit_entries SET seq = 4 WHERE chain = 'swapped' AND seq = -1");
    expect(verifyPostgresAudit(db, { chain: 'swapped', hmacKey: KEY }).problems.map((p) => p.kind)).toContain('reordered');

    writeChain('cut').close();
    await queryOnce(url, "DELETE FROM audit_entries WHERE chain = 'cut' AND seq >= 10");
    const cut = verifyPostgresAudit(db, { chain: 'cut', hmacKey: KEY });
    expect(cut.problems.map((p) => [p.kind, p.seq])).toEqual([['truncated', 9]]);
    expect(cut.problems[0]?.message).toMatch(/head row records seq 11: 2 entries were cut off the end/);
  });
});
