/**
 * The kill switch of a deployment whose replicas share PostgreSQL: the row of the `halt` table
 * (migration 1; at most one row, id 1). While it exists every replica refuses every change, as the
 * host file (src/safety/halt.ts) does for its host; the bridge asks both through `eitherSwitch`.
 *
 * One indexed read per change, not cached, so a halt set from any host takes effect at the next
 * write of every replica. A database that cannot be read counts as halted (fails closed), like a
 * switch file that cannot be checked. Who may set or lift it is who may write the table: the
 * account of `pve-code-mcp halt`/`resume` and the servers; nothing an agent sends reaches it.
 */
import { StateError } from '../state/errors.js';
import type { PostgresState } from '../state/postgres/sql.js';
import { clean, HaltError, type HaltedState, type HaltState, type KillSwitch } from './halt.js';

interface HaltRow {
  since_ms: number;
  by: string;
  reason: string | null;
}

const SELECT = `select (extract(epoch from since) * 1000)::float8 as since_ms, "by", reason from halt where id = 1`;

export class PostgresHalt implements KillSwitch {
  constructor(private readonly pg: PostgresState) {}

  /** The database the row is in (without its password). */
  get where(): string {
    return this.pg.where;
  }

  state(): HaltState {
    let rows: HaltRow[];
    try {
      rows = this.pg.query<HaltRow & Record<string, unknown>>(SELECT);
    } catch (err) {
      return {
        halted: true,
        database: this.where,
        problem: `the halt row of the database ${this.where} cannot be read (${messageOf(err)}); changes stay stopped until it can: check that the database answers`,
      };
    }
    const row = rows[0];
    return row ? this.stateOf(row) : { halted: false };
  }

  /** Stop every change of every replica; returns the new state (a halt already set is replaced). */
  halt(reason: string | undefined, by: string): HaltedState {
    const since = new Date().toISOString();
    const why = reason?.trim() ? clean(reason) : undefined;
    try {
      this.pg.query(
        `insert into halt (id, since, "by", reason) values (1, $1::timestamptz, $2, $3) on conflict (id) do update set since = excluded.since, "by" = excluded."by", reason = excluded.reason`,
        [since, by, why ?? null],
      );
    } catch (err) {
      throw new HaltError('halt-write', `cannot set the halt row in the database ${this.where} (${messageOf(err)}): check that it answers, or halt each host with its halt file`);
    }
    return { halted: true, database: this.where, since, by, ...(why ? { reason: why } : {}) };
  }

  /**
   * Lift the halt: the row is deleted and `record` runs (the CLI's audit entry) in one transaction,
   * so when `record` throws the row stays as it was and the error is rethrown. Returns the state before.
   */
  resume(record?: (ended: HaltedState) => void): HaltState {
    // The record's own failure (an audit on this database, say) is rethrown as it is, not as ours.
    let recordError: unknown;
    try {
      return this.pg.transaction((tx) => {
        const row = tx.query<HaltRow & Record<string, unknown>>(`${SELECT} for update`)[0];
        if (!row) return { halted: false };
        const before = this.stateOf(row);
        tx.query('delete from halt where id = 1');
        try {
          record?.(before);
        } catch (err) {
          recordError = err;
          throw err;
        }
        return before;
      });
    } catch (err) {
      if (err === recordError || !(err instanceof StateError)) throw err;
      throw new HaltError('halt-resume', `cannot remove the halt row from the database ${this.where} (${messageOf(err)}); the halt stays: retry once the database answers`);
    }
  }

  private stateOf(row: HaltRow): HaltedState {
    return { halted: true, database: this.where, since: new Date(row.since_ms).toISOString(), by: clean(row.by), ...(row.reason ? { reason: clean(row.reason) } : {}) };
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
