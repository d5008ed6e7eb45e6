/**
 * Recovery of write-ahead intents: which `intent` entries were left without an outcome by a
 * writer that is gone (killed, crashed, the host lost power), so that a starting server can look
 * on PVE for what became of each change and settle it with a `recovered` entry.
 *
 * An intent is settled by a `call` entry with `intent: <its seq>` (its writer's own outcome) or a
 * `recovered` entry with `intent: <its seq>`. Only writers that are registered and judged gone
 * (writers.ts) are considered: never a live writer, even one in another process on the same state
 * directory, whose outcome entries may simply not be written yet. A writer that closed cleanly
 * removed its registration and has nothing to recover.
 *
 * The audit store says where the open intents are and how they are settled, behind `IntentSource`
 * (the files of the state directory here, the database in postgres-intents.ts), so one recovery
 * (src/app/intent-recovery.ts) serves both.
 *
 * Files: two servers starting at once may both find the same orphan and both append a `recovered`
 * entry for it; that is harmless (verify pairs the intent with the first) and needs no extra lock.
 */
import { readFileSync } from 'node:fs';
import { parseEntryLine, type AuditEntry, type RecoveredData } from './entry.js';
import { lastEntryOf, rotatedFiles } from './file-scan.js';
import { listWriters, removeRegistration, type WriterStatus } from './writers.js';

export interface OrphanIntent {
  seq: number;
  ts: string;
  /** The id of the writer that is gone. */
  writer: string;
  /** The intent's data as written (what was about to be done). */
  data: Record<string, unknown>;
}

/** Where a recovery finds the intents of gone writers, and how it settles them. */
export interface IntentSource {
  /** The intents of gone writers that have no outcome yet, oldest first. */
  orphans(): OrphanIntent[];
  /**
   * Record what became of an orphan: a `recovered` entry, unless another recovery settled it
   * first (then undefined and nothing is written).
   */
  settle(data: RecoveredData): AuditEntry | undefined;
  /** Retire the gone writers none of whose intents is still open; returns their ids. */
  retireSettled(): string[];
}

/** The intents of the JSONL log `file`, settled through `recovered` (the log's own writer). */
export function fileIntentSource(file: string, recovered: (data: RecoveredData) => AuditEntry): IntentSource {
  return {
    orphans: () => findOrphanIntents(file),
    // Two starts may settle one orphan twice: verify pairs the intent with the first.
    settle: (data) => recovered(data),
    retireSettled: () => retireSettledWriters(file),
  };
}

export interface FindOrphanOptions {
  /** Clock for the heartbeat fallback of the liveness check (tests). */
  now?: number;
}

/**
 * Files are skipped when their last entry is older than the oldest gone writer's start minus this
 * margin (a clock stepped back a little must not hide an intent).
 */
const CLOCK_MARGIN_MS = 5 * 60_000;

/** The intents of gone writers that have no outcome yet, oldest first. */
export function findOrphanIntents(auditFile: string, opts: FindOrphanOptions = {}): OrphanIntent[] {
  return scan(auditFile, gone(auditFile, opts)).orphans;
}

/**
 * Remove the registrations of gone writers none of whose intents is still open (all recovered,
 * or none written), so they are not judged and scanned again. Returns the ids retired.
 */
export function retireSettledWriters(auditFile: string, opts: FindOrphanOptions = {}): string[] {
  const dead = gone(auditFile, opts);
  const open = new Set(scan(auditFile, dead).orphans.map((o) => o.writer));
  const retired: string[] = [];
  for (const w of dead) {
    if (open.has(w.id)) continue;
    removeRegistration(auditFile, w.id);
    retired.push(w.id);
  }
  return retired;
}

function gone(auditFile: string, opts: FindOrphanOptions): WriterStatus[] {
  return listWriters(auditFile, opts.now).filter((w) => !w.alive);
}

function scan(auditFile: string, dead: WriterStatus[]): { orphans: OrphanIntent[] } {
  if (dead.length === 0) return { orphans: [] };
  const ids = new Set(dead.map((w) => w.id));
  const since = Math.min(...dead.map((w) => Date.parse(w.startedAt))) - CLOCK_MARGIN_MS;
  const open = new Map<number, OrphanIntent>();
  const settled = new Set<number>();
  for (const path of filesSince(auditFile, since)) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      continue; // rotated away or pruned between listing and reading: its successor is read
    }
    for (const line of text.split('\n')) {
      if (!line.includes('"intent"')) continue; // cheap filter: only intents and their outcomes matter
      const entry = parseEntryLine(line);
      if (!entry) continue;
      collect(entry, ids, open, settled);
    }
  }
  return { orphans: [...open.values()].filter((o) => !settled.has(o.seq)).sort((a, b) => a.seq - b.seq) };
}

function collect(entry: AuditEntry, ids: Set<string>, open: Map<number, OrphanIntent>, settled: Set<number>): void {
  const writer = entry.data.writer;
  if (entry.type === 'intent' && typeof writer === 'string' && ids.has(writer)) {
    open.set(entry.seq, { seq: entry.seq, ts: entry.ts, writer, data: entry.data });
  } else if ((entry.type === 'call' || entry.type === 'recovered') && typeof entry.data.intent === 'number') {
    settled.add(entry.data.intent);
  }
}

/** The audit files that can hold entries newer than `since` (ms), oldest first. */
function filesSince(auditFile: string, since: number): string[] {
  const files = [...rotatedFiles(auditFile).map((f) => f.path), auditFile];
  let first = files.length - 1;
  while (first > 0) {
    const last = lastEntryOf(files[first - 1] as string);
    if (last && Date.parse(last.ts) < since) break;
    first--;
  }
  return files.slice(first);
}
