import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApprovalStore } from './approval.js';
import { ApprovalError } from './approval-errors.js';
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
    const record = new ApprovalStore(dir).approve(plan.planId.toUpperCase(), { approvedBy: 'alice' });
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
    expect(() => new ApprovalStore(dir).approve('a'.repeat(64))).toThrow(/no dry-run plan .* run the script with dryRun: true/);
    expect(() => new ApprovalStore(dir).approve('../../etc/passwd')).toThrow(ApprovalError);
    const plan = makePlan();
    store.savePlan(plan);
    const file = join(dir, 'plans', `${plan.planId}.json`);
    const edited = JSON.parse(readFileSync(file, 'utf8')) as Plan;
    edited.writes[1]!.path = '/nodes/pve1/qemu/103';
    writeFileSync(file, JSON.stringify(edited));
    expect(() => new ApprovalStore(dir).approve(plan.planId)).toThrow(/does not match its id/);
  });

  it('ignores garbage lines in the approvals file', () => {
    const store = new ApprovalStore(dir);
    const plan = makePlan();
    store.savePlan(plan);
    writeFileSync(join(dir, 'approvals.jsonl'), `not json\n${JSON.stringify({ type: 'approve', planId: plan.planId })}\n`);
    expect(store.find({ codeHash: plan.codeHash })).toBeUndefined();
  });
});

