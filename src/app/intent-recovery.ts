/**
 * What a starting server does for the writers that died: each intent they wrote without an
 * outcome (the process was killed between writing it and recording PVE's answer) is looked up on
 * PVE and a `recovered` entry records what became of it — made (with the task's UPID), not made,
 * or unknown, with the evidence. Only writers that are gone are touched (a live server on the same
 * state directory keeps its own intents). Writers whose intents are all settled are retired.
 *
 * It runs in the background after start-up: nothing waits for PVE to answer, and an intent whose
 * cluster cannot be asked now stays open for the next start (verify lists it as open meanwhile).
 */
import type { AuditLog } from '../audit/log.js';
import { findOrphanIntents, retireSettledWriters, type OrphanIntent } from '../audit/intents.js';
import { recoverIntent, type IntentToRecover, type RecoveryVerdict } from '../audit/recovery.js';
import type { PveClientLike } from '../client/client-like.js';
import { HTTP_METHODS, type HttpMethod } from '../schema/model.js';

export interface IntentRecoveryDeps {
  audit: AuditLog;
  /** The client for a cluster's own lookups, or undefined when the cluster is not serving now. */
  client(cluster: string): PveClientLike | undefined;
  log(line: string): void;
  signal?: AbortSignal;
}

export interface RecoverySummary {
  recovered: number;
  /** Orphans left for a later start: their cluster could not be asked. */
  deferred: number;
  retiredWriters: string[];
}

export async function recoverOrphanIntents(deps: IntentRecoveryDeps): Promise<RecoverySummary> {
  const summary: RecoverySummary = { recovered: 0, deferred: 0, retiredWriters: [] };
  const orphans = findOrphanIntents(deps.audit.file);
  for (const orphan of orphans) {
    if (deps.signal?.aborted) break;
    const intent = toRecover(orphan);
    const client = intent ? deps.client(intent.cluster) : undefined;
    if (intent && !client) {
      summary.deferred++;
      continue;
    }
    const verdict: RecoveryVerdict = intent && client
      ? await recoverIntent(intent, client, { ...(deps.signal ? { signal: deps.signal } : {}) }).catch((err: unknown) => ({ outcome: 'unknown' as const, evidence: `looking it up failed: ${err instanceof Error ? err.message : String(err)}` }))
      : { outcome: 'unknown', evidence: 'the intent does not name a cluster, method and path this server can look up' };
    deps.audit.recovered({ intent: orphan.seq, writer: orphan.writer, outcome: verdict.outcome, ...(verdict.upid ? { upid: verdict.upid } : {}), evidence: verdict.evidence });
    summary.recovered++;
  }
  summary.retiredWriters = retireSettledWriters(deps.audit.file);
  if (summary.recovered > 0 || summary.deferred > 0) {
    const later = summary.deferred > 0 ? `; ${summary.deferred} left for a later start (their cluster is not serving)` : '';
    deps.log(`pve-code-mcp: recovered ${summary.recovered} change(s) a stopped server had sent without recording the outcome (see 'recovered' entries in the audit)${later}`);
  }
  return summary;
}

function toRecover(orphan: OrphanIntent): IntentToRecover | undefined {
  const d = orphan.data;
  const method = typeof d.method === 'string' && (HTTP_METHODS as readonly string[]).includes(d.method) && d.method !== 'GET' ? (d.method as Exclude<HttpMethod, 'GET'>) : undefined;
  if (typeof d.cluster !== 'string' || typeof d.path !== 'string' || method === undefined) return undefined;
  const params = d.params !== null && typeof d.params === 'object' && !Array.isArray(d.params) ? (d.params as Record<string, unknown>) : {};
  return {
    seq: orphan.seq,
    ts: orphan.ts,
    writer: orphan.writer,
    cluster: d.cluster,
    method,
    path: d.path,
    ...(typeof d.template === 'string' ? { template: d.template } : {}),
    params,
    ...(typeof d.node === 'string' ? { node: d.node } : {}),
  };
}
