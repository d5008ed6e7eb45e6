/**
 * Whether a replica may join the shared chain with its HMAC key. Every replica must sign with the
 * same key: a replica with another one would append entries that `audit verify` (with either key)
 * reports as edited, and nobody could tell its entries from forged ones. The chain's last entry
 * says which key wrote it: when it does not verify with this replica's key (or algorithm) while
 * another writer is alive, the replica refuses to start and says whose key to use. When no writer
 * is alive, the key was changed on purpose (every replica stopped, all started with the new one):
 * the replica starts and an alert in the chain marks where the new key begins.
 */
import { AuditError } from '../files/errors.js';
import type { PostgresState, Sql } from '../state/postgres/sql.js';
import { entryHash, parseEntryLine } from './entry.js';
import { listPostgresWriters } from './postgres-writers.js';

/** The chain's last entry was signed with another key or algorithm: its seq. */
export interface ForeignKey {
  seq: number;
}

/** The chain's last entry, when it does not verify with `key` (undefined: an empty chain or this key's). */
export function foreignKeyAtEnd(sql: Sql, chain: string, key: string | Buffer | undefined): ForeignKey | undefined {
  const row = sql.query<{ line: string }>('SELECT e.line FROM audit_chain c JOIN audit_entries e ON e.chain = c.chain AND e.seq = c.seq WHERE c.chain = $1', [chain])[0];
  const entry = row ? parseEntryLine(row.line) : undefined;
  if (!entry) return undefined;
  const { hash, ...base } = entry;
  return entryHash(base, key) === hash ? undefined : { seq: entry.seq };
}

/**
 * Refuse (`audit-key`) when the chain ends in an entry this key did not sign and another writer is
 * alive; returns the foreign end otherwise, for the alert that marks a deliberate key change.
 */
export function checkChainKey(db: PostgresState, chain: string, key: string | Buffer | undefined, where: string): ForeignKey | undefined {
  const foreign = foreignKeyAtEnd(db, chain, key);
  if (!foreign) return undefined;
  const live = listPostgresWriters(db).filter((w) => w.alive);
  if (live.length === 0) return foreign;
  const who = live.map((w) => `process ${w.pid} on ${w.host}`).join(', ');
  throw new AuditError(
    'audit-key',
    `the audit chain in ${where} was last written (seq ${foreign.seq}) with another ${key === undefined ? 'HMAC key: this replica has none' : 'HMAC key than this replica'}, and ${who} ${live.length === 1 ? 'is' : 'are'} writing it now: every replica must sign with the same key; give this replica the audit.hmacKey the others use (to change the key, stop every replica and start them all with the new one)`,
  );
}

/** The alert that opens a deliberate key change: entries up to `seq` verify with the previous key only. */
export function keyChangeAlert(foreign: ForeignKey): Record<string, unknown> {
  return {
    message: `the audit key changed: the chain's last entry (seq ${foreign.seq}) was signed with another key or none, and no other writer was alive; entries up to seq ${foreign.seq} verify with the previous key, the entries from here with this one`,
  };
}
