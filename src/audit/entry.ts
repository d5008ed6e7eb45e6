/**
 * Audit entry format and chaining (shared by the writer and the verifier).
 *
 * One JSON object per line:
 *   { "v":1, "seq":N, "ts":"<ISO time>", "type":"…", "prev":"<hash of entry N-1>", "data":{…}, "hash":"…" }
 * `hash` = SHA-256 (or HMAC-SHA256 with the configured key) over the canonical JSON of the entry
 * without `hash`. `seq` counts from 0 across rotated files; `prev` of the very first entry is 64
 * zeros. Every file starts with a `head` entry (its index, the algorithm, the previous file), so a
 * rotated file's end is certified by the next file's head, and the active file's end by the
 * anchor sidecar (anchor.ts) and, where one is configured, the witness (witness.ts).
 */
import { canonicalJson, hmacSha256Hex, sha256Hex } from '../safety/canonical.js';
import { plainCanonicalJson } from './canonical-data.js';

export const GENESIS_HASH = '0'.repeat(64);

export type AuditAlgorithm = 'sha256' | 'hmac-sha256';

export type AuditEntryType =
  /** First entry of each file. */
  | 'head'
  /** A run began: script hash and source, policy, mode. */
  | 'run-start'
  /** One bridged call (also denied and invalid ones). */
  | 'call'
  /** An approval decision (elicitation answer, operator approval used). */
  | 'approval'
  /** A run ended: outcome, stats, plan. */
  | 'run-end'
  /** The writer found the log inconsistent with its anchor when opening it, or could not reach its witness. */
  | 'alert'
  /** Retention removed the oldest rotated files (which ones, and where the chain continues). */
  | 'prune'
  /**
   * Written durably before a change is sent (write-ahead): what is about to be done and by which
   * writer. Its outcome is a `call` entry with `intent: <this seq>`, or a `recovered` entry.
   * Its `undo` field (`UndoRecord`, src/safety/undo.ts) says what reverses the change: previous
   * config values (secrets never), the object to delete, the safety snapshot to roll back to, or
   * why it cannot be undone; `readRunChanges` (run-changes.ts) reads a run's intents back.
   */
  | 'intent'
  /** What became of the intent of a writer that is gone, as a starting server found out (RecoveredData). */
  | 'recovered'
  /** The operator's kill switch was set or lifted (`pve-code-mcp halt` / `resume`). */
  | 'halt';

export interface AuditEntry {
  v: 1;
  seq: number;
  ts: string;
  type: AuditEntryType;
  prev: string;
  data: Record<string, unknown>;
  hash: string;
}

export interface HeadData {
  /** 1-based file index; rotated files are named `<file>.<index, 6 digits>`. */
  index: number;
  alg: AuditAlgorithm;
  /** Name of the previous file in the chain (absent for the first). */
  prevFile?: string;
  /** Random id of the chain, the same in every file's head; witness records name it. */
  chain?: string;
}

/** One rotated file removed by retention, as the `prune` entry records it. */
export interface PrunedFile {
  file: string;
  index: number;
  /** The file's last entry: the first file left links to it. */
  lastSeq: number;
  lastHash: string;
  lastTs: string;
  bytes: number;
}

/** What a `recovered` entry says about an intent whose writer died before writing its outcome. */
export type RecoveryOutcome = 'made' | 'not-made' | 'unknown';

export interface RecoveredData {
  /** The seq of the `intent` entry this settles. */
  intent: number;
  /** The writer id the intent names (the writer that is gone). */
  writer: string;
  outcome: RecoveryOutcome;
  /** The task PVE started for it, when one was found. */
  upid?: string;
  /** What the outcome rests on (the task list in the window, the object's state…), in words. */
  evidence: string;
}

/**
 * Why an `alert` was written, when the writer explains an operational event rather than reports
 * a possible tampering: `verifyAudit` shows these as explained, not as problems.
 *  - `audit-unavailable`: entries could not be written for a while (the gap: since when, why, how many);
 *  - `torn-tail`: a partial last entry (a crash or a failed write mid-entry) was cut off on open.
 */
export type AlertCause = 'audit-unavailable' | 'torn-tail';

/**
 * `dataJson`: the canonical JSON of `entry.data` when the caller has it already (`auditData`);
 * undefined when the data is not plain JSON data, which is then written the general way.
 */
export function entryHash(entry: Omit<AuditEntry, 'hash'>, key?: string | Buffer, dataJson: string | undefined = plainCanonicalJson(entry.data)): string {
  const text = signedText(entry, dataJson);
  return key !== undefined ? hmacSha256Hex(key, text) : sha256Hex(text);
}

/** canonicalJson of the entry without its hash: its keys sorted (data, prev, seq, ts, type, v) around the data's own canonical JSON. */
function signedText(e: Omit<AuditEntry, 'hash'>, dataJson: string | undefined): string {
  const typed = typeof e.v === 'number' && typeof e.seq === 'number' && typeof e.ts === 'string' && typeof e.type === 'string' && typeof e.prev === 'string';
  if (dataJson === undefined || !typed) return canonicalJson({ v: e.v, seq: e.seq, ts: e.ts, type: e.type, prev: e.prev, data: e.data });
  return `{"data":${dataJson},"prev":${JSON.stringify(e.prev)},"seq":${JSON.stringify(e.seq)},"ts":${JSON.stringify(e.ts)},"type":${JSON.stringify(e.type)},"v":${JSON.stringify(e.v)}}`;
}

export function rotatedName(file: string, index: number): string {
  return `${file}.${String(index).padStart(6, '0')}`;
}

export function anchorName(file: string): string {
  return `${file}.anchor`;
}

const HEX64 = /^[0-9a-f]{64}$/;
const TYPES: ReadonlySet<string> = new Set<AuditEntryType>(['head', 'run-start', 'call', 'approval', 'run-end', 'alert', 'prune', 'intent', 'recovered', 'halt']);

/** Parse one line; undefined when it is not a well-formed entry (torn write, edited JSON…). */
export function parseEntryLine(line: string): AuditEntry | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  const ok =
    r.v === 1 &&
    Number.isSafeInteger(r.seq) &&
    (r.seq as number) >= 0 &&
    typeof r.ts === 'string' &&
    typeof r.type === 'string' &&
    TYPES.has(r.type) &&
    typeof r.prev === 'string' &&
    HEX64.test(r.prev) &&
    typeof r.hash === 'string' &&
    HEX64.test(r.hash) &&
    r.data !== null &&
    typeof r.data === 'object' &&
    !Array.isArray(r.data);
  return ok ? (r as unknown as AuditEntry) : undefined;
}
