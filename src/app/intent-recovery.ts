/**
 * What a server does for the writers that died: each intent they wrote without an outcome (the
 * process was killed between writing it and recording PVE's answer) is looked up on PVE and a
 * `recovered` entry records what became of it — made (with the task's UPID), not made, or
 * unknown, with the evidence. Only writers that are gone are touched (a live server on the same
 * state keeps its own intents). Writers whose intents are all settled are retired.
 *
 * The audit store says which intents are open and settles them (`AuditSink.intents`: the files of
 * the state directory, or the database), so this logic is the same for both. It runs in the
 * background: once at start, then every `everyMs` while the server runs, because a replica
 * sharing the database can die at any time and its intents must not wait for the next start. An
 * intent whose cluster cannot be asked now stays open for the next sweep (verify lists it as open
 * meanwhile).
 */
import type { OrphanIntent } from '../audit/intents.js';
import type { AuditSink } from '../audit/sink.js';
import { recoverIntent, type IntentToRecover, type RecoveryVerdict } from '../audit/recovery.js';
import type { PveClientLike } from '../client/client-like.js';
import { DEFAULT_RECOVER_EVERY_MS } from './config/state-settings.js';
import { HTTP_METHODS, type HttpMethod } from '../schema/model.js';

export interface IntentRecoveryDeps {
  audit: AuditSink;
  /** The client for a cluster's own lookups, or undefined when the cluster is not serving now. */
  client(cluster: string): PveClientLike | undefined;
  log(line: string): void;
  signal?: AbortSignal;
  /** Subscribe to a cluster starting to serve (returns the unsubscribe). */
  onClusterServing?(listener: () => void): () => void;
}

export interface RecoverySummary {
  recovered: number;
  /** Orphans left for a later start: their cluster could not be asked. */
  deferred: number;
  retiredWriters: string[];
}

export interface IntentRecoveryOptions {
  /** Sweep again this often while the server runs (default 30 s; 0: only once, at start). */
  everyMs?: number;
}

/**
 * Recover now, then every `everyMs` until `deps.signal` aborts (an unref'd timer: it never keeps
 * the process alive), and at once when a cluster starts serving while intents wait for one (a
 * degraded start: they are not left for the next period). Resolves once stopped and the sweep in
 * progress, if any, has ended. A failing sweep is logged (once per distinct error) and the next
 * one tries again.
 */
export function runIntentRecovery(deps: IntentRecoveryDeps, opts: IntentRecoveryOptions = {}): Promise<void> {
  const everyMs = opts.everyMs ?? DEFAULT_RECOVER_EVERY_MS;
  let lastError: string | undefined;
  let lastDeferred = 0;
  const sweep = async (): Promise<void> => {
    try {
      const summary = await recoverOrphanIntents(deps, lastDeferred);
      lastDeferred = summary.deferred;
      lastError = undefined;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (message !== lastError)
        deps.log(
          `pve-code-mcp: looking up the outcome of changes a stopped server had sent failed: ${message}; they stay open in the audit and are looked up again${everyMs > 0 ? ` in ${Math.round(everyMs / 1000)} s` : ' at the next start'}`,
        );
      lastError = message;
    }
  };
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<void> = Promise.resolve();
    let sweeping = false;
    // A cluster that starts serving during a sweep may be one the sweep already passed by.
    let wokenWhileSweeping = false;
    let unsubscribe: (() => void) | undefined;
    const stop = (): void => {
      if (timer) clearTimeout(timer);
      unsubscribe?.();
      void running.then(() => resolve());
    };
    const next = (): void => {
      sweeping = true;
      running = sweep().then(() => {
        sweeping = false;
        if (deps.signal?.aborted || everyMs <= 0) return;
        const again = wokenWhileSweeping && lastDeferred > 0;
        wokenWhileSweeping = false;
        if (again) return next();
        timer = setTimeout(next, everyMs);
        timer.unref();
      });
      if (everyMs <= 0) void running.then(() => resolve());
    };
    if (deps.signal?.aborted) return resolve();
    deps.signal?.addEventListener('abort', stop, { once: true });
    if (everyMs > 0) {
      unsubscribe = deps.onClusterServing?.(() => {
        if (deps.signal?.aborted) return;
        if (sweeping) {
          wokenWhileSweeping = true;
          return;
        }
        if (lastDeferred === 0) return;
        if (timer) clearTimeout(timer);
        next();
      });
    }
    next();
  });
}

/**
 * One sweep: look each orphan up and settle it. Says so in the log when it settled some, or when
 * the number left for later (their cluster is not serving) differs from `deferredBefore`.
 */
export async function recoverOrphanIntents(deps: IntentRecoveryDeps, deferredBefore = 0): Promise<RecoverySummary> {
  const summary: RecoverySummary = { recovered: 0, deferred: 0, retiredWriters: [] };
  const source = deps.audit.intents;
  const orphans = source.orphans();
  for (const orphan of orphans) {
    if (deps.signal?.aborted) break;
    const intent = toRecover(orphan);
    const client = intent ? deps.client(intent.cluster) : undefined;
    if (intent && !client) {
      summary.deferred++;
      continue;
    }
    const verdict: RecoveryVerdict =
      intent && client
        ? await recoverIntent(intent, client, { ...(deps.signal ? { signal: deps.signal } : {}) }).catch((err: unknown) => ({
            outcome: 'unknown' as const,
            evidence: `looking it up failed: ${err instanceof Error ? err.message : String(err)}`,
          }))
        : { outcome: 'unknown', evidence: 'the intent does not name a cluster, method and path this server can look up' };
    // Another server may have settled it while PVE was asked: then it is not counted here.
    if (source.settle({ intent: orphan.seq, writer: orphan.writer, outcome: verdict.outcome, ...(verdict.upid ? { upid: verdict.upid } : {}), evidence: verdict.evidence })) summary.recovered++;
  }
  summary.retiredWriters = source.retireSettled();
  if (summary.recovered > 0 || (summary.deferred > 0 && summary.deferred !== deferredBefore)) {
    const later = summary.deferred > 0 ? `; ${summary.deferred} left for later (their cluster is not serving)` : '';
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
