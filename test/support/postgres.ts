/**
 * A real PostgreSQL server for the shared-state tests: Debian's binaries, a fresh cluster on
 * 127.0.0.1 (skipped, saying why, where there is none; required under CI=true). The logic is in
 * bench/lib/postgres-server.ts, which the `state` benchmark runs from dist/ as well. Here: what the
 * test files share on top of it.
 */
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { openPostgres } from '../../src/state/postgres/open.js';
import type { PostgresState } from '../../src/state/postgres/sql.js';
import { postgresUnavailable, startPostgres, type TestPostgres } from '../../bench/lib/postgres-server.js';

export { postgresUnavailable, startPostgres, type TestPostgres };

/** One statement on a connection of its own: what a test reads, or changes behind the product's back. */
export async function queryOnce<R = Record<string, unknown>>(url: string, text: string, params: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as R[];
  } finally {
    await client.end();
  }
}

export interface PostgresStoreFixture {
  /** The test database's URL ('' where PostgreSQL is unavailable). */
  readonly url: string;
  /** The product's store on it (throws where PostgreSQL is unavailable: skip those cases). */
  readonly pg: PostgresState;
}

/**
 * A server, one database and the product's store on it for the test file (or describe block) that
 * calls this: started before its tests, stopped after them. Nothing starts where
 * `postgresUnavailable()` says why.
 */
export function usePostgresStore(): PostgresStoreFixture {
  let server: TestPostgres | undefined;
  let store: PostgresState | undefined;
  let url = '';
  beforeAll(async () => {
    if (postgresUnavailable()) return;
    server = await startPostgres();
    url = await server.createDatabase();
    store = openPostgres({ url });
  }, 120_000);
  afterAll(async () => {
    try {
      store?.close();
    } finally {
      await server?.stop();
    }
  });
  return {
    get url() {
      return url;
    },
    get pg() {
      if (!store) throw new Error(`no test PostgreSQL: ${postgresUnavailable() ?? 'not started yet'}`);
      return store;
    },
  };
}
