/**
 * The audit's hash chain in PostgreSQL (tables of migration 1, src/state/postgres/migrations.ts):
 * `audit_chain` holds each chain's head (last seq, last hash, algorithm), `audit_entries` one row
 * per entry whose `line` is the exact JSONL line the file log would write (entry.ts: same format,
 * same `entryHash`), so an export is a file log and one verifier serves both.
 *
 * Appends of every replica are serialized by the database on the chain's head row. The common
 * case is one autocommit statement (`appendAtHead`): the writer links its entry to the end it last
 * saw, and the statement moves the head only if it is still there, inserting the entry only if it
 * moved it. When another replica appended in between, nothing is written and the writer appends in
 * a transaction that locks the head row (`SELECT … FOR UPDATE`, `withChain`), links its entries to
 * the head it read, inserts them and moves the head. Either way one total order, one chain,
 * whichever replica writes. `synchronous_commit` is set on for the statement or transaction,
 * whatever the server's default, so an entry is on the database's disk (and on its synchronous
 * standbys) when its commit returns.
 */
import { randomUUID } from 'node:crypto';
import type { Sql } from '../state/postgres/sql.js';
import { entryHash, GENESIS_HASH, parseEntryLine, type AuditAlgorithm, type AuditEntry, type AuditEntryType, type HeadData } from './entry.js';

/** The chain every replica of a deployment appends to, unless configured otherwise. */
export const DEFAULT_AUDIT_CHAIN = 'audit';

export interface ChainHead {
  seq: number;
  hash: string;
  alg: AuditAlgorithm;
}

/** What appending needs to render an entry: the key and the clock. */
export interface EntryContext {
  hmacKey?: string | Buffer;
  now(): Date;
}

/** Columns beside the line: the writer an intent names, the intent a `call`/`recovered` settles. */
export interface EntryColumns {
  writer?: string;
  settles?: number;
}

/** An open transaction on the chain, its head row locked: entries appended through it link in order. */
export class ChainAppender {
  private head: ChainHead;

  constructor(
    private readonly tx: Sql,
    readonly chain: string,
    head: ChainHead,
    private readonly ctx: EntryContext,
  ) {
    this.head = head;
  }

  get end(): ChainHead {
    return this.head;
  }

  /** Whether some entry already settles intent `seq` (read under the head lock: no append can race it). */
  settled(seq: number): boolean {
    return this.tx.query('SELECT 1 FROM audit_entries WHERE chain = $1 AND settles = $2 LIMIT 1', [this.chain, seq]).length > 0;
  }

  /** `dataJson`: the data's canonical JSON when the caller has it (`auditData`). */
  append(type: AuditEntryType, data: Record<string, unknown>, cols: EntryColumns = {}, dataJson?: string): AuditEntry {
    const entry = renderEntry(this.head, type, data, this.ctx, dataJson);
    // One round trip: the row and the head move together (a data-modifying WITH runs exactly once).
    this.tx.query('WITH e AS (INSERT INTO audit_entries (chain, seq, type, line, writer, settles) VALUES ($1, $2, $3, $4, $5, $6)) UPDATE audit_chain SET seq = $2, hash = $7 WHERE chain = $1', [
      this.chain,
      entry.seq,
      type,
      JSON.stringify(entry),
      cols.writer ?? null,
      cols.settles ?? null,
      entry.hash,
    ]);
    this.head = { ...this.head, seq: entry.seq, hash: entry.hash };
    return entry;
  }
}

/** The entry that follows `head`: the same line and hash as the file log would write (entry.ts). */
function renderEntry(head: { seq: number; hash: string }, type: AuditEntryType, data: Record<string, unknown>, ctx: EntryContext, dataJson?: string): AuditEntry {
  const base = { v: 1 as const, seq: head.seq + 1, ts: ctx.now().toISOString(), type, prev: head.hash, data };
  return { ...base, hash: entryHash(base, ctx.hmacKey, dataJson) };
}

