/**
 * The console as `serve --http` and `pve-code-mcp console` build it: the approvals store, the
 * audit for recent runs (with its chain verified, again only when it grew) and for every decision
 * — the state directory's files, or the shared database's rows — and the OpenID Connect client in
 * OAuth mode.
 */
import { statSync } from 'node:fs';
import { parseEntryLine, type AuditEntry } from '../../audit/entry.js';
import { DEFAULT_AUDIT_CHAIN, readHead, tailLines } from '../../audit/postgres-chain.js';
import { verifyPostgresAudit } from '../../audit/postgres-verify.js';
import { verifyAudit, type AuditVerification } from '../../audit/verify.js';
import { ApprovalStore } from '../../safety/approval.js';
import type { PostgresState } from '../../state/postgres/sql.js';
import { WebConsole } from './console.js';
import type { ExplorerBackend } from './explorer.js';
import type { OidcClientSettings } from './oidc.js';
import { fileTailEntries, TAIL_ENTRIES } from './runs.js';
import type { UrlApprovals } from './url-approvals.js';

export interface ConsoleSetup {
  stateDir: string;
  /** The plans and approvals to show; default: the state directory's (a shared database's when given). */
  store?: ApprovalStore;
  /** Where the audit is read from: its file, or the shared database (then `file` is not read). */
  audit: { file: string; hmacKey?: string; postgres?: PostgresState };
  /** Writes an `approval` entry to the audit. */
  appendApproval(data: Record<string, unknown>): void;
  sessionMinutes: number;
  oidc?: Omit<OidcClientSettings, 'resource'>;
  urls?: UrlApprovals;
  explorer?: ExplorerBackend;
}

export function createWebConsole(setup: ConsoleSetup): WebConsole {
  return new WebConsole({
    store: setup.store ?? new ApprovalStore(setup.stateDir),
    recentEntries: recentEntriesOf(setup.audit),
    verifyChain: chainVerifier(setup.audit),
    sessionMinutes: setup.sessionMinutes,
    ...(setup.oidc ? { oidc: setup.oidc } : {}),
    ...(setup.urls ? { urls: setup.urls } : {}),
    ...(setup.explorer ? { explorer: setup.explorer } : {}),
    onDecision: (e) =>
      setup.appendApproval({
        via: 'console',
        planId: e.planId,
        answer: e.decision === 'approve' ? 'approved' : 'decline',
        [e.decision === 'approve' ? 'approvedBy' : 'declinedBy']: e.by.id,
        ...(e.for ? { for: e.for } : {}),
        ...(e.expiresAt ? { expiresAt: e.expiresAt } : {}),
        principal: { id: e.by.id, via: e.by.via === 'oidc' ? 'oauth' : 'local', ...(e.by.groups.length > 0 ? { groups: e.by.groups } : {}) },
      }),
  });
}

function recentEntriesOf(audit: ConsoleSetup['audit']): () => AuditEntry[] {
  const db = audit.postgres;
  if (!db) return () => fileTailEntries(audit.file);
  return () =>
    tailLines(db, DEFAULT_AUDIT_CHAIN, TAIL_ENTRIES)
      .map((l) => parseEntryLine(l))
      .filter((e): e is AuditEntry => e !== undefined);
}

/** The chain's verification in a line, recomputed only when the audit changed since the last one. */
function chainVerifier(audit: ConsoleSetup['audit']): () => { ok: boolean; text: string } {
  let last: { key: string; value: { ok: boolean; text: string } } | undefined;
  const keyed = audit.hmacKey ? { hmacKey: audit.hmacKey } : {};
  const db = audit.postgres;
  return () => {
    const key = db ? headKey(db) : fileKey(audit.file);
    if (last?.key === key) return last.value;
    const v: AuditVerification = db ? verifyPostgresAudit(db, keyed) : verifyAudit(audit.file, keyed);
    const value = v.ok
      ? { ok: true, text: `verified: ${v.entries} entries, ${v.runs.started} runs, ${audit.hmacKey ? 'HMAC-keyed' : 'unkeyed'} hash chain intact` }
      : { ok: false, text: `${v.problems.length} problem${v.problems.length === 1 ? '' : 's'}: ${v.problems[0]?.message ?? ''} (run pve-code-mcp audit verify)` };
    last = { key, value };
    return value;
  };
}

function fileKey(file: string): string {
  try {
    const st = statSync(file);
    return `${st.size}:${st.mtimeMs}`;
  } catch {
    return 'missing';
  }
}

function headKey(db: PostgresState): string {
  const head = readHead(db, DEFAULT_AUDIT_CHAIN);
  return head ? `${head.seq}:${head.hash}` : 'empty';
}
