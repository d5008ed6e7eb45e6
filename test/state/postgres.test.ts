/**
 * The synchronous PostgreSQL store against a real server: statements, transactions, the session
 * locks that prove a writer alive, migrations, and how it fails (closed, with a code).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StateError } from '../../src/state/errors.js';
import { MIGRATIONS, migrate } from '../../src/state/postgres/migrations.js';
import { openPostgres } from '../../src/state/postgres/open.js';
import type { PostgresState } from '../../src/state/postgres/sql.js';
import { postgresUnavailable, startPostgres, type TestPostgres } from '../support/postgres.js';

const why = postgresUnavailable();

describe.skipIf(why !== undefined)(`the PostgreSQL state store${why ? ` (skipped: ${why})` : ''}`, () => {
  let server: TestPostgres;
  let url: string;
  const open: PostgresState[] = [];
  const store = (extra: { statementTimeoutMs?: number } = {}) => {
    const s = openPostgres({ url, ...extra });
    open.push(s);
    return s;
  };

  beforeAll(async () => {
    server = await startPostgres();
    url = await server.createDatabase();
  }, 120_000);
  afterAll(async () => {
    for (const s of open) s.close();
    await server?.stop();
  });

  it('applies its migrations once, whoever opens first', () => {
    const a = store();
    const b = store();
    const versions = a.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version').map((r) => r.version);
    expect(versions).toEqual(MIGRATIONS.map((m) => m.version));
    expect(migrate(b)).toEqual([]);
  });

  it('answers statements synchronously, with parameters', () => {
    const s = store();
    const rows = s.query<{ n: number; t: string }>('SELECT $1::int + 1 AS n, $2::text AS t', [41, 'x']);
    expect(rows).toEqual([{ n: 42, t: 'x' }]);
  });

  it('commits a transaction whole, and rolls it back whole when it throws', () => {
    const s = store();
    s.query('CREATE TABLE t_tx (v int)');
    s.transaction((tx) => {
      tx.query('INSERT INTO t_tx VALUES (1)');
      tx.query('INSERT INTO t_tx VALUES (2)');
    });
    expect(() =>
      s.transaction((tx) => {
        tx.query('INSERT INTO t_tx VALUES (3)');
        throw new Error('changed my mind');
      }),
    ).toThrow('changed my mind');
    expect(s.query<{ v: number }>('SELECT v FROM t_tx ORDER BY v').map((r) => r.v)).toEqual([1, 2]);
  });

  it('reports a broken constraint as state-conflict naming the constraint', () => {
    const s = store();
    s.query('CREATE TABLE t_unique (v int CONSTRAINT t_unique_v UNIQUE)');
    s.query('INSERT INTO t_unique VALUES (1)');
    expect.assertions(3);
    try {
      s.query('INSERT INTO t_unique VALUES (1)');
    } catch (err) {
      expect(err).toBeInstanceOf(StateError);
      expect((err as StateError).code).toBe('state-conflict');
      expect((err as StateError).constraint).toBe('t_unique_v');
    }
  });

  it('sees a session lock held by another connection until it is released', () => {
    const a = store();
    const b = store();
    const key = 424242n;
    expect(b.lockHeld(key)).toBe(false);
    const lock = a.holdLock(key);
    expect(b.lockHeld(key)).toBe(true);
    expect(a.lockHeld(key)).toBe(true);
    lock.release();
    expect(b.lockHeld(key)).toBe(false);
  });

  it('drops a session lock when its store closes (as when its process dies)', () => {
    const a = openPostgres({ url });
    const b = store();
    a.holdLock(777n);
    expect(b.lockHeld(777n)).toBe(true);
    a.close();
    expect(b.lockHeld(777n)).toBe(false);
  });

  it('fails closed with state-timeout when a statement runs past its limit', () => {
    const s = store({ statementTimeoutMs: 300 });
    expect(() => s.query('SELECT pg_sleep(3)')).toThrow(expect.objectContaining({ code: 'state-timeout' }));
    // The store still works afterwards.
    expect(s.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('refuses a database migrated by a newer build', () => {
    const s = store();
    s.query("INSERT INTO schema_migrations (version, name) VALUES (9999, 'from the future')");
    try {
      expect(() => openPostgres({ url })).toThrow(expect.objectContaining({ code: 'state-migration', message: expect.stringContaining('upgrade this replica') }));
    } finally {
      s.query('DELETE FROM schema_migrations WHERE version = 9999');
    }
  });
});

describe('the PostgreSQL state store without a database', () => {
  it('says it cannot reach the server, naming it without the password', () => {
    expect(() => openPostgres({ url: 'postgres://pve:s3cret@127.0.0.1:1/state', connectTimeoutMs: 1_000 })).toThrow(
      expect.objectContaining({ code: 'state-unavailable', message: expect.stringMatching(/^cannot reach PostgreSQL at postgres:\/\/pve@127\.0\.0\.1:1\/state: .*check state\.postgres/) }),
    );
    try {
      openPostgres({ url: 'postgres://pve:s3cret@127.0.0.1:1/state', connectTimeoutMs: 1_000 });
    } catch (err) {
      expect((err as Error).message).not.toContain('s3cret');
    }
  });
});
