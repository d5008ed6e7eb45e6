/**
 * One store's read-then-change steps serialised across replicas on PostgreSQL: `locked` runs its
 * function in a transaction that first takes a transaction-level advisory lock (released by the
 * COMMIT or ROLLBACK, and by the server when the connection dies), and while it runs, `sql` is that
 * transaction, so every statement of the step sees what the previous holder committed and nothing
 * another replica does meanwhile. The synchronous Sql (src/state/postgres) makes the step
 * uninterruptible on this thread, so there is no interleaving within a process either.
 */
import type { Sql } from '../state/postgres/sql.js';

/**
 * The advisory lock keys of the safety stores (int8, written as decimal literals: a key is never a
 * parameter). Distinct from each other and from the audit's; the bytes spell the store's name.
 */
export const LOCK_KEYS = {
  /** 'pvmcappr' */
  approvals: '8103784853103734898',
  /** 'pvmcstan' */
  standing: '8103784853405983086',
} as const;

export class PostgresSerial {
  private tx: Sql | undefined;

  constructor(
    private readonly pg: Sql,
    private readonly key: (typeof LOCK_KEYS)[keyof typeof LOCK_KEYS],
  ) {}

  /** The transaction of the step in progress, else the pool (one autocommit statement). */
  get sql(): Sql {
    return this.tx ?? this.pg;
  }

  /** `fn` under the lock, in one transaction: committed when it returns, rolled back when it throws. */
  locked<T>(fn: () => T): T {
    if (this.tx) return fn();
    return this.pg.transaction((tx) => {
      tx.query(`select pg_advisory_xact_lock(${this.key})`);
      this.tx = tx;
      try {
        return fn();
      } finally {
        this.tx = undefined;
      }
    });
  }
}
