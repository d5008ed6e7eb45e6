/**
 * Recent runs as the audit recorded them: who ran what, the changes sent and what became of them,
 * how each run ended, and whether the audit's hash chain verifies. Read from the tail of the
 * current audit file, or the newest rows of the shared database's chain (a page never reads the whole history).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { parseEntryLine, type AuditEntry } from '../../audit/entry.js';

export interface RunCall {
  method: string;
  path: string;
  outcome?: string;
  status?: string;
  phase?: string;
}

export interface RecentRun {
  runId: string;
  startedAt: string;
  principal: string;
  mode?: string;
  dryRun: boolean;
  policy?: string;
  planId?: string;
  /** Writes that were sent or tried (reads are counted only). */
  changes: RunCall[];
  reads: number;
  approval?: string;
  ended?: { ok: boolean; blocked?: string; error?: string };
}

const TAIL_BYTES = 1024 * 1024;
/** As many entries from the database (about a megabyte of the file log). */
export const TAIL_ENTRIES = 4_000;

/** The last `limit` runs among the audit's newest entries (newest first), optionally only one principal's. */
export function recentRuns(entries: AuditEntry[], options: { limit?: number; principal?: string } = {}): RecentRun[] {
  const runs = new Map<string, RecentRun>();
  for (const e of entries) {
    const d = e.data;
    const runId = typeof d.runId === 'string' ? d.runId : undefined;
    if (!runId) continue;
    const who = principalOf(d);
    let run = runs.get(runId);
    if (!run) {
      if (e.type !== 'run-start') continue; // its start is before the tail that was read
      run = {
        runId,
        startedAt: e.ts,
        principal: who,
        dryRun: d.dryRun === true,
        changes: [],
        reads: 0,
        ...(typeof d.policy === 'string' ? { policy: d.policy } : {}),
        ...(typeof d.planId === 'string' ? { planId: d.planId } : {}),
      };
      runs.set(runId, run);
      continue;
    }
    if (e.type === 'call') {
      if (d.method === 'GET' || d.method === undefined) run.reads += 1;
      else
        run.changes.push({
          method: String(d.method),
          path: String(d.path ?? ''),
          ...(typeof d.outcome === 'string' ? { outcome: d.outcome } : {}),
          ...(typeof d.status === 'string' ? { status: d.status } : {}),
          ...(typeof d.phase === 'string' ? { phase: d.phase } : {}),
        });
    } else if (e.type === 'approval') {
      const by = typeof d.approvedBy === 'string' ? ` by ${d.approvedBy}` : '';
      run.approval = `${typeof d.answer === 'string' ? d.answer : 'approval'}${typeof d.via === 'string' ? ` (${d.via})` : ''}${by}`;
      if (typeof d.planId === 'string') run.planId = d.planId;
    } else if (e.type === 'run-end') {
      if (typeof d.mode === 'string') run.mode = d.mode;
      const blocked = d.blocked as { message?: unknown } | undefined;
      const error = d.error as { message?: unknown } | undefined;
      run.ended = { ok: d.ok === true, ...(typeof blocked?.message === 'string' ? { blocked: blocked.message } : {}), ...(typeof error?.message === 'string' ? { error: error.message } : {}) };
    }
  }
  const all = [...runs.values()].filter((r) => options.principal === undefined || r.principal === options.principal);
  return all.reverse().slice(0, options.limit ?? 30);
}

function principalOf(d: Record<string, unknown>): string {
  const p = d.principal as { id?: unknown } | undefined;
  return typeof p?.id === 'string' ? p.id : 'local';
}

/** The entries in the last megabyte of the current audit file. */
export function fileTailEntries(file: string): AuditEntry[] {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return [];
  }
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - TAIL_BYTES);
    const buf = Buffer.alloc(size - start);
    readSync(fd, buf, 0, buf.length, start);
    const lines = buf.toString('utf8').split('\n');
    if (start > 0) lines.shift(); // cut mid-line
    return lines.map((l) => parseEntryLine(l)).filter((e): e is AuditEntry => e !== undefined);
  } finally {
    closeSync(fd);
  }
}
