/**
 * How to reach the shared PostgreSQL store, resolved from the config's `state.postgres` section,
 * and how to name it in messages without its password.
 */

export interface PostgresSettings {
  /** A libpq-style URL, `postgres://user:password@host:5432/database`. */
  url: string;
  /** Connections kept by this process (besides one per held session lock). */
  poolMax?: number;
  /** How long to wait for a connection (and for a free one from the pool). */
  connectTimeoutMs?: number;
  /** How long one statement may run on the server before it is cancelled. */
  statementTimeoutMs?: number;
}

export const DEFAULT_POOL_MAX = 4;
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
export const DEFAULT_STATEMENT_TIMEOUT_MS = 5_000;

/** The URL as messages show it: user, host, port and database, never the password or query options. */
export function describePostgresUrl(url: string): string {
  try {
    const u = new URL(url);
    const user = u.username ? `${decodeURIComponent(u.username)}@` : '';
    return `${u.protocol}//${user}${u.host}${u.pathname}`;
  } catch {
    return 'postgres://(unparsable URL)';
  }
}