describe('ApprovalStore: single use across processes and channels', () => {
  it('claim finds and consumes atomically: the second claim gets nothing', () => {
    const store = new ApprovalStore(dir);
    const plan = makePlan();
    store.savePlan(plan);
    store.approve(plan.planId);
    const first = store.claim({ codeHash: plan.codeHash }, 'run-1');
    expect(first?.plan.planId).toBe(plan.planId);
    expect(store.claim({ codeHash: plan.codeHash }, 'run-2')).toBeUndefined();
    expect(() => store.consume(plan.planId, 'run-3')).toThrow(expect.objectContaining({ code: 'already-consumed' }));
    expect(store.status(plan.planId)).toMatchObject({ status: 'ran', lastRun: { runId: 'run-1', via: 'operator' } });
  });

  it('a plan accepted through elicitation spends earlier operator approvals and cannot be approved again without --again', () => {
    const store = new ApprovalStore(dir);
    const plan = makePlan();
    store.savePlan(plan);
    store.approve(plan.planId);
    store.markConsumed(plan.planId, 'run-elicited', 'elicitation');
    expect(store.find({ codeHash: plan.codeHash })).toBeUndefined();
    expect(() => store.approve(plan.planId)).toThrow(
      expect.objectContaining({ code: 'already-run', message: expect.stringMatching(/already ran \(run run-elicited .*through the MCP client.*--again/) }),
    );
    expect(store.nextStep(plan.planId)).toMatch(/already ran .* --again/);
    const again = store.approve(plan.planId, { again: true });
    expect(store.claim({ codeHash: plan.codeHash }, 'run-2')?.approval.id).toBe(again.id);
  });

  it('approving twice returns the waiting approval instead of adding a second one', () => {
    const store = new ApprovalStore(dir);
    const plan = makePlan();
    store.savePlan(plan);
    const a = store.approve(plan.planId);
    const b = store.approve(plan.planId);
    expect(b.id).toBe(a.id);
    expect(readFileSync(join(dir, 'approvals.jsonl'), 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('lists stored plans with their status and resolves a unique id prefix', () => {
    const store = new ApprovalStore(dir);
    const a = makePlan('one');
    const b = makePlan('two');
    store.savePlan(a);
    store.savePlan(b);
    store.approve(b.planId);
    const listed = store.list();
    expect(listed.map((p) => [p.plan.planId, p.status]).sort()).toEqual(
      [
        [a.planId, 'pending'],
        [b.planId, 'approved'],
      ].sort(),
    );
    expect(store.resolvePlanId(a.planId.slice(0, 12))).toBe(a.planId);
    expect(store.resolvePlanId('0123456789abcdef'.slice(0, 10))).toBeUndefined();
    expect(() => store.resolvePlanId('abc')).toThrow(expect.objectContaining({ code: 'bad-plan-id' }));
    expect(store.nextStep(a.planId)).toBe(
      `Plan ${a.planId} is stored: ask the operator to approve it with \`pve-code-mcp approve ${a.planId} --state-dir ${dir}\`, or in the local web console (it prints a one-time login link): \`pve-code-mcp console --state-dir ${dir}\`, then run the same script again unchanged`,
    );
    expect(store.nextStep(b.planId)).toMatch(/is approved until .*run the same script again unchanged/);
  });

  it('the approve command quotes a state directory the shell would split', () => {
    const store = new ApprovalStore("/tmp/it's a dir");
    expect(store.approveCommandLine('a'.repeat(64))).toBe(`pve-code-mcp approve ${'a'.repeat(64)} --state-dir '/tmp/it'\\''s a dir'`);
    expect(store.approveCommand('a'.repeat(64))).toContain(`\`pve-code-mcp console --state-dir '/tmp/it'\\''s a dir'`);
  });

  it('offers POST /approvals only where the server answers it (OAuth mode), not to the static bearer', () => {
    const id = 'a'.repeat(64);
    expect(new ApprovalStore('/tmp/s', 'bearer').approveCommand(id)).toBe(
      `pve-code-mcp approve ${id} --state-dir /tmp/s\`, or in the local web console (it prints a one-time login link): \`pve-code-mcp console --state-dir /tmp/s`,
    );
    expect(new ApprovalStore('/tmp/s').forPrincipal('bearer').approveCommand(id)).not.toContain('/approvals');
    const oauth = new ApprovalStore('/tmp/s', undefined, undefined, true).forPrincipal('alice');
    expect(oauth.approveCommand(id)).toContain(`POST /approvals/${id}`);
  });

  it('offers the local console (`pve-code-mcp console`) only where this server serves no console of its own', () => {
    const id = 'a'.repeat(64);
    const local = 'pve-code-mcp console --state-dir /tmp/s';
    // stdio: no principal, no console served: the host's command and the local console.
    const stdio = new ApprovalStore('/tmp/s').approveCommand(id);
    expect(`\`${stdio}\``).toBe(`\`pve-code-mcp approve ${id} --state-dir /tmp/s\`, or in the local web console (it prints a one-time login link): \`${local}\``);
    // OAuth without a console: the host's two ways, then POST /approvals.
    const oauth = new ApprovalStore('/tmp/s', undefined, undefined, true).forPrincipal('alice').approveCommand(id);
    expect(oauth).toContain(`or the local web console \`${local}\` on the server host`);
    expect(oauth).toContain(`POST /approvals/${id}`);
    // A server that serves the console offers its page, never a second, local console.
    const page = (planId: string) => `https://mcp.example/console/plans/${planId}`;
    const served = new ApprovalStore('/tmp/s', undefined, undefined, true, page).forPrincipal('alice').approveCommand(id);
    expect(served).toContain(`in the web console: \`${page(id)}`);
    expect(served).not.toContain('pve-code-mcp console');
    // The command line alone (the CLI's own listing and `--again`, `--yes`) offers nothing else.
    expect(new ApprovalStore('/tmp/s').approveCommandLine(id)).toBe(`pve-code-mcp approve ${id} --state-dir /tmp/s`);
  });

  it('saves plans atomically (no temporary file left behind)', () => {
    const store = new ApprovalStore(dir);
    const plan = makePlan();
    store.savePlan(plan);
    store.savePlan(plan);
    expect(readdirSync(join(dir, 'plans'))).toEqual([`${plan.planId}.json`]);
    expect(statSync(join(dir, 'plans', `${plan.planId}.json`)).mode & 0o777).toBe(0o600);
  });
});
