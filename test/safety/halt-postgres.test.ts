/**
 * The deployment's kill switch, the `halt` row, on a real PostgreSQL (test/support/postgres.ts;
 * skipped, saying why, where there is none), and the switch the bridge asks: the host file or the
 * row, either halts, and a database that cannot be read halts too.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/state/postgres/open.js';
import { postgresUnavailable, usePostgresStore } from '../support/postgres.js';
import { eitherSwitch, HaltSwitch, haltRefusal } from '../../src/safety/halt.js';
import { PostgresHalt } from '../../src/safety/halt-postgres.js';
import { safetyStores } from '../../src/safety/state-backends.js';

const why = postgresUnavailable();

describe.skipIf(why !== undefined)(`the halt row${why ? ` (skipped: ${why})` : ''}`, () => {
  const db = usePostgresStore();
  let dir: string;

  beforeEach(() => {
    db.pg.query('DELETE FROM halt');
    dir = mkdtempSync(join(tmpdir(), 'halt-pg-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('halts every replica sharing the database while the row exists, and says so', () => {
    const here = new PostgresHalt(db.pg);
    const other = openPostgres({ url: db.url });
    try {
      const there = new PostgresHalt(other);
      expect(there.state()).toEqual({ halted: false });
      const set = here.halt('  storage migration\ttonight ', 'alice');
      expect(set).toMatchObject({ halted: true, database: db.pg.where, by: 'alice', reason: 'storage migration tonight' });
      expect(there.state()).toEqual(set);
      const refusal = haltRefusal(there.state()) as string;
      expect(refusal).toContain('all changes are halted on every server sharing the database since');
      expect(refusal).toContain(`(database ${db.pg.where})`);
      expect(refusal).toContain('storage migration tonight');
      // A second halt replaces the first.
      expect(here.halt(undefined, 'bob')).toMatchObject({ by: 'bob' });
      expect(there.state()).not.toHaveProperty('reason');
    } finally {
      other.close();
    }
  });

  it('resume deletes the row and records it in one step: when the record fails the halt stays', () => {
    const row = new PostgresHalt(db.pg);
    const set = row.halt('incident 42', 'alice');
    expect(() =>
      row.resume(() => {
        throw new Error('audit full');
      }),
    ).toThrow('audit full');
    expect(row.state()).toEqual(set);
    const seen: unknown[] = [];
    expect(row.resume((ended) => seen.push(ended))).toEqual(set);
    expect(seen).toEqual([set]);
    expect(row.state()).toEqual({ halted: false });
    expect(row.resume()).toEqual({ halted: false });
  });

  it('counts a database whose row cannot be read as halted (fails closed)', () => {
    const closed = openPostgres({ url: db.url });
    closed.close();
    const state = new PostgresHalt(closed).state();
    expect(state).toMatchObject({ halted: true, database: closed.where });
    expect(state.halted && state.problem).toContain('cannot be read');
    expect(haltRefusal(state)).toContain('all changes are stopped on every server sharing the database');
  });

  it('the switch the bridge asks halts on the host file or on the row, either one', () => {
    const file = join(dir, 'halt');
    const { killSwitch, haltRow } = safetyStores({ dir, postgres: db.pg }, { haltFile: file });
    expect(killSwitch.state()).toEqual({ halted: false });
    writeFileSync(file, 'this host only');
    expect(killSwitch.state()).toMatchObject({ halted: true, file, reason: 'this host only' });
    rmSync(file);
    haltRow?.halt('every replica', 'alice');
    expect(killSwitch.state()).toMatchObject({ halted: true, database: db.pg.where, reason: 'every replica' });
    // Without PostgreSQL the switch is the file alone, as before.
    expect(safetyStores({ dir }, { haltFile: file }).killSwitch.state()).toEqual({ halted: false });
    expect(eitherSwitch(HaltSwitch.open(file)).state()).toEqual({ halted: false });
  });
});
