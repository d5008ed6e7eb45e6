/**
 * Whether a replica may join the shared chain with its HMAC key. Every replica must sign with the
 * same key: a replica with another one would append entries that `audit verify` (with either key)
 * reports as edited, and nobody could tell its entries from forged ones.
 *
 * Each writer's row records its key id (`auditKeyId`: an HMAC of a fixed label, never the key),
 * and the check runs in the transaction that registers the writer, under one advisory lock
 * (postgres-writers.ts `registerPostgresWriter`): two replicas starting at the same instant, even
 * on an empty chain, are checked one after the other, and the second sees the first registered.
 * A replica refuses (`audit-key`) when a live writer has another key id, or when the chain's last
 * entry does not verify with its key (or algorithm) while any writer lives (a writer of an older
 * build has no key id: the chain's end speaks for it). When no writer is alive and the end is
 * foreign, the key was changed on purpose (every replica stopped, all started with the new one):
 * the replica joins and an alert in the chain marks where the new key begins.
 */
import { createHmac } from 'node:crypto';
import { AuditError } from '../files/errors.js';
import type { Sql } from '../state/postgres/sql.js';
import { parseEntryLine } from './entry.js';
import { signedWith } from './postgres-chain.js';
import type { LiveWriter } from './postgres-writers.js';

/** The chain's last entry was signed with another key or algorithm: its seq. */
export interface ForeignKey {
  seq: number;
}

/** What a key id is an HMAC of: fixed, so every replica with the same key computes the same id. */
const KEY_ID_LABEL = 'pve-code-mcp audit key id v1';

/** Which key a writer signs with, safe to store: HMAC-SHA256 of a fixed label (hex), or `none` for an unkeyed writer. */
export function auditKeyId(key: string | Buffer | undefined): string {
  return key === undefined ? 'none' : createHmac('sha256', key).update(KEY_ID_LABEL).digest('hex');
}

/** A key id as messages show it. */
function shown(keyId: string): string {
  return keyId === 'none' ? 'no key' : `key id ${keyId.slice(0, 12)}`;
}

/** The chain's last entry, when it does not verify with `key` (undefined: an empty chain or this key's). */
export function foreignKeyAtEnd(sql: Sql, chain: string, key: string | Buffer | undefined): ForeignKey | undefined {
  const row = sql.query<{ seq: string; line: string }>('SELECT e.seq, e.line FROM audit_chain c JOIN audit_entries e ON e.chain = c.chain AND e.seq = c.seq WHERE c.chain = $1', [chain])[0];
  if (!row || !parseEntryLine(row.line)) return undefined;
  return signedWith(row.line, key) ? undefined : { seq: Number(row.seq) };
}

/**
 * A joined writer found the chain ending in an entry its key did not sign: a writer with another
 * key wrote after it joined (one judged gone at the join, say its lock's connection was being
 * retaken, and another replica started with a new key). It writes nothing more: failing closed
 * beats two keys interleaved in one chain.
 */
export function foreignEndError(where: string, key: string | Buffer | undefined, seq: number): AuditError {
  return new AuditError(
    'audit-key',
    `the audit chain in ${where} now ends (seq ${seq}) in an entry signed with another HMAC key than this replica's (${shown(auditKeyId(key))}): a replica with another key joined while this one was judged gone; this replica writes no more entries, so nothing that needs one is done: stop the replicas whose key is wrong and restart them with the audit.hmacKey every replica must share`,
  );
}

/**
 * Refuse (`audit-key`) when a live writer signs with another key, or the chain ends in an entry
 * this key did not sign while any writer lives; returns the foreign end otherwise, for the alert
 * that marks a deliberate key change. `tx` and `live` come from the join transaction.
 */
export function checkChainKey(tx: Sql, live: LiveWriter[], chain: string, key: string | Buffer | undefined, where: string): ForeignKey | undefined {
  const mine = auditKeyId(key);
  const fix = `every replica must sign with the same key: give this replica the audit.hmacKey the others use (to change the key, stop every replica and start them all with the new one)`;
  const others = live.filter((w) => w.keyId !== null && w.keyId !== mine);
  if (others.length > 0) {
    const who = others.map((w) => `process ${w.pid} on ${w.host} (${shown(w.keyId as string)})`).join(', ');
    throw new AuditError('audit-key', `the audit chain in ${where} is being written by ${who}, with another HMAC key than this replica's (${shown(mine)}): ${fix}`);
  }
  const foreign = foreignKeyAtEnd(tx, chain, key);
  if (!foreign || live.length === 0) return foreign;
  const who = live.map((w) => `process ${w.pid} on ${w.host}`).join(', ');
  throw new AuditError(
    'audit-key',
    `the audit chain in ${where} was last written (seq ${foreign.seq}) with another ${key === undefined ? 'HMAC key: this replica has none' : 'HMAC key than this replica'}, and ${who} ${live.length === 1 ? 'is' : 'are'} writing it now: ${fix}`,
  );
}

/** The alert that opens a deliberate key change: entries up to `seq` verify with the previous key only. */
export function keyChangeAlert(foreign: ForeignKey): Record<string, unknown> {
  return {
    message: `the audit key changed: the chain's last entry (seq ${foreign.seq}) was signed with another key or none, and no other writer was alive; entries up to seq ${foreign.seq} verify with the previous key, the entries from here with this one`,
  };
}
