/**
 * The standing approvals store over each backend, through the same cases: the state directory's
 * file and a real PostgreSQL (test/support/postgres.ts; skipped, saying why, where there is none).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/state/postgres/open.js';
import { postgresUnavailable, usePostgresStore } from '../support/postgres.js';
import type { StandingUse } from '../../src/safety/standing.js';
import { FileStandingBackend, type StandingBackend } from '../../src/safety/standing-backend.js';
import { PostgresStandingBackend } from '../../src/safety/standing-postgres.js';
import { type NewStanding, StandingStore, StandingStoreError } from '../../src/safety/standing-store.js';

const why = postgresUnavailable();
const db = usePostgresStore();
const dirs: string[] = [];

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface Kind {
  name: string;
  skip?: string;
  fresh(): StandingBackend;
  /** Put something that is not a standing approval where they are kept. */
  corrupt(backend: StandingBackend): void;
}

const kinds: Kind[] = [
  {
    name: 'file',
    fresh: () => {
      const dir = mkdtempSync(join(tmpdir(), 'standing-backend-'));
      dirs.push(dir);
      return new FileStandingBackend(dir);
    },
    corrupt: (b) => writeFileSync(b.where, JSON.stringify([{ id: 'not hex' }])),
  },
  {
    name: 'postgres',
    ...(why ? { skip: why } : {}),
    fresh: () => {
      db.pg.query('TRUNCATE standing_approvals RESTART IDENTITY');
      return new PostgresStandingBackend(db.pg);
    },
    corrupt: () => void db.pg.query(`INSERT INTO standing_approvals (id, body) VALUES ('x', '{"id":"not hex"}')`),
  },
];

const given: NewStanding = {
  runbook: 'snapshot-pool',
  contentHash: 'h1',
  args: { pool: { values: ['development'] } },
  targets: { pools: ['development'] },
  risks: ['write'],
  maxWrites: 3,
  maxRuns: 2,
  approvedBy: 'alice',
  expiresAt: '2026-01-08T00:00:00.000Z',
};

const use: StandingUse = {
  runbook: 'snapshot-pool',
  contentHash: 'h1',
  cluster: 'lab',
  args: { pool: 'development' },
  writes: [
    { seq: 1, risk: 'write', needsApproval: true, targets: [{ vmid: 101, pool: 'development', tags: [] }] },
    { seq: 2, risk: 'write', needsApproval: true, targets: [{ vmid: 102, pool: 'development', tags: [] }] },
  ],
  now: new Date('2026-01-02T00:00:00.000Z'),
  runner: 'bob',
  fourEyes: false,
  tainted: false,
};

describe.each(kinds)('the standing approvals store on the $name backend', (kind) => {
  describe.skipIf(kind.skip !== undefined)(kind.skip ? `skipped: ${kind.skip}` : 'cases', () => {
    it('keeps approvals in the order they were given, and a revocation', () => {
      const store = new StandingStore(kind.fresh());
      expect(store.list()).toEqual([]);
      const now = new Date('2026-01-01T00:00:00.000Z');
      const first = store.add(given, now);
      const second = store.add({ ...given, runbook: 'restart-web' }, now);
      expect(first).toMatchObject({ ...given, approvedAt: now.toISOString(), used: { runs: 0, writes: 0 } });
      expect(first.id).toMatch(/^[0-9a-f]{16}$/);
      store.revoke(first.id, now);
      expect(store.list()).toEqual([{ ...first, revokedAt: now.toISOString() }, second]);
    });

    it('charges each use to the approval that covers it, until its budget is spent', () => {
      const store = new StandingStore(kind.fresh());
      const a = store.add(given);
      const once = store.use(use);
      expect('approval' in once && once.approval.id).toBe(a.id);
      expect(store.list()[0]?.used).toEqual({ runs: 1, writes: 2 });
      // Two more writes would make four of three.
      const twice = store.use(use);
      expect(twice).toEqual({ reasons: [`standing approval ${a.id}: this run plans 2 write(s) and 1 of its 3 remain`] });
      expect(store.list()[0]?.used).toEqual({ runs: 1, writes: 2 });
    });

    it('refuses to revoke an unknown id, and says where it looked', () => {
      const backend = kind.fresh();
      const store = new StandingStore(backend);
      expect(() => store.revoke('0123456789abcdef')).toThrow(`no standing approval 0123456789abcdef in ${backend.where}`);
    });

    it('refuses what is not a standing approval, naming where it is', () => {
      const backend = kind.fresh();
      kind.corrupt(backend);
      const store = new StandingStore(backend);
      expect(() => store.list()).toThrow(StandingStoreError);
      expect(() => store.list()).toThrow(`${backend.where} is malformed`);
    });
  });
});

describe.skipIf(why !== undefined)(`standing approvals on a database that cannot be reached${why ? ` (skipped: ${why})` : ''}`, () => {
  it('is a StandingStoreError, so the run asks for an ordinary approval instead', () => {
    const closed = openPostgres({ url: db.url });
    closed.close();
    const store = new StandingStore(new PostgresStandingBackend(closed));
    expect(() => store.use(use)).toThrow(StandingStoreError);
    expect(() => store.list()).toThrow(/cannot be used/);
  });
});
