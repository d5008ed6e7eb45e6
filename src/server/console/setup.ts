/**
 * The console as `serve --http` and `pve-code-mcp console` build it: the state directory's
 * approvals store, the audit for recent runs (with its chain verified, again only when the file
 * changed) and for every decision, and the OpenID Connect client in OAuth mode.
 */
import { statSync } from 'node:fs';
import { verifyAudit } from '../../audit/verify.js';
import { ApprovalStore } from '../../safety/approval.js';
import { WebConsole } from './console.js';
import type { ExplorerBackend } from './explorer.js';
import type { OidcClientSettings } from './oidc.js';
import type { UrlApprovals } from './url-approvals.js';

export interface ConsoleSetup {
  stateDir: string;
  /** The plans and approvals to show; default: the state directory's (a shared database's when given). */
  store?: ApprovalStore;
  audit: { file: string; hmacKey?: string };
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
    auditFile: setup.audit.file,
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

/** The chain's verification in a line, recomputed only when the audit file changed since the last one. */
function chainVerifier(audit: { file: string; hmacKey?: string }): () => { ok: boolean; text: string } {
  let last: { key: string; value: { ok: boolean; text: string } } | undefined;
  return () => {
    let key = 'missing';
    try {
      const st = statSync(audit.file);
      key = `${st.size}:${st.mtimeMs}`;
    } catch {
      // verified below as missing
    }
    if (last?.key === key) return last.value;
    const v = verifyAudit(audit.file, audit.hmacKey ? { hmacKey: audit.hmacKey } : {});
    const value = v.ok
      ? { ok: true, text: `verified: ${v.entries} entries, ${v.runs.started} runs, ${audit.hmacKey ? 'HMAC-keyed' : 'unkeyed'} hash chain intact` }
      : { ok: false, text: `${v.problems.length} problem${v.problems.length === 1 ? '' : 's'}: ${v.problems[0]?.message ?? ''} (run pve-code-mcp audit verify)` };
    last = { key, value };
    return value;
  };
}
