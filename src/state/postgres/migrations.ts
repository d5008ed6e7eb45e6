/**
 * The shared store's database schema, as versioned migrations applied in order when a process
 * opens the store. Replicas starting together take one advisory lock for it, so each migration runs
 * once; a database migrated by a newer build is refused (an older replica would not know its
 * tables) until this replica is upgraded. Append new versions at the end; never edit an applied one.
 */
import { StateError } from '../errors.js';
import type { Sql } from './sql.js';

export interface Migration {
  version: number;
  /** What it adds, in a few words (kept in `schema_migrations`). */
  name: string;
  statements: string[];
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'plans, approvals, audit chain, writers, kill switch',
    statements: [
      'CREATE TABLE plans (plan_id text PRIMARY KEY, body text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())',
      'CREATE TABLE approval_records (id bigserial PRIMARY KEY, plan_id text NOT NULL, record jsonb NOT NULL)',
      'CREATE INDEX approval_records_plan ON approval_records (plan_id)',
      // An operator approval is consumed once, whichever code path tries a second time.
      "CREATE UNIQUE INDEX approval_consumed_once ON approval_records ((record->>'approvalId')) WHERE record->>'type' = 'consume' AND record ? 'approvalId'",
      'CREATE TABLE audit_chain (chain text PRIMARY KEY, seq bigint NOT NULL, hash text NOT NULL, alg text NOT NULL)',
      'CREATE TABLE audit_entries (chain text NOT NULL, seq bigint NOT NULL, type text NOT NULL, line text NOT NULL, writer text, settles bigint, PRIMARY KEY (chain, seq))',
      "CREATE INDEX audit_entries_open_intents ON audit_entries (chain, writer) WHERE type = 'intent'",
      'CREATE INDEX audit_entries_settles ON audit_entries (chain, settles) WHERE settles IS NOT NULL',
      'CREATE TABLE audit_writers (writer text PRIMARY KEY, host text NOT NULL, pid int NOT NULL, started_at timestamptz NOT NULL, lock_key bigint NOT NULL, retired_at timestamptz)',
      'CREATE TABLE halt (id int PRIMARY KEY CHECK (id = 1), since timestamptz NOT NULL, by text NOT NULL, reason text)',
    ],
  },
  {
    version: 2,
    name: 'standing approvals; approvals by script',
    statements: [
      // One row per standing approval; `seq` keeps the order they were given in (src/safety/standing-postgres.ts).
      'CREATE TABLE standing_approvals (id text PRIMARY KEY, seq bigserial NOT NULL, body jsonb NOT NULL)',
      // A claim looks approvals up by the script's hash (src/safety/approval-postgres.ts).
      "CREATE INDEX approval_records_code ON approval_records ((record->>'codeHash')) WHERE record->>'type' = 'approve'",
    ],
  },
  {
    version: 3,
    name: 'audit writers record their key id',
    statements: [
      // Which audit key a writer signs with (an HMAC of a fixed label, never the key: src/audit/postgres-key.ts):
      // a replica with another key is refused while that writer lives, whatever the chain ends in. Null: an older build.
      'ALTER TABLE audit_writers ADD COLUMN key_id text',
    ],
  },
];

/** A fixed advisory-lock key for migrating (any 64-bit number no other lock of the product uses). */
const MIGRATION_LOCK = '7305946253316551937';

/** Bring the database to the newest version this build knows; returns the versions applied now. */
export function migrate(sql: Sql, migrations: readonly Migration[] = MIGRATIONS): number[] {
  const known = migrations.at(-1)?.version ?? 0;
  return sql.transaction((tx) => {
    tx.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK]);
    tx.query('CREATE TABLE IF NOT EXISTS schema_migrations (version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
    const done = new Set(tx.query<{ version: number }>('SELECT version FROM schema_migrations').map((r) => r.version));
    const newest = Math.max(0, ...done);
    if (newest > known) {
      throw new StateError('state-migration', `the state database is at schema version ${newest}, newer than this pve-code-mcp knows (${known}): upgrade this replica to the version the others run`);
    }
    const applied: number[] = [];
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      try {
        for (const statement of m.statements) tx.query(statement);
      } catch (err) {
        throw new StateError('state-migration', `migration ${m.version} (${m.name}) of the state database failed: ${(err as Error).message}; nothing of it was applied`);
      }
      tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      applied.push(m.version);
    }
    return applied;
  });
}
