/**
 * Who writes the audit in PostgreSQL, and whether they still live, whatever host they run on.
 *
 * Each open of the audit is a writer with a random id; it takes a session advisory lock under a
 * random key of its own (`PostgresState.holdLock`, on a connection kept for it) and only then
 * registers in `audit_writers` — so a registered writer that is alive always holds its lock. The
 * lock is its liveness proof: when the process dies (killed, crashed, its host lost), the
 * database drops its connection and the lock with it, and `lockHeld` says it is gone. A live but
 * busy or stopped process keeps its lock: it is never judged gone. No clock, no heartbeat.
 *
 * A writer that closes releases its lock; it is retired at once when none of its intents is
 * open, else left registered so that a recovery settles its open intents (an intent whose COMMIT
 * timed out, say) like those of a writer that died.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { PostgresState, Sql } from '../state/postgres/sql.js';

export interface PostgresWriter {
  id: string;
  host: string;
  pid: number;
  startedAt: string;
  lockKey: bigint;
}

export interface PostgresWriterStatus extends PostgresWriter {
  alive: boolean;
  /** Why it is judged alive or gone, in words. */
  reason: string;
}

/** A random positive 63-bit key: the advisory lock space is shared with the rest of the product. */
function randomLockKey(): bigint {
  return randomBytes(8).readBigUInt64BE() & 0x7fff_ffff_ffff_ffffn;
}

export interface PostgresRegistration {
  readonly key: bigint;
  /** Release the lock; retire the registration when none of the writer's intents on `chain` is open. */
  remove(chain: string): void;
}

/** Take writer `id`'s lock, then register it (in that order: a registered live writer holds its lock). */
export function registerPostgresWriter(db: PostgresState, id: string, now: Date): PostgresRegistration {
  const key = randomLockKey();
  const lock = db.holdLock(key);
  try {
    db.query('INSERT INTO audit_writers (writer, host, pid, started_at, lock_key) VALUES ($1, $2, $3, $4, $5)', [id, hostname(), process.pid, now.toISOString(), key.toString()]);
  } catch (err) {
    lock.release();
    throw err;
  }
  return {
    key,
    remove(chain: string) {
      try {
        retireIfSettled(db, chain, [id]);
      } finally {
        lock.release();
      }
    },
  };
}

/** Registered (not retired) writers with their liveness: alive while someone holds their lock. */
export function listPostgresWriters(db: PostgresState): PostgresWriterStatus[] {
  const rows = db.query<{ writer: string; host: string; pid: number; started_at: Date | string; lock_key: string }>(
    'SELECT writer, host, pid, started_at, lock_key FROM audit_writers WHERE retired_at IS NULL ORDER BY started_at',
  );
  return rows.map((r) => {
    const w: PostgresWriter = { id: r.writer, host: r.host, pid: Number(r.pid), startedAt: new Date(r.started_at).toISOString(), lockKey: BigInt(r.lock_key) };
    const alive = db.lockHeld(w.lockKey);
    const reason = alive ? `process ${w.pid} on ${w.host} holds its database lock` : `its database lock is free: process ${w.pid} on ${w.host} ended or lost its connection to the database`;
    return { ...w, alive, reason };
  });
}

/**
 * Retire those of `ids` none of whose intents on `chain` is open; returns the ids retired. The
 * caller has judged them gone (or is the writer itself, closing).
 */
export function retireIfSettled(sql: Sql, chain: string, ids: string[]): string[] {
  if (ids.length === 0) return [];
  const rows = sql.query<{ writer: string }>(
    `UPDATE audit_writers w SET retired_at = now()
      WHERE w.writer = ANY($1::text[]) AND w.retired_at IS NULL
        AND NOT EXISTS (SELECT 1 FROM audit_entries i WHERE i.chain = $2 AND i.type = 'intent' AND i.writer = w.writer
                          AND NOT EXISTS (SELECT 1 FROM audit_entries s WHERE s.chain = i.chain AND s.settles = i.seq))
      RETURNING w.writer`,
    [ids, chain],
  );
  return rows.map((r) => r.writer);
}
