/**
 * The audit on a real PostgreSQL shared by replicas: writers in separate processes (each with its
 * own connection, as replicas on other hosts would have) append to one chain that verifies; the
 * intents of a writer killed with SIGKILL are what another replica recovers, exactly once, and
 * never those of a live writer; a database that cannot be written fails closed and the gap is
 * explained when it comes back. Runs the built code in the child processes (`npm run build`).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runIntentRecovery } from '../../src/app/intent-recovery.js';
import { parseEntryLine } from '../../src/audit/entry.js';
import { PostgresAuditLog } from '../../src/audit/postgres-log.js';
import { verifyPostgresAudit } from '../../src/audit/postgres-verify.js';
import { AuditError } from '../../src/files/errors.js';
import { openPostgres } from '../../src/state/postgres/open.js';
import type { PostgresState } from '../../src/state/postgres/sql.js';
import { postgresUnavailable, queryOnce, startPostgres, type TestPostgres } from '../support/postgres.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const WRITER = join(HERE, 'fixtures', 'pg-writer.mjs');
const BUILT = resolve(HERE, '..', '..', 'dist', 'src', 'audit', 'postgres-log.js');
const KEY = 'k'.repeat(32);
const why = postgresUnavailable();

describe.skipIf(why !== undefined)(`the audit on PostgreSQL${why ? ` (skipped: ${why})` : ''}`, () => {
  let server: TestPostgres;
  let url: string;
  const stores: PostgresState[] = [];
  const logs: PostgresAuditLog[] = [];
  const children: ChildProcessWithoutNullStreams[] = [];

  /** A replica's own connection (the chain is shared through the database only). */
  const replica = (extra: { statementTimeoutMs?: number; stderr?: (l: string) => void } = {}): PostgresAuditLog => {
    const db = openPostgres({ url, ...(extra.statementTimeoutMs ? { statementTimeoutMs: extra.statementTimeoutMs } : {}) });
    stores.push(db);
    const log = PostgresAuditLog.open({ db, hmacKey: KEY, ...(extra.stderr ? { stderr: extra.stderr } : {}) });
    logs.push(log);
    return log;
  };

  beforeAll(async () => {
    if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run \`npm run build\` first (npm test does)`);
    server = await startPostgres();
    url = await server.createDatabase();
  }, 120_000);
  afterEach(() => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
  });
  afterAll(async () => {
    for (const l of logs) l.close();
    for (const s of stores) s.close();
    await server?.stop();
  });

  /** Start a writer process; resolves with the JSON line it prints (after its appends or intents). */
  function writer(args: string[]): Promise<{ child: ChildProcessWithoutNullStreams; writer: string; seqs?: number[] }> {
    const child = spawn(process.execPath, [WRITER, url, ...args]);
    children.push(child);
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    return new Promise((ok, fail) => {
      createInterface({ input: child.stdout }).once('line', (line) => ok({ child, ...(JSON.parse(line) as { writer: string; seqs?: number[] }) }));
      child.once('exit', (code) => fail(new Error(`writer exited ${code}: ${stderr}`)));
    });
  }

  it('two replicas appending 200 entries at once leave one chain that verifies, each entry once', async () => {
    const [a, b] = await Promise.all([writer(['append', '100']), writer(['append', '100'])]);
    const finished = [a, b].map((w) => new Promise<number | null>((ok) => w.child.once('exit', ok)));
    for (const w of [a, b]) w.child.stdin.write('go\n');
    expect(await Promise.all(finished)).toEqual([0, 0]);
    const v = verifyPostgresAudit(openStore(), { hmacKey: KEY });
    expect(v.problems).toEqual([]);
    expect(v.ok).toBe(true);
    const rows = await queryOnce(url, "SELECT seq, line FROM audit_entries WHERE chain = 'audit' AND type = 'call' ORDER BY seq");
    expect(rows).toHaveLength(200);
    const seen = rows.map((r) => parseEntryLine(String(r.line))?.data as { runId: string; i: number });
    for (const child of [a, b]) {
      const mine = seen.filter((d) => d.runId === `r-${child.child.pid}`).map((d) => d.i);
      expect(mine).toEqual([...Array(100).keys()]);
    }
    // The two appended in turn, not one after the other: the order interleaves somewhere.
    const owners = seen.map((d) => d.runId);
    expect(owners.some((o, i) => i > 0 && o !== owners[i - 1] && owners.slice(i).includes(owners[i - 1] as string))).toBe(true);
    const head = (await queryOnce(url, "SELECT seq FROM audit_chain WHERE chain = 'audit'"))[0];
    expect(Number(head?.seq)).toBe(v.lastSeq);
  }, 60_000);

  function openStore(): PostgresState {
    const db = openPostgres({ url });
    stores.push(db);
    return db;
  }

  it("recovers the open intents of a writer killed with SIGKILL, exactly once, and never a live writer's", async () => {
    const here = replica();
    const mine = here.intend({ runId: 'here', cluster: 'lab', method: 'POST', path: '/nodes/pve1/qemu/100/status/start' });
    const live = await writer(['intend', '2', '1']);
    const doomed = await writer(['intend', '3', '1']);
    // Before the kill every writer holds its lock: nothing to recover.
    expect(here.intents.orphans()).toEqual([]);
    await new Promise<void>((ok) => {
      doomed.child.once('exit', () => ok());
      doomed.child.kill('SIGKILL');
    });
    // The database notices the dropped connection at once (the socket closes with the process).
    const other = replica();
    const orphans = other.intents.orphans();
    expect(orphans.map((o) => o.seq)).toEqual(doomed.seqs?.slice(1));
    expect(orphans.every((o) => o.writer === doomed.writer)).toBe(true);
    expect(orphans.map((o) => o.seq)).not.toContain(mine.seq);
    for (const s of live.seqs ?? []) expect(orphans.map((o) => o.seq)).not.toContain(s);

    // Two replicas settle the same orphan: one recovered entry, the other writes nothing.
    const first = orphans[0] as (typeof orphans)[number];
    const settled = other.intents.settle({ intent: first.seq, writer: first.writer, outcome: 'not-made', evidence: 'test' });
    expect(settled?.type).toBe('recovered');
    expect(here.intents.settle({ intent: first.seq, writer: first.writer, outcome: 'made', evidence: 'test' })).toBeUndefined();
    expect(await queryOnce(url, 'SELECT seq FROM audit_entries WHERE settles = $1', [first.seq])).toHaveLength(1);

    // Retired only once nothing of it is open.
    expect(other.intents.retireSettled()).toEqual([]);
    const second = orphans[1] as (typeof orphans)[number];
    other.intents.settle({ intent: second.seq, writer: second.writer, outcome: 'unknown', evidence: 'test' });
    expect(other.intents.retireSettled()).toEqual([doomed.writer]);
    expect(other.intents.orphans()).toEqual([]);

    const v = verifyPostgresAudit(openStore(), { hmacKey: KEY });
    expect(v.ok, JSON.stringify(v.problems)).toBe(true);
    const open = new Map(v.openIntents.map((i) => [i.seq, i.alive]));
    expect(open.get(mine.seq)).toBe(true);
    expect(open.get(live.seqs?.[1] as number)).toBe(true);
    live.child.stdin.end();
  }, 60_000);

  it('a running server recovers the intents of a replica that dies while it runs (the periodic sweep)', async () => {
    const here = replica();
    const said: string[] = [];
    const stop = new AbortController();
    const sweeping = runIntentRecovery({ audit: here, client: () => undefined, log: (l) => said.push(l), signal: stop.signal }, { everyMs: 100 });
    const doomed = await writer(['intend', '2', '0', 'bare']);
    await new Promise((ok) => setTimeout(ok, 300));
    expect(await queryOnce(url, 'SELECT settles FROM audit_entries WHERE settles = ANY($1)', [doomed.seqs])).toEqual([]); // alive: untouched
    doomed.child.kill('SIGKILL');
    const deadline = Date.now() + 10_000;
    let settled: Array<Record<string, unknown>> = [];
    while (Date.now() < deadline && settled.length < 2) {
      await new Promise((ok) => setTimeout(ok, 100));
      settled = await queryOnce(url, "SELECT settles, line FROM audit_entries WHERE type = 'recovered' AND settles = ANY($1) ORDER BY settles", [doomed.seqs]);
    }
    stop.abort();
    await sweeping;
    expect(settled.map((r) => Number(r.settles))).toEqual(doomed.seqs);
    expect(parseEntryLine(String(settled[0]?.line))?.data).toMatchObject({ writer: doomed.writer, outcome: 'unknown' });
    expect(said.join('\n')).toMatch(/recovered 2 change\(s\)/);
  }, 30_000);

  it('a writer that closes with an intent still open leaves it for recovery; one without is retired at once', async () => {
    const a = replica();
    const b = replica();
    const open = a.intend({ runId: 'closing', cluster: 'lab', method: 'DELETE', path: '/nodes/pve1/qemu/101' });
    b.append('run-start', { runId: 'clean' });
    a.close();
    b.close();
    const watcher = replica();
    expect(
      watcher.intents
        .orphans()
        .filter((o) => o.writer === a.writer || o.writer === b.writer)
        .map((o) => o.seq),
    ).toEqual([open.seq]);
    const rows = await queryOnce(url, 'SELECT writer, retired_at FROM audit_writers WHERE writer = ANY($1)', [[a.writer, b.writer]]);
    expect(new Map(rows.map((r) => [r.writer, r.retired_at !== null]))).toEqual(
      new Map([
        [a.writer, false],
        [b.writer, true],
      ]),
    );
    watcher.intents.settle({ intent: open.seq, writer: a.writer, outcome: 'not-made', evidence: 'test' });
  }, 30_000);

  it('fails closed while the database cannot take the entry, then explains the gap', async () => {
    const said: string[] = [];
    const log = replica({ statementTimeoutMs: 300, stderr: (l) => said.push(l) });
    // Another session holds the chain's head row: appends wait past their statement timeout.
    const blocker = new pg.Client({ connectionString: url });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query("SELECT seq FROM audit_chain WHERE chain = 'audit' FOR UPDATE");
    const before = await queryOnce(url, "SELECT count(*)::int AS n FROM audit_entries WHERE type = 'intent' AND line LIKE '%blocked%'");
    let error: unknown;
    try {
      log.intend({ runId: 'blocked', cluster: 'lab', method: 'POST', path: '/nodes/pve1/qemu/100/status/stop' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(AuditError);
    expect((error as AuditError).code).toBe('audit-unavailable');
    expect(() => log.append('call', { runId: 'blocked' })).toThrow(/cannot be written/);
    expect(said.filter((l) => /cannot be written/.test(l))).toHaveLength(1); // once per streak
    await blocker.query('ROLLBACK');
    await blocker.end();
    expect(await queryOnce(url, "SELECT count(*)::int AS n FROM audit_entries WHERE type = 'intent' AND line LIKE '%blocked%'")).toEqual(before);

    const after = log.append('run-end', { runId: 'resumed' });
    const gap = parseEntryLine(String((await queryOnce(url, 'SELECT line FROM audit_entries WHERE seq = $1', [after.seq - 1]))[0]?.line));
    expect(gap?.type).toBe('alert');
    expect(gap?.data).toMatchObject({ cause: 'audit-unavailable', lost: 2 });
    expect(said.at(-1)).toMatch(/writable again after 2 entries/);
    const v = verifyPostgresAudit(openStore(), { hmacKey: KEY });
    expect(v.explained.map((e) => e.seq)).toContain(gap?.seq);
  }, 30_000);
});
