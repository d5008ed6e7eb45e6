/**
 * Opening the audit where the configuration puts it: the JSONL files of the state directory (one
 * machine, the default) or the deployment's PostgreSQL database when the store is shared by
 * several replicas (`state.postgres`). Both are an `AuditSink` (src/audit/sink.ts); nothing past
 * this point knows which.
 */
import { AuditLog } from '../audit/log.js';
import { PostgresAuditLog } from '../audit/postgres-log.js';
import type { AuditSink } from '../audit/sink.js';
import type { SecretScrubber } from '../safety/redact.js';
import type { PostgresState } from '../state/postgres/sql.js';
import type { AuditSettings } from './config/audit-settings.js';

export interface AuditSinkOptions {
  audit: AuditSettings;
  /** The shared store, when configured: the audit goes there instead of `audit.file`. */
  postgres?: PostgresState;
  scrubber?: SecretScrubber;
}

/**
 * Throws `AuditError` `audit-unavailable` when the audit cannot be written (a server must not
 * start without it). On PostgreSQL, rotation, retention and `durability` do not apply: every
 * entry is committed synchronously, and the database's backups keep it.
 */
export function openAuditSink(opts: AuditSinkOptions): AuditSink {
  const { file, hmacKey, maxBytes, retention, durability, witness } = opts.audit;
  const common = { ...(hmacKey ? { hmacKey } : {}), ...(witness ? { witness } : {}), ...(opts.scrubber ? { scrubber: opts.scrubber } : {}) };
  if (opts.postgres) return PostgresAuditLog.open({ db: opts.postgres, ...common });
  return AuditLog.open({ file, maxBytes, retention, durability, ...common });
}
