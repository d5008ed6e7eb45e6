/**
 * The audit in a PostgreSQL database shared by several `serve --http` replicas: one hash chain per
 * deployment (postgres-chain.ts), the same entries as the file log (log.ts), the same guarantees.
 *
 *  - Each entry is one autocommit statement linking it to the chain's end this writer last saw,
 *    written only if the chain still ends there; else (another replica appended) one transaction
 *    that locks the chain's head row, links the entry to the head and moves it (postgres-chain.ts):
 *    replicas append to one chain in one total order. An `intent` is durable when `intend`
 *    returns, because its commit returned with synchronous_commit on.
 *  - The database cannot be written (down, unreachable, too slow): `AuditError`
 *    `audit-unavailable`, and nothing that needed the entry is done (fail closed: the change is
 *    not sent). Stderr says so once per failing streak, and the next entry that can be written is
 *    preceded by an `alert` explaining the gap (since when, why, how many entries), as the file log does.
 *  - Writers (postgres-writers.ts) hold a session lock for their life; the intents of writers
 *    whose lock is free are what a recovery settles (postgres-intents.ts), exactly once.
 *  - The HMAC key and the witness work as with the file log: the witness records the chain's end
 *    (read from its head row, whichever replica wrote it) shortly after each append and on close.
 *    A replica with another key than a live writer's, or whose key did not sign the chain's end
 *    while another writer lives, does not join; the check and the registration are one
 *    transaction under one lock, so replicas starting together are checked one after the other
 *    (postgres-key.ts).
 *
 * The database has no anchor file: the head row is where the chain must end, and the witness is
 * what an attacker who can rewrite the database cannot take back.
 */
import { AuditError } from '../files/errors.js';
import type { RecordedChange } from '../safety/undo.js';
import type { SecretScrubber } from '../safety/redact.js';
import type { PostgresState } from '../state/postgres/sql.js';
import { ANCHOR_DELAY_MS } from './anchor.js';
import { auditData } from './canonical-data.js';
import { parseEntryLine, type AlertCause, type AuditAlgorithm, type AuditEntry, type AuditEntryType, type RecoveredData } from './entry.js';
import type { IntentSource } from './intents.js';
import { appendAtHead, DEFAULT_AUDIT_CHAIN, headOf, readHead, withChain, type ChainHead, type EntryColumns } from './postgres-chain.js';
import { postgresIntentSource } from './postgres-intents.js';
import { auditKeyId, checkChainKey, foreignEndError, keyChangeAlert } from './postgres-key.js';
import { registerPostgresWriter, type PostgresRegistration } from './postgres-writers.js';
import { runChangesOf } from './run-changes.js';
import type { AppendType, AuditSink } from './sink.js';
import { openWitness, type Witness, type WitnessOptions } from './witness.js';
import { newWriterId } from './writers.js';

export interface PostgresAuditOptions {
  /** The shared store (src/state/postgres); the audit does not close it. */
  db: PostgresState;
  /** The chain this deployment appends to (default `audit`). */
  chain?: string;
  /** HMAC-SHA256 key; every replica must use the same one. */
  hmacKey?: string | Buffer;
  witness?: WitnessOptions;
  /** Applied to every entry before hashing: no known secret reaches the database. */
  scrubber?: SecretScrubber;
  now?: () => Date;
  /** Where the one-line notices of a failing audit go (default: process.stderr). */
  stderr?: (line: string) => void;
}

interface Outage {
  since: string;
  error: string;
  code: string;
  lost: number;
}

/** A witness failure reported asynchronously starts a new streak (alert + stderr) after this much quiet. */
const WITNESS_QUIET_MS = 60_000;

export class PostgresAuditLog implements AuditSink {
  readonly writer = newWriterId();
  readonly where: string;
  private readonly chain: string;
  private readonly alg: AuditAlgorithm;
  private readonly db: PostgresState;
  private witness: Witness | undefined;
  private chainId: string | undefined;
  private index = 1;
  private registration: PostgresRegistration | undefined;
  private outage: Outage | undefined;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private witnessed: { seq: number; hash: string } | undefined;
  private witnessFailing = false;
  private witnessFailedAt: number | undefined;
  /** The chain's end as this writer last wrote or read it: where its next entry links first. */
  private head: ChainHead | undefined;

  private constructor(private readonly opts: PostgresAuditOptions) {
    this.db = opts.db;
    this.chain = opts.chain ?? DEFAULT_AUDIT_CHAIN;
    this.alg = opts.hmacKey !== undefined ? 'hmac-sha256' : 'sha256';
    this.where = `${opts.db.where} (audit chain '${this.chain}')`;
  }

