/**
 * The open intents of the PostgreSQL audit (the `IntentSource` a recovery works from, intents.ts):
 * the `intent` rows of writers that are gone (postgres-writers.ts: their lock is free) that no
 * row settles (`settles` = the intent's seq, set from a `call`'s or `recovered`'s `intent`).
 *
 * Several replicas sweep at once, so two may look up the same orphan; only one settles it: the
 * `recovered` entry is written under the chain's head lock only when no entry settles the intent
 * yet (postgres-log.ts `settle`), the lock every append takes, so the check and the insert cannot
 * interleave with another recovery's, nor with the writer's own outcome.
 */
import type { PostgresState } from '../state/postgres/sql.js';
import { parseEntryLine, type AuditEntry, type RecoveredData } from './entry.js';
import type { IntentSource, OrphanIntent } from './intents.js';
import { listPostgresWriters, retireIfSettled } from './postgres-writers.js';

export interface PostgresIntentDeps {
  db: PostgresState;
  chain: string;
  /** Write the `recovered` entry unless the intent is settled already (then undefined). */
  settle(data: RecoveredData): AuditEntry | undefined;
}

export function postgresIntentSource(deps: PostgresIntentDeps): IntentSource {
  const goneWriters = (): string[] =>
    listPostgresWriters(deps.db)
      .filter((w) => !w.alive)
      .map((w) => w.id);
  return {
    orphans: () => openIntentsOf(deps.db, deps.chain, goneWriters()),
    settle: (data) => deps.settle(data),
    retireSettled: () => retireIfSettled(deps.db, deps.chain, goneWriters()),
  };
}

/** The open intents of `writers` on `chain`, oldest first. */
export function openIntentsOf(db: PostgresState, chain: string, writers: string[]): OrphanIntent[] {
  if (writers.length === 0) return [];
  const rows = db.query<{ line: string }>(
    `SELECT i.line FROM audit_entries i
      WHERE i.chain = $1 AND i.type = 'intent' AND i.writer = ANY($2::text[])
        AND NOT EXISTS (SELECT 1 FROM audit_entries s WHERE s.chain = i.chain AND s.settles = i.seq)
      ORDER BY i.seq`,
    [chain, writers],
  );
  const out: OrphanIntent[] = [];
  for (const { line } of rows) {
    const entry = parseEntryLine(line);
    // A row whose line is not an entry (edited by hand) is for verify to report, not to act on.
    if (entry && typeof entry.data.writer === 'string') out.push({ seq: entry.seq, ts: entry.ts, writer: entry.data.writer, data: entry.data });
  }
  return out;
}
