/**
 * The one-statement append of the PostgreSQL audit (src/audit/postgres-chain.ts `appendAtHead`):
 * a writer links its entry to the chain's end it last saw, and the database writes it only if the
 * chain still ends there. Shown here on a real server: an append that lost the race to another
 * replica writes nothing and the entry goes after the other's (one chain that verifies); and an
 * intent is on the database's disk when `intend` returns even where the server's default is
 * asynchronous commit.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEntryLine } from '../../src/audit/entry.js';
import { appendAtHead, readHead } from '../../src/audit/postgres-chain.js';
import { PostgresAuditLog } from '../../src/audit/postgres-log.js';
import { verifyPostgresAudit } from '../../src/audit/postgres-verify.js';
import { openPostgres } from '../../src/state/postgres/open.js';
import type { PostgresState } from '../../src/state/postgres/sql.js';
import { postgresUnavailable, startPostgres, type TestPostgres } from '../support/postgres.js';

const KEY = 'a'.repeat(32);
const why = postgresUnavailable();

describe.skipIf(why !== undefined)(`appending to the PostgreSQL audit in one statement${why ? ` (skipped: ${why})` : ''}`, () => {
  let server: TestPostgres;
  const stores: PostgresState[] = [];
  const logs: PostgresAuditLog[] = [];

  beforeAll(async () => {
    server = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    for (const l of logs) l.close();
    for (const s of stores) s.close();
    await server?.stop();
  });

  /** A replica: its own store (connections) and its own audit writer. */
  const replica = (url: string): { db: PostgresState; log: PostgresAuditLog } => {
    const db = openPostgres({ url });
    stores.push(db);
    const log = PostgresAuditLog.open({ db, hmacKey: KEY });
    logs.push(log);
    return { db, log };
  };

  it('an append that lost the race to another replica writes nothing, and the entry follows the other one', async () => {
    const url = await server.createDatabase();
    const a = replica(url);
    const b = replica(url);
    const seen = readHead(a.db, 'audit') as { seq: number; hash: string };
    const mine = a.log.append('run-start', { runId: 'a' });
    const count = () => Number(a.db.query<{ n: string }>('SELECT count(*) AS n FROM audit_entries')[0]?.n);
    const before = count();
    // A writer whose end is stale (the chain moved on since it looked): nothing is written.
    expect(appendAtHead(b.db, 'audit', seen, 'hmac-sha256', { hmacKey: KEY, now: () => new Date() }, 'call', { runId: 'stale' })).toBeUndefined();
    // Nor at the right seq with another algorithm: that chain goes on only after a new head entry.
    expect(appendAtHead(b.db, 'audit', { seq: mine.seq, hash: mine.hash }, 'sha256', { now: () => new Date() }, 'call', { runId: 'other-alg' })).toBeUndefined();
    expect(count()).toBe(before);

    // Both replicas append in turn: each append after the other's finds its own end stale.
    const written = [];
    for (let i = 0; i < 3; i++) written.push(b.log.append('call', { runId: 'b', i }), a.log.intend({ runId: 'a', i, method: 'POST', path: '/nodes/pve1/qemu/100/snapshot' }));
    expect(written.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6].map((k) => mine.seq + k));
    const lines = a.db.query<{ line: string }>('SELECT line FROM audit_entries WHERE chain = $1 AND seq > $2 ORDER BY seq', ['audit', mine.seq]).map((r) => parseEntryLine(r.line));
    expect(lines.map((e) => e?.hash)).toEqual(written.map((e) => e.hash));
    expect(lines[0]?.prev).toBe(mine.hash);
    expect(readHead(a.db, 'audit')).toMatchObject({ seq: mine.seq + 6, hash: written.at(-1)?.hash });
    const v = verifyPostgresAudit(a.db, { hmacKey: KEY });
    expect(v.problems).toEqual([]);
    expect(v.ok).toBe(true);
  }, 30_000);

  it('an intent is on the database disk when intend returns, even where commits default to asynchronous', async () => {
    const url = await server.createDatabase();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      // Asynchronous commit by default, and a WAL writer that flushes it only every 10 s.
      await admin.query('CREATE EXTENSION IF NOT EXISTS pageinspect');
      await admin.query(`ALTER DATABASE "${new URL(url).pathname.slice(1)}" SET synchronous_commit = off`);
      await admin.query("ALTER SYSTEM SET wal_writer_delay = '10s'");
      await admin.query('SELECT pg_reload_conf()');
      const { log } = replica(url);
      /** Whether the WAL is flushed past the change that wrote entry `seq` (its page's LSN). */
      const onDisk = async (seq: number): Promise<boolean> => {
        const q = `SELECT pg_current_wal_flush_lsn() >= (SELECT lsn FROM page_header(get_raw_page('audit_entries', (SELECT (ctid::text::point)[0]::int FROM audit_entries WHERE seq = $1)))) AS flushed`;
        return (await admin.query<{ flushed: boolean }>(q, [seq])).rows[0]?.flushed === true;
      };
      // What a commit without synchronous_commit leaves: not yet flushed (the check can tell).
      await admin.query('SET synchronous_commit = off');
      await admin.query('CREATE TABLE probe (n int)');
      await admin.query('INSERT INTO probe VALUES (1)');
      await admin.query('INSERT INTO probe VALUES (2)');
      const lag = await admin.query<{ flushed: boolean }>("SELECT pg_current_wal_flush_lsn() >= (SELECT lsn FROM page_header(get_raw_page('probe', 0))) AS flushed");
      expect(lag.rows[0]?.flushed).toBe(false);
      for (let i = 0; i < 5; i++) {
        const intent = log.intend({ runId: 'durable', i, method: 'POST', path: '/nodes/pve1/qemu/100/status/stop' });
        expect(await onDisk(intent.seq)).toBe(true);
      }
    } finally {
      await admin.query('ALTER SYSTEM RESET wal_writer_delay').catch(() => undefined);
      await admin.query('SELECT pg_reload_conf()').catch(() => undefined);
      await admin.end();
    }
  }, 30_000);
});
