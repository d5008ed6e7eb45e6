/**
 * Where one process keeps its state, opened once from the config's `state` section: the state
 * directory's files (one host, the default) or the deployment's PostgreSQL database shared by
 * several replicas (docs/deployment.md). Plans and approvals, standing approvals, the kill switch
 * and the audit come from here, so a server and the CLI commands built on it cannot disagree on
 * the backend.
 */
import { mkdirSync } from 'node:fs';
import type { AuditSink } from '../audit/sink.js';
import type { SecretScrubber } from '../safety/redact.js';
import { safetyStores, type SafetyStores } from '../safety/state-backends.js';
import { openPostgres } from '../state/postgres/open.js';
import type { PostgresState } from '../state/postgres/sql.js';
import { openAuditSink } from './audit-sink.js';
import type { AuditSettings } from './config/audit-settings.js';
import type { StateSettings } from './config/state-settings.js';

export interface StateStore extends SafetyStores {
  readonly audit: AuditSink;
  /** The shared database, when the state lives there. */
  readonly postgres?: PostgresState;
  /** Whether the shared state answers now (for `/healthz`); the files always do. */
  health(): { ok: true } | { ok: false; reason: string };
  /** The audit first (its last entries and witness), then the database connection. */
  close(): void;
}

export interface StateStoreOptions {
  state: StateSettings;
  audit: AuditSettings;
  haltFile: string;
  /** The config file naming the database: hints show operators `--config <file>`. */
  configFile?: string;
  scrubber?: SecretScrubber;
}

/** A health answer is reused this long: a balancer probing every second costs one statement per interval. */
const HEALTH_TTL_MS = 2_000;

/** Throws `StateError` (database) or `AuditError` (audit): a server must not start without its state. */
export function openStateStore(options: StateStoreOptions): StateStore {
  mkdirSync(options.state.dir, { recursive: true, mode: 0o700 });
  const postgres = options.state.postgres ? openPostgres(options.state.postgres) : undefined;
  let audit: AuditSink;
  try {
    audit = openAuditSink({ audit: options.audit, ...(postgres ? { postgres } : {}), ...(options.scrubber ? { scrubber: options.scrubber } : {}) });
  } catch (err) {
    postgres?.close();
    throw err;
  }
  const stores = safetyStores({ dir: options.state.dir, ...(postgres ? { postgres } : {}) }, { haltFile: options.haltFile, ...(options.configFile ? { configFile: options.configFile } : {}) });
  let checked: { at: number; answer: ReturnType<StateStore['health']> } | undefined;
  return {
    ...stores,
    audit,
    ...(postgres ? { postgres } : {}),
    health() {
      if (!postgres) return { ok: true };
      const now = Date.now();
      if (checked && now - checked.at < HEALTH_TTL_MS) return checked.answer;
      let answer: ReturnType<StateStore['health']>;
      try {
        postgres.query('SELECT 1');
        answer = { ok: true };
      } catch (err) {
        answer = { ok: false, reason: `the shared state at ${postgres.where} does not answer (${(err as Error).message.split(';')[0]})` };
      }
      checked = { at: now, answer };
      return answer;
    },
    close() {
      try {
        audit.close();
      } finally {
        postgres?.close();
      }
    },
  };
}
