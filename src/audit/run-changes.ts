/**
 * The changes one run made, read back from the audit for `undo`: each `intent` of the run with
 * the undo record written with it (before the change was sent), joined with what became of it —
 * the run's own `call` entry, or a starting server's `recovered` entry for a writer that died.
 * The audit is the source because it is hash-chained and verified: an undo reverses what the
 * signed log says was done, not what a side file claims.
 */
import { readFileSync } from 'node:fs';
import { parseEntryLine, type AuditEntry } from './entry.js';
import { rotatedFiles } from './file-scan.js';
import type { RecordedChange, UndoRecord } from '../safety/undo.js';

/** The run's changes in the order they were intended (oldest first); empty when the run made none. */
export function readRunChanges(auditFile: string, runId: string): RecordedChange[] {
  return runChangesOf(fileEntries(auditFile, runId), runId);
}

/** The entries of the JSONL log that can concern `runId`: its own, and every recovery (which names the intent, not the run). */
function* fileEntries(auditFile: string, runId: string): Iterable<AuditEntry> {
  for (const path of [...rotatedFiles(auditFile).map((f) => f.path), auditFile]) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      continue; // rotated away or pruned between listing and reading
    }
    for (const line of text.split('\n')) {
      if (!line.includes(runId) && !line.includes('"recovered"')) continue; // cheap filter first
      const entry = parseEntryLine(line);
      if (entry) yield entry;
    }
  }
}

/** The run's changes from entries in seq order (any superset of the run's intents, outcomes and recoveries). */
export function runChangesOf(entries: Iterable<AuditEntry>, runId: string): RecordedChange[] {
  const intents = new Map<number, RecordedChange>();
  const outcomes = new Map<number, RecordedChange['outcome']>();
  for (const entry of entries) {
    const d = entry.data;
    if (entry.type === 'intent' && d.runId === runId) {
      intents.set(entry.seq, {
        seq: entry.seq,
        cluster: String(d.cluster ?? ''),
        method: String(d.method ?? ''),
        path: String(d.path ?? ''),
        outcome: 'open',
        ...(d.undo !== null && typeof d.undo === 'object' ? { undo: d.undo as UndoRecord } : {}),
        ...(d.principal !== undefined ? { principal: d.principal } : {}),
      });
    } else if (entry.type === 'call' && d.runId === runId && typeof d.intent === 'number' && typeof d.outcome === 'string') {
      outcomes.set(d.intent, d.outcome as RecordedChange['outcome']);
    } else if (entry.type === 'recovered' && typeof d.intent === 'number' && typeof d.outcome === 'string' && !outcomes.has(d.intent)) {
      outcomes.set(d.intent, d.outcome as RecordedChange['outcome']);
    }
  }
  return [...intents.values()].sort((a, b) => a.seq - b.seq).map((c) => ({ ...c, outcome: outcomes.get(c.seq) ?? 'open' }));
}