  /** Creates the chain on first use and registers this writer. Throws `AuditError` `audit-unavailable` when the database cannot be written. */
  static open(opts: PostgresAuditOptions): PostgresAuditLog {
    const log = new PostgresAuditLog(opts);
    log.witness = opts.witness ? openWitness(opts.witness, { onFailure: (message) => log.witnessFailed(message) }) : undefined;
    try {
      // The key check, the chain's first entries and the registration are one transaction under the join lock.
      log.registration = registerPostgresWriter(log.db, log.writer, log.now(), auditKeyId(opts.hmacKey), (tx, live) => {
        const foreign = checkChainKey(tx, live, log.chain, opts.hmacKey, log.where);
        withChain(tx, log.chain, log.alg, log.context(), (chain) => {
          if (foreign) chain.append('alert', keyChangeAlert(foreign));
          log.head = chain.end;
        });
        const head = headOf(tx, log.chain);
        log.index = head.index;
        log.chainId = head.chain;
      });
    } catch (err) {
      log.witness?.close();
      throw unavailable(err, log.where);
    }
    return log;
  }

  get intents(): IntentSource {
    return postgresIntentSource({ db: this.db, chain: this.chain, settle: (data) => this.record('recovered', { ...data }, { settles: data.intent }, data.intent) });
  }

  append(type: AppendType, data: Record<string, unknown>): AuditEntry {
    const settles = type === 'call' && typeof data.intent === 'number' ? data.intent : undefined;
    return this.record(type, data, settles !== undefined ? { settles } : {}) as AuditEntry;
  }

  /** Durable when it returns: its commit returned, with synchronous_commit on (postgres-chain.ts). */
  intend(data: Record<string, unknown>): AuditEntry {
    return this.record('intent', { ...data, writer: this.writer }, { writer: this.writer }) as AuditEntry;
  }

  recovered(data: RecoveredData): AuditEntry {
    return this.record('recovered', { ...data }, { settles: data.intent }) as AuditEntry;
  }

  runChanges(runId: string): RecordedChange[] {
    // The run's own intents and outcomes, and the recoveries of its intents.
    const rows = this.db.query<{ line: string }>(
      `SELECT line FROM audit_entries WHERE chain = $1 AND type IN ('intent', 'call') AND strpos(line, $2) > 0
       UNION ALL
       SELECT r.line FROM audit_entries r JOIN audit_entries i ON i.chain = r.chain AND i.seq = r.settles
        WHERE r.chain = $1 AND r.type = 'recovered' AND i.type = 'intent' AND strpos(i.line, $2) > 0`,
      [this.chain, JSON.stringify(runId)],
    );
    const entries = rows.map((r) => parseEntryLine(r.line)).filter((e): e is AuditEntry => e !== undefined);
    return runChangesOf(
      entries.sort((a, b) => a.seq - b.seq),
      runId,
    );
  }

  async flushWitness(timeoutMs: number): Promise<void> {
    if (!this.closed) this.writeWitness();
    await this.witness?.flush(timeoutMs);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    try {
      this.writeWitness();
      this.registration?.remove(this.chain);
    } catch (err) {
      // The process ends soon: its connection, and with it its lock, go then; a recovery settles what is open.
      this.say(`pve-code-mcp: the audit writer ${this.writer} could not close cleanly in ${this.where}: ${(err as Error).message}`);
    } finally {
      this.witness?.close();
    }
  }

  private now(): Date {
    return (this.opts.now ?? (() => new Date()))();
  }

  private context(): { hmacKey?: string | Buffer; now: () => Date } {
    return { ...(this.opts.hmacKey !== undefined ? { hmacKey: this.opts.hmacKey } : {}), now: () => this.now() };
  }

  private say(line: string): void {
    (this.opts.stderr ?? ((l: string) => process.stderr.write(l + '\n')))(line);
  }