/**
 * Moves the head only if the chain still ends at the expected entry, with the expected algorithm;
 * the entry is inserted only when the head moved. A concurrent append of another replica holds the
 * head row until it commits; this UPDATE then re-reads the row, finds another seq and moves nothing.
 * set_config(…, true) is SET LOCAL for the statement's own transaction: it commits synchronously.
 */
const APPEND_AT_HEAD = `WITH moved AS (
  UPDATE audit_chain SET seq = $2::bigint, hash = $7
   WHERE chain = $1 AND seq = $2::bigint - 1 AND hash = $8 AND alg = $9
  RETURNING chain, set_config('synchronous_commit', 'on', true)
)
INSERT INTO audit_entries (chain, seq, type, line, writer, settles)
SELECT chain, $2::bigint, $3, $4, $5, $6 FROM moved
RETURNING seq`;

/**
 * One entry after `expected` (the chain's end as this writer last saw it) in one autocommit
 * statement: one round trip instead of a transaction's four. Undefined, with nothing written, when
 * the chain no longer ends there (another replica appended, or the chain went on with another
 * algorithm): append through `withChain` then, which reads the real head under its lock.
 */
export function appendAtHead(
  sql: Sql,
  chain: string,
  expected: { seq: number; hash: string },
  alg: AuditAlgorithm,
  ctx: EntryContext,
  type: AuditEntryType,
  data: Record<string, unknown>,
  cols: EntryColumns = {},
  dataJson?: string,
): AuditEntry | undefined {
  const entry = renderEntry(expected, type, data, ctx, dataJson);
  const rows = sql.query(APPEND_AT_HEAD, [chain, entry.seq, type, JSON.stringify(entry), cols.writer ?? null, cols.settles ?? null, entry.hash, expected.hash, alg]);
  return rows.length === 1 ? entry : undefined;
}

export interface ChainOptions {
  /**
   * The error to throw, nothing written, when the chain's last entry does not verify with this
   * writer's key (another writer with another key, or none, wrote it): a joined writer never links
   * its entries to another key's, whatever the liveness checks at join judged (postgres-key.ts).
   */
  refuseForeignEnd?: (seq: number) => Error;
}

/** Whether an entry line verifies with `key` (HMAC-SHA256 with it, plain SHA-256 without): false for a line that is not an entry. */
export function signedWith(line: string | null, key: string | Buffer | undefined): boolean {
  const entry = line === null ? undefined : parseEntryLine(line);
  if (!entry) return false;
  const { hash, ...base } = entry;
  return entryHash(base, key) === hash;
}

/**
 * `fn` in one transaction holding the chain's head row. A chain that does not exist yet is created
 * with its `head` entry (seq 0, a random chain id that witness records name); a chain written
 * with another algorithm than `alg` continues after a new `head` entry with `alg` (like a file log
 * rotating when keyed mode is turned on), so each part of the chain has one algorithm.
 */
export function withChain<T>(sql: Sql, chain: string, alg: AuditAlgorithm, ctx: EntryContext, fn: (a: ChainAppender) => T, opts: ChainOptions = {}): T {
  return sql.transaction((tx) => {
    let row = lockHead(tx, chain);
    if (row && opts.refuseForeignEnd && row.seq >= 0 && !signedWith(lineAt(tx, chain, row.seq), ctx.hmacKey)) throw opts.refuseForeignEnd(row.seq);
    if (!row) {
      tx.query('INSERT INTO audit_chain (chain, seq, hash, alg) VALUES ($1, -1, $2, $3) ON CONFLICT (chain) DO NOTHING', [chain, GENESIS_HASH, alg]);
      row = lockHead(tx, chain) as ChainHead;
    }
    const appender = new ChainAppender(tx, chain, row, ctx);
    if (row.seq < 0 || row.alg !== alg) {
      const index = row.seq < 0 ? 1 : headOf(tx, chain).index + 1;
      const id = row.seq < 0 ? randomUUID() : chainIdOf(tx, chain);
      const head: HeadData = { index, alg, ...(id ? { chain: id } : {}) };
      appender.append('head', { ...head });
      tx.query('UPDATE audit_chain SET alg = $2 WHERE chain = $1', [chain, alg]);
    }
    return fn(appender);
  });
}

