/**
 * What the product asks of the audit, whichever store holds it: the JSONL files of the state
 * directory (`AuditLog`, log.ts) or a deployment's PostgreSQL database shared by several replicas
 * (`PostgresAuditLog`, postgres-log.ts). Both write the same entries with the same hash chain
 * (entry.ts), so one verifier and one export format serve both.
 */
import type { RecordedChange } from '../safety/undo.js';
import type { AuditEntry, AuditEntryType, RecoveredData } from './entry.js';
import type { IntentSource } from './intents.js';

/** The entry types callers append; `head`, `alert` and `prune` are the store's own, `intent` goes through `intend`. */
export type AppendType = Exclude<AuditEntryType, 'head' | 'alert' | 'prune' | 'intent'>;

export interface AuditSink {
  /** Where the audit is, for messages: a file path, or the database without its password. */
  readonly where: string;
  /** This open's writer id: every intent it writes names it. */
  readonly writer: string;
  /**
   * Append one entry; returns it as written. Throws `AuditError` `audit-unavailable` when it
   * cannot be written (nothing of it is then stored): what needed it must not be done.
   */
  append(type: AppendType, data: Record<string, unknown>): AuditEntry;
  /**
   * Write-ahead: an `intent` entry (with `writer`), durable when this returns, before the change it
   * announces is sent. Throws `AuditError` `audit-unavailable` when it cannot be made durable: the
   * change must then not be sent.
   */
  intend(data: Record<string, unknown>): AuditEntry;
  /** Settle the intent of a writer that is gone. */
  recovered(data: RecoveredData): AuditEntry;
  /** The intents of gone writers left without an outcome, and how they are settled (intents.ts). */
  readonly intents: IntentSource;
  /** One run's changes (its intents with their outcomes), oldest first: what `undo` reverses. */
  runChanges(runId: string): RecordedChange[];
  /** Wait (at most `timeoutMs`) until the witness holds the chain's end: a stopping server calls it before close(). */
  flushWitness(timeoutMs: number): Promise<void>;
  close(): void;
}
