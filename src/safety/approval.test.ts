import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApprovalError, ApprovalStore, approvePlan } from './approval.js';
import { computePlanId, hashCode, PlanRecorder, type Plan } from './plan.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'approvals-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function makePlan(code = 'await pve.post(...)', memory = 8192): Plan {
  const rec = new PlanRecorder();
  rec.record({
    cluster: 'default',
    method: 'PUT',
    path: '/nodes/pve1/qemu/101/config',
    template: '/nodes/{node}/qemu/{vmid}/config',
    params: { memory, cipassword: '[redacted]' },
    fullParams: { memory, cipassword: 'real-secret' },
    risk: 'write',
    needsApproval: false,
    targets: [{ vmid: 101, exists: true, name: 'web', digest: 'd'.repeat(40) }],
    returnsTask: false,
  });
  rec.record({
    cluster: 'default',
    method: 'DELETE',
    path: '/nodes/pve1/qemu/102',
    template: '/nodes/{node}/qemu/{vmid}',
    params: {},
    fullParams: {},
    risk: 'destructive',
    needsApproval: true,
    targets: [{ vmid: 102, exists: true, name: 'old' }],
    returnsTask: true,
    node: 'pve1',
  });
  return rec.finish(code, 'operator');
}

describe('plans', () => {
  it('planId is deterministic and binds code, params (also secret ones) and guest identity', () => {
    const a = makePlan();
    expect(a.planId).toMatch(/^[0-9a-f]{64}$/);
    expect(makePlan().planId).toBe(a.planId);
    expect(makePlan('other code').planId).not.toBe(a.planId);
    expect(makePlan(undefined, 4096).planId).not.toBe(a.planId);
    const otherDigest = { ...a, writes: a.writes.map((w, i) => (i === 0 ? { ...w, targets: [{ ...w.targets[0]!, digest: 'e'.repeat(40) }] } : w)) };
    expect(computePlanId(a.codeHash, otherDigest.writes)).not.toBe(a.planId);
    expect(JSON.stringify(a)).not.toContain('real-secret');
    expect(a.writes[1]?.upid).toMatch(/^UPID:pve1:.*:planned@dry-run:$/);
  });
});

describe('ApprovalStore', () => {
  it('approves a stored plan out of band and finds it for the same script only', () => {
    const store = new ApprovalStore(dir);
    const plan = makePlan();
    store.savePlan(plan);
    expect(statSync(join(dir, 'plans', `${plan.planId}.json`)).mode & 0o777).toBe(0o600);
    expect(store.find({ codeHash: plan.codeHash })).toBeUndefined();
    const record = approvePlan(plan.planId.toUpperCase(), dir, { approvedBy: 'alice' });
    expect(record).toMatchObject({ type: 'approve', planId: plan.planId, approvedBy: 'alice' });
    expect(store.find({ codeHash: plan.codeHash })?.plan.planId).toBe(plan.planId);
    expect(store.find({ codeHash: hashCode('different script') })).toBeUndefined();
    expect(store.find({ codeHash: plan.codeHash, planId: 'f'.repeat(64) })).toBeUndefined();
  });

  it('approvals expire and are used once', () => {
    const store = new ApprovalStore(dir);
    const plan = makePlan();
    store.savePlan(plan);
    const now = new Date('2030-01-01T00:00:00Z');
    store.approve(plan.planId, { ttlMs: 60_000, now });
    expect(store.find({ codeHash: plan.codeHash }, new Date(now.getTime() + 30_000))).toBeDefined();
    expect(store.find({ codeHash: plan.codeHash }, new Date(now.getTime() + 61_000))).toBeUndefined();
    store.consume(plan.planId, 'run-9', now);
    expect(store.find({ codeHash: plan.codeHash }, now)).toBeUndefined();
  });

  it('refuses unknown, malformed and edited plans', () => {
    const store = new ApprovalStore(dir);
    expect(() => approvePlan('a'.repeat(64), dir)).toThrow(/no dry-run plan .* run the script with dryRun: true/);
    expect(() => approvePlan('../../etc/passwd', dir)).toThrow(ApprovalError);
    const plan = makePlan();
    store.savePlan(plan);
    const file = join(dir, 'plans', `${plan.planId}.json`);
    const edited = JSON.parse(readFileSync(file, 'utf8')) as Plan;
    edited.writes[1]!.path = '/nodes/pve1/qemu/103';
    writeFileSync(file, JSON.stringify(edited));
    expect(() => approvePlan(plan.planId, dir)).toThrow(/does not match its id/);
  });

  it('ignores garbage lines in the approvals file', () => {
    const store = new ApprovalStore(dir);
    const plan = makePlan();
    store.savePlan(plan);
    writeFileSync(join(dir, 'approvals.jsonl'), `not json\n${JSON.stringify({ type: 'approve', planId: plan.planId })}\n`);
    expect(store.find({ codeHash: plan.codeHash })).toBeUndefined();
  });
});
