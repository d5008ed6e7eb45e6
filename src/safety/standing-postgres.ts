/**
 * Standing approvals on PostgreSQL, shared by the replicas of a deployment: one row per approval in
 * `standing_approvals` (migration 2), in the order they were given (`seq`). Every change is one
 * transaction under the store's advisory lock (PostgresSerial), so two replicas charging the last
 * writes of a budget at once cannot both get them. A database that cannot be read throws
 * StandingStoreError: the run that asked is told its standing approval cannot be read, and falls
 * back to asking for an ordinary approval (fail closed).
 */
import { StateError } from '../state/errors.js';
import type { PostgresState } from '../state/postgres/sql.js';
import type { StandingApproval } from './standing.js';
import type { StandingBackend } from './standing-backend.js';
import { StandingStoreError } from './standing-store.js';
import { LOCK_KEYS, PostgresSerial } from './postgres-serial.js';

export class PostgresStandingBackend implements StandingBackend {
  private readonly serial: PostgresSerial;

  constructor(private readonly pg: PostgresState) {
    this.serial = new PostgresSerial(pg, LOCK_KEYS.standing);
  }

  get where(): string {
    return `the table standing_approvals of ${this.pg.where}`;
  }

  read(): unknown {
    return this.run(() => this.serial.sql.query<{ body: unknown }>('select body from standing_approvals order by seq')).map((r) => (typeof r.body === 'string' ? JSON.parse(r.body) : r.body));
  }

  put(approval: StandingApproval): void {
    this.run(() =>
      this.serial.sql.query('insert into standing_approvals (id, body) values ($1, $2::jsonb) on conflict (id) do update set body = excluded.body', [approval.id, JSON.stringify(approval)]),
    );
  }

  locked<T>(fn: () => T): T {
    return this.run(() => this.serial.locked(fn));
  }

  private run<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (!(err instanceof StateError)) throw err;
      throw new StandingStoreError(`the standing approvals in ${this.pg.where} cannot be used (${err.message}): retry once the database answers`);
    }
  }
}
