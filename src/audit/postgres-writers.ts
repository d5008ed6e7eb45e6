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

/** A writer that is alive now, as the join transaction reads it (`liveWritersIn`). */
export interface LiveWriter {
  id: string;
  host: string;
  pid: number;
  /** Its audit key's id (postgres-key.ts `auditKeyId`); null for a writer registered by a build before migration 3. */
  keyId: string | null;
}

/**
 * Fixed advisory-lock key for joining the chain (any 64-bit number no other lock of the product
 * uses): the key check, the first entries and the registration of one writer happen while its
 * transaction holds it, so no other writer checks in between.
 */
const JOIN_LOCK = '7305946253316551938';

/**
 * Take writer `id`'s session lock, then, in one transaction holding the join lock, run `join`
 * (which checks the key against the live writers it is given and writes the first entries) and
 * register the writer with `keyId`. A second writer starting at the same instant waits for the
 * join lock and then sees this one registered, alive, with its key id: "check the key" and
 * "become a live writer" are one step. The session lock is taken first, so a registered live
 * writer always holds it.
 */
export function registerPostgresWriter(db: PostgresState, id: string, now: Date, keyId: string, join: (tx: Sql, live: LiveWriter[]) => void): PostgresRegistration {
  const key = randomLockKey();
  const lock = db.holdLock(key);
  try {
    db.transaction((tx) => {
      tx.query('SELECT pg_advisory_xact_lock($1::bigint)', [JOIN_LOCK]);
      join(tx, liveWritersIn(tx));
      tx.query('INSERT INTO audit_writers (writer, host, pid, started_at, lock_key, key_id) VALUES ($1, $2, $3, $4, $5, $6)', [id, hostname(), process.pid, now.toISOString(), key.toString(), keyId]);
    });
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

/**
 * Registered writers whose session lock is held now, read on `sql`'s own connection from
 * `pg_locks` (a bigint advisory key shows as classid = high 32 bits, objid = low 32 bits,
 * objsubid 1). Not `lockHeld`: that takes another pooled connection, which a transaction holding
 * the only one (poolMax 1) would wait for forever.
 */
export function liveWritersIn(sql: Sql): LiveWriter[] {
  const rows = sql.query<{ writer: string; host: string; pid: number; key_id: string | null }>(
    `SELECT w.writer, w.host, w.pid, w.key_id FROM audit_writers w
      WHERE w.retired_at IS NULL AND EXISTS (
        SELECT 1 FROM pg_locks l
         WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
           AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
           AND l.classid = (w.lock_key >> 32)::oid AND l.objid = (w.lock_key & 4294967295)::oid)
      ORDER BY w.started_at`,
  );
  return rows.map((r) => ({ id: r.writer, host: r.host, pid: Number(r.pid), keyId: r.key_id }));
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