function lockHead(tx: Sql, chain: string): ChainHead | undefined {
  // set_config(…, true) is SET LOCAL: this transaction commits synchronously whatever the default.
  const row = tx.query<{ seq: string; hash: string; alg: string }>("SELECT seq, hash, alg, set_config('synchronous_commit', 'on', true) FROM audit_chain WHERE chain = $1 FOR UPDATE", [chain])[0];
  return row ? { seq: Number(row.seq), hash: row.hash, alg: row.alg === 'hmac-sha256' ? 'hmac-sha256' : 'sha256' } : undefined;
}

/**
 * The line of the entry at the locked head. A statement of its own: had it been joined into
 * `lockHead`'s, a head moved by a transaction that committed while that one waited for the row
 * lock would be re-read with the statement's older snapshot, where the new entry does not exist.
 */
function lineAt(tx: Sql, chain: string, seq: number): string | null {
  return tx.query<{ line: string }>('SELECT line FROM audit_entries WHERE chain = $1 AND seq = $2', [chain, seq])[0]?.line ?? null;
}

/** The newest `head` entry of the chain: the index of the part being written and the chain id. */
export function headOf(sql: Sql, chain: string): { index: number; chain?: string } {
  const row = sql.query<{ line: string }>("SELECT line FROM audit_entries WHERE chain = $1 AND type = 'head' ORDER BY seq DESC LIMIT 1", [chain])[0];
  const entry = row ? parseEntryLine(row.line) : undefined;
  const index = typeof entry?.data.index === 'number' ? entry.data.index : 1;
  return { index, ...(typeof entry?.data.chain === 'string' ? { chain: entry.data.chain } : {}) };
}

function chainIdOf(sql: Sql, chain: string): string | undefined {
  return headOf(sql, chain).chain;
}

/** The chain's head row as it is now (undefined when the chain was never written). */
export function readHead(sql: Sql, chain: string): ChainHead | undefined {
  const row = sql.query<{ seq: string; hash: string; alg: string }>('SELECT seq, hash, alg FROM audit_chain WHERE chain = $1', [chain])[0];
  return row ? { seq: Number(row.seq), hash: row.hash, alg: row.alg === 'hmac-sha256' ? 'hmac-sha256' : 'sha256' } : undefined;
}

/** The newest `limit` entry lines of the chain, oldest first (what a page of recent runs reads). */
export function tailLines(sql: Sql, chain: string, limit: number): string[] {
  return sql
    .query<{ line: string }>('SELECT line FROM audit_entries WHERE chain = $1 ORDER BY seq DESC LIMIT $2', [chain, limit])
    .map((r) => r.line)
    .reverse();
}

/** Rows read per statement when reading a whole chain (each statement stays within the statement timeout). */
const PAGE = 5_000;

/**
 * Every entry line of the chain in seq order (by the `seq` column: a row whose line says another
 * seq shows as reordered), read in pages within `sql` (give it a REPEATABLE READ transaction for
 * one consistent snapshot).
 */
export function chainLines(sql: Sql, chain: string): string[] {
  const lines: string[] = [];
  let after: string | number = -1;
  for (;;) {
    const rows: Array<{ seq: string; line: string }> = sql.query<{ seq: string; line: string }>('SELECT seq, line FROM audit_entries WHERE chain = $1 AND seq > $2 ORDER BY seq LIMIT $3', [
      chain,
      after,
      PAGE,
    ]);
    for (const r of rows) lines.push(r.line);
    if (rows.length < PAGE) return lines;
    after = (rows[rows.length - 1] as { seq: string }).seq;
  }
}
