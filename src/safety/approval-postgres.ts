/**
 * The approvals store on PostgreSQL, shared by every replica of a deployment (tables `plans` and
 * `approval_records`, migration 1 of src/state/postgres/migrations.ts).
 *
 * Single use across replicas rests on two things, either of which suffices for an approval with an
 * id: every read-then-append of the store (claim, consume, approve, a request) runs in one
 * transaction holding the store's advisory lock (PostgresSerial), so a second replica's claim sees
 * the first one's consume and finds nothing; and the unique index `approval_consumed_once` refuses
 * a second `consume` of one approvalId whatever path tries it (ApprovalError `already-consumed`).
 * Records keep their order by `id` (a sequence), assigned under the lock.
 */
import type { PostgresState } from '../state/postgres/sql.js';
import { StateError } from '../state/errors.js';
import type { ApprovalBackend, RecordScope } from './approval-backend.js';
import { ApprovalError } from './approval-errors.js';
import { shellQuote } from './shell-quote.js';
import { LOCK_KEYS, PostgresSerial } from './postgres-serial.js';

export class PostgresApprovalBackend implements ApprovalBackend {
  private readonly serial: PostgresSerial;

  constructor(
    private readonly pg: PostgresState,
    /** The config file that names this database, for the commands shown to an operator. */
    private readonly configFile?: string,
  ) {
    this.serial = new PostgresSerial(pg, LOCK_KEYS.approvals);
  }

  get where(): string {
    return this.pg.where;
  }

  get cliArgs(): string {
    return this.configFile !== undefined ? `--config ${shellQuote(this.configFile)}` : '';
  }

  savePlan(planId: string, text: string): void {
    this.run(() => this.serial.sql.query('insert into plans (plan_id, body) values ($1, $2) on conflict (plan_id) do update set body = excluded.body', [planId, text]));
  }

  loadPlan(planId: string): string | undefined {
    const rows = this.run(() => this.serial.sql.query<{ body: string }>('select body from plans where plan_id = $1', [planId]));
    return rows[0]?.body;
  }

  planIds(): string[] {
    return this.run(() => this.serial.sql.query<{ plan_id: string }>('select plan_id from plans order by plan_id')).map((r) => r.plan_id);
  }

  records(scope?: RecordScope): unknown[] {
    // Indexed: approval_records_plan (migration 1) and approval_records_code (migration 2).
    const [where, params] =
      scope === undefined
        ? ['', []]
        : 'planId' in scope
          ? ['where plan_id = $1', [scope.planId]]
          : ["where plan_id in (select plan_id from approval_records where record->>'type' = 'approve' and record->>'codeHash' = $1)", [scope.codeHash]];
    const rows = this.run(() => this.serial.sql.query<{ record: unknown }>(`select record from approval_records ${where} order by id`, params));
    return rows.map((r) => (typeof r.record === 'string' ? JSON.parse(r.record) : r.record));
  }

  append(record: object): void {
    const planId = (record as { planId?: unknown }).planId;
    try {
      this.serial.sql.query('insert into approval_records (plan_id, record) values ($1, $2::jsonb)', [planId, JSON.stringify(record)]);
    } catch (err) {
      if (err instanceof StateError && err.code === 'state-conflict' && err.constraint === 'approval_consumed_once') {
        const id = (record as { approvalId?: unknown }).approvalId;
        throw new ApprovalError(`approval ${String(id)} of plan ${String(planId)} was already used by another run; nothing may run on it`, 'already-consumed');
      }
      // Another rule of the table (a record without a planId) is a fault of the caller: it stays a StateError.
      if (err instanceof StateError && err.code === 'state-conflict') throw err;
      throw this.unavailable(err);
    }
  }

  locked<T>(fn: () => T): T {
    return this.run(() => this.serial.locked(fn));
  }

  private run<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      throw this.unavailable(err);
    }
  }

  /** A database failure as the store's error (the rules' own ApprovalErrors pass unchanged). */
  private unavailable(err: unknown): unknown {
    if (!(err instanceof StateError)) return err;
    return new ApprovalError(`the approvals store ${this.pg.where} cannot be used (${err.message}); nothing that needs it proceeds: retry once the database answers`, 'store-unavailable');
  }
}