  /**
   * One entry: at the end this writer last saw in one statement, else in one transaction holding
   * the head row; the gap alert first (in that transaction) if a failing streak just ended; with
   * `unlessSettled`, nothing when an entry already settles that intent (undefined; checked under
   * the head row's lock). Fails closed.
   */
  private record(type: AuditEntryType, data: Record<string, unknown>, cols: EntryColumns, unlessSettled?: number): AuditEntry | undefined {
    if (this.closed) throw new AuditError('audit-closed', `the audit writer ${this.writer} of ${this.where} is closed`);
    const { data: clean, json } = auditData(data, this.opts.scrubber);
    const outage = this.outage;
    let gapSeq: number | undefined;
    let entry: AuditEntry | undefined;
    try {
      const seen = outage === undefined && unlessSettled === undefined ? this.head : undefined;
      const fast = seen ? appendAtHead(this.db, this.chain, seen, this.alg, this.context(), type, clean, cols, json) : undefined;
      if (seen && fast) {
        entry = fast;
        this.head = { ...seen, seq: fast.seq, hash: fast.hash };
      } else {
        let end: ChainHead | undefined;
        entry = withChain(
          this.db,
          this.chain,
          this.alg,
          this.context(),
          (chain) => {
            try {
              if (outage) gapSeq = chain.append('alert', gapAlert(outage)).seq;
              if (unlessSettled !== undefined && chain.settled(unlessSettled)) return undefined;
              return chain.append(type, clean, cols, json);
            } finally {
              end = chain.end;
            }
          },
          { refuseForeignEnd: (seq) => foreignEndError(this.where, this.opts.hmacKey, seq) },
        );
        this.head = end;
      }
    } catch (err) {
      throw this.failed(err);
    }
    if (outage) {
      this.outage = undefined;
      const n = outage.lost;
      this.say(`pve-code-mcp: the audit in ${this.where} is writable again after ${n} entr${n === 1 ? 'y' : 'ies'} could not be written since ${outage.since} (alert at seq ${gapSeq})`);
    }
    this.scheduleWitness();
    return entry;
  }

  /** An entry could not be written: count it in the streak (stderr once per streak) and fail closed. */
  private failed(err: unknown): Error {
    const error = unavailable(err, this.where);
    if (this.outage) this.outage.lost++;
    else {
      const code = (err as { code?: unknown }).code;
      this.outage = { since: this.now().toISOString(), error: error.message, code: typeof code === 'string' ? code : 'error', lost: 1 };
      this.say(`pve-code-mcp: ${error.message}`);
    }
    return error;
  }

  private scheduleWitness(): void {
    if (!this.witness || this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.closed) return;
      try {
        this.writeWitness();
      } catch {
        // The database is unavailable now: the next append (or close) sends the chain's end.
      }
    }, ANCHOR_DELAY_MS);
    this.timer.unref();
  }

  /** Record the chain's end (its head row: whichever replica wrote it) with the witness. */
  private writeWitness(): void {
    if (!this.witness || this.chainId === undefined) return;
    const head = readHead(this.db, this.chain);
    if (!head || head.seq < 0 || (this.witnessed?.seq === head.seq && this.witnessed.hash === head.hash)) return;
    try {
      this.witness.write({ chain: this.chainId, index: this.index, seq: head.seq, hash: head.hash, ts: this.now().toISOString() }, this.opts.hmacKey);
      this.witnessed = { seq: head.seq, hash: head.hash };
      this.witnessFailing = false;
    } catch (err) {
      if (this.witnessFailing) return;
      this.witnessFailing = true;
      this.say(`pve-code-mcp: the audit witness could not be written: ${(err as Error).message}`);
      if (!this.closed) this.record('alert', { message: `the audit witness could not be written: ${(err as Error).message}` }, {});
    }
  }

  /** An asynchronous witness transport could not publish: an alert and a stderr line, once per streak. */
  private witnessFailed(message: string): void {
    const now = Date.now();
    const quiet = this.witnessFailedAt === undefined || now - this.witnessFailedAt > WITNESS_QUIET_MS;
    this.witnessFailedAt = now;
    if (!quiet || this.closed) return;
    this.say(`pve-code-mcp: the audit witness could not publish: ${message}`);
    try {
      this.record('alert', { message: `the audit witness could not publish the chain's end: ${message}` }, {});
    } catch {
      // The audit itself is unavailable: that streak has its own stderr line and gap alert.
    }
  }
}

function gapAlert(o: Outage): Record<string, unknown> {
  const n = o.lost;
  const message = `the audit could not be written from ${o.since} until now: ${o.error}; ${n} entr${n === 1 ? 'y was' : 'ies were'} not written, and nothing that needed ${n === 1 ? 'it' : 'them'} was done`;
  return { cause: 'audit-unavailable' satisfies AlertCause, message, since: o.since, error: o.error, code: o.code, lost: n };
}

/** Any failure to reach or write the database, as the audit's fail-closed error naming the cause and the fix. */
function unavailable(err: unknown, where: string): Error {
  if (err instanceof AuditError) return err;
  const why = err instanceof Error ? err.message : String(err);
  return new AuditError(
    'audit-unavailable',
    `the audit in ${where} cannot be written: ${why}; nothing that needs an audit entry is done until it can be written: check the database (state.postgres), and the audit resumes by itself once it answers`,
  );
}
