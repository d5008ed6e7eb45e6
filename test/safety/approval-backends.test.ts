/**
 * The approvals store over each backend, through the same cases: the state directory and a real
 * PostgreSQL (test/support/postgres.ts; skipped, saying why, where there is none). Then what only
 * the database does: its unique index refuses a second consume of one approval on its own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/state/postgres/open.js';
import { postgresUnavailable, usePostgresStore } from '../support/postgres.js';
import { type ApprovalBackend, FileApprovalBackend } from '../../src/safety/approval-backend.js';
import { PostgresApprovalBackend } from '../../src/safety/approval-postgres.js';
import { ApprovalStore } from '../../src/safety/approval.js';
import { ApprovalError } from '../../src/safety/approval-errors.js';
import { PlanRecorder, type Plan } from '../../src/safety/plan.js';

const why = postgresUnavailable();
const db = usePostgresStore();
const dirs: string[] = [];

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface Kind {
  name: string;
  skip?: string;
  /** An empty store of this kind. */
  fresh(): ApprovalBackend;
  /** What `approveCommandLine` names the store with. */
  args(backend: ApprovalBackend): string;
}

const kinds: Kind[] = [
  {
    name: 'file',
    fresh: () => {
      const dir = mkdtempSync(join(tmpdir(), 'approval-backend-'));
      dirs.push(dir);
      return new FileApprovalBackend(dir);
    },
    args: (b) => `--state-dir ${resolve((b as FileApprovalBackend).dir)}`,
  },
  {
    name: 'postgres',
    ...(why ? { skip: why } : {}),
    fresh: () => {
      db.pg.query('TRUNCATE plans, approval_records RESTART IDENTITY');
      return new PostgresApprovalBackend(db.pg, '/etc/pve-code-mcp/config.json');
    },
    args: () => '--config /etc/pve-code-mcp/config.json',
  },
];

function makePlan(code = 'await pve.delete(...)', vmid = 102): Plan {
  const rec = new PlanRecorder();
  rec.record({
    cluster: 'default',
    method: 'DELETE',
    path: `/nodes/pve1/qemu/${vmid}`,
    template: '/nodes/{node}/qemu/{vmid}',
    params: {},
    fullParams: {},
    risk: 'destructive',
    needsApproval: true,
    targets: [{ vmid, exists: true, name: 'old' }],
    returnsTask: true,
    node: 'pve1',
  });
  return rec.finish(code, 'operator');
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApprovalError) return err.code;
    throw err;
  }
  return undefined;
}

describe.each(kinds)('the approvals store on the $name backend', (kind) => {
  describe.skipIf(kind.skip !== undefined)(kind.skip ? `skipped: ${kind.skip}` : 'cases', () => {
    it('keeps plan texts by id, replaces one of the same id, and lists the ids', () => {
      const b = kind.fresh();
      const [x, y] = ['a'.repeat(64), 'b'.repeat(64)];
      expect(b.loadPlan(x)).toBeUndefined();
      expect(b.planIds()).toEqual([]);
      b.savePlan(x, 'one\n');
      b.savePlan(x, 'two\n');
      b.savePlan(y, 'three\n');
      expect(b.loadPlan(x)).toBe('two\n');
      expect(b.planIds().sort()).toEqual([x, y]);
    });

    it('gives the records back in the order they were appended', () => {
      const b = kind.fresh();
      const planId = 'a'.repeat(64);
      const records = [
        { type: 'request', planId, n: 1 },
        { type: 'consume', planId, n: 2, nested: { list: [1, 'two'] } },
        { type: 'approve', planId, n: 3 },
      ];
      b.locked(() => {
        b.append(records[0] as object);
        b.append(records[1] as object);
      });
      b.locked(() => b.append(records[2] as object));
      expect(b.records()).toEqual(records);
    });

    it('gives the records of one plan, or of the plans an approval of one script names', () => {
      const b = kind.fresh();
      const [x, y, z] = ['a'.repeat(64), 'b'.repeat(64), 'c'.repeat(64)];
      const records = [
        { type: 'request', planId: x, principal: 'alice' },
        { type: 'approve', planId: y, codeHash: 'h1' },
        { type: 'approve', planId: x, codeHash: 'h1' },
        { type: 'consume', planId: x, runId: 'r1' },
        { type: 'approve', planId: z, codeHash: 'h2' },
        { type: 'consume', planId: z, runId: 'r2' },
      ];
      b.locked(() => {
        for (const r of records) b.append(r);
      });
      expect(b.records({ planId: x })).toEqual([records[0], records[2], records[3]]);
      expect(b.records({ codeHash: 'h1' })).toEqual(records.slice(0, 4));
      expect(b.records({ codeHash: 'h3' })).toEqual([]);
    });

    it('an approval runs once: the first claim takes it, the next finds nothing and the plan stands as ran', () => {
      const store = new ApprovalStore(kind.fresh());
      const plan = makePlan();
      store.savePlan(plan);
      expect(store.loadPlan(plan.planId)).toEqual(plan);
      expect(store.status(plan.planId)?.status).toBe('pending');
      const approval = store.approve(plan.planId, { approvedBy: 'operator' });
      expect(store.approve(plan.planId, { approvedBy: 'operator' })).toEqual(approval);
      expect(store.status(plan.planId)?.status).toBe('approved');
      const won = store.claim({ codeHash: plan.codeHash }, 'run-1');
      expect(won?.approval.id).toBe(approval.id);
      expect(store.claim({ codeHash: plan.codeHash }, 'run-2')).toBeUndefined();
      expect(codeOf(() => store.consume(plan.planId, 'run-3'))).toBe('already-consumed');
      expect(store.status(plan.planId)).toMatchObject({ status: 'ran', lastRun: { runId: 'run-1', approvalId: approval.id } });
      expect(codeOf(() => store.approve(plan.planId, { approvedBy: 'operator' }))).toBe('already-run');
      store.approve(plan.planId, { approvedBy: 'operator', again: true });
      expect(store.claim({ planId: plan.planId, codeHash: plan.codeHash }, 'run-4')).toBeDefined();
    });

    it('a run through elicitation spends an operator approval given before it', () => {
      const store = new ApprovalStore(kind.fresh());
      const plan = makePlan();
      store.savePlan(plan);
      store.approve(plan.planId, { approvedBy: 'operator' });
      store.markConsumed(plan.planId, 'run-e');
      expect(store.find({ codeHash: plan.codeHash })).toBeUndefined();
      expect(store.status(plan.planId)?.lastRun).toMatchObject({ runId: 'run-e', via: 'elicitation' });
    });

    it("a principal's view keeps the backend: its requests and approvals are the same records, kept apart from other principals'", () => {
      const backend = kind.fresh();
      const store = new ApprovalStore(backend);
      const alice = store.forPrincipal('alice', () => ({ group: 'ops' }));
      const plan = makePlan();
      alice.savePlan(plan);
      expect(store.requesters(plan.planId)).toEqual(['alice']);
      expect(store.approversFor(plan.planId, 'alice')).toEqual({ group: 'ops' });
      expect(codeOf(() => store.approve(plan.planId, { approver: 'alice' }))).toBe('self-approval');
      expect(codeOf(() => store.approve(plan.planId, { approver: 'bob', approverGroups: [] }))).toBe('not-an-approver');
      store.approve(plan.planId, { approver: 'bob', approverGroups: ['ops'] });
      expect(store.forPrincipal('carol').claim({ codeHash: plan.codeHash }, 'run-c')).toBeUndefined();
      expect(store.claim({ codeHash: plan.codeHash }, 'run-x')).toBeUndefined();
      expect(new ApprovalStore(backend).forPrincipal('alice').claim({ codeHash: plan.codeHash }, 'run-a')?.approval.requestedBy).toBe('alice');
    });

    it('lists the stored plans newest first and resolves a unique prefix', () => {
      const store = new ApprovalStore(kind.fresh());
      const older = { ...makePlan('a', 201) };
      const newer = makePlan('b', 202);
      store.savePlan(older);
      store.savePlan(newer);
      expect(new Set(store.list().map((s) => s.plan.planId))).toEqual(new Set([older.planId, newer.planId]));
      expect(store.resolvePlanId(newer.planId.slice(0, 12))).toBe(newer.planId);
      expect(store.resolvePlanId('0123456789abcdef')).toBeUndefined();
    });

    it('refuses a stored plan whose text no longer hashes to its id, and a malformed id before asking the backend', () => {
      const backend = kind.fresh();
      const store = new ApprovalStore(backend);
      const plan = makePlan();
      store.savePlan(plan);
      backend.savePlan(plan.planId, JSON.stringify({ ...plan, writes: plan.writes.map((w) => ({ ...w, path: '/nodes/pve1/qemu/999' })) }));
      expect(codeOf(() => store.loadPlan(plan.planId))).toBe('plan-modified');
      expect(codeOf(() => store.loadPlan('../../etc/passwd'))).toBe('bad-plan-id');
    });

    it('names the store in its messages and in the command an operator runs', () => {
      const backend = kind.fresh();
      const store = new ApprovalStore(backend);
      const missing = 'c'.repeat(64);
      expect(() => store.approve(missing)).toThrow(`no dry-run plan ${missing} in ${backend.where};`);
      expect(store.approveCommandLine(missing)).toBe(`pve-code-mcp approve ${missing} ${kind.args(backend)}`);
    });
  });
});

describe.skipIf(why !== undefined)(`the database's own single use${why ? ` (skipped: ${why})` : ''}`, () => {
  it('refuses a second consume of one approval even without the store lock, as already-consumed', () => {
    db.pg.query('TRUNCATE plans, approval_records RESTART IDENTITY');
    const backend = new PostgresApprovalBackend(db.pg);
    const planId = 'd'.repeat(64);
    const consume = (runId: string) => ({ type: 'consume', planId, at: new Date().toISOString(), runId, via: 'operator', approvalId: 'approval-1' });
    // Straight to the backend: no lock, no check of the records first, as a buggy path would.
    backend.append(consume('run-1'));
    expect(codeOf(() => backend.append(consume('run-2')))).toBe('already-consumed');
    // Consumes without an approval id (elicitation) are not single-use by the index.
    backend.append({ type: 'consume', planId, at: new Date().toISOString(), runId: 'run-3', via: 'elicitation' });
    backend.append({ type: 'consume', planId, at: new Date().toISOString(), runId: 'run-4', via: 'elicitation' });
    expect(backend.records().map((r) => (r as { runId: string }).runId)).toEqual(['run-1', 'run-3', 'run-4']);
  });

  it('a database that cannot be reached is store-unavailable, and nothing is claimed', () => {
    const closed = openPostgres({ url: db.url });
    closed.close();
    const store = new ApprovalStore(new PostgresApprovalBackend(closed));
    expect(codeOf(() => store.claim({ codeHash: 'e'.repeat(64) }, 'run-1'))).toBe('store-unavailable');
    expect(codeOf(() => store.status('e'.repeat(64)))).toBe('store-unavailable');
  });
});
