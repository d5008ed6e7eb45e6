/**
 * The approvals store with principals: an approval is for the principal who asked, used only by
 * that principal's runs, never spent by another's, never given by the asker; stores without a
 * principal (stdio, CLI) keep the behaviour they had.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApprovalStore } from '../../src/safety/approval.js';
import { ApprovalError } from '../../src/safety/approval-errors.js';
import { hashCode, PlanRecorder, type Plan } from '../../src/safety/plan.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'approvals-principals-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const CODE = "await pve.delete('/nodes/pve1/qemu/102')";

function plan(): Plan {
  const rec = new PlanRecorder();
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
  return rec.finish(CODE, 'operator');
}

const codeOf = (e: unknown): string | undefined => (e instanceof ApprovalError ? e.code : undefined);

describe('approvals bound to principals', () => {
  it('records who asked and who approved; only the asker can claim it', () => {
    const root = new ApprovalStore(dir);
    const alice = root.forPrincipal('alice');
    const bob = root.forPrincipal('bob');
    const p = plan();
    alice.savePlan(p);
    alice.savePlan(p); // asked twice: recorded once
    expect(root.requesters(p.planId)).toEqual(['alice']);
    const record = root.approve(p.planId, { approver: 'carol' });
    expect(record).toMatchObject({ requestedBy: 'alice', approvedBy: 'carol' });
    const query = { codeHash: hashCode(CODE) };
    expect(bob.claim(query, 'run-b')).toBeUndefined();
    expect(root.claim(query, 'run-local')).toBeUndefined();
    expect(alice.claim(query, 'run-a')?.approval.id).toBe(record.id);
    expect(alice.claim(query, 'run-a2')).toBeUndefined();
    const lines = readFileSync(join(dir, 'approvals.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.type)).toEqual(['request', 'approve', 'consume']);
    expect(lines[2]).toMatchObject({ principal: 'alice', runId: 'run-a', approvalId: record.id });
  });

  it("never spends one principal's approval by another's run", () => {
    const root = new ApprovalStore(dir);
    const alice = root.forPrincipal('alice');
    const bob = root.forPrincipal('bob');
    const p = plan();
    alice.savePlan(p);
    bob.savePlan(p);
    root.approve(p.planId, { for: 'alice', approver: 'carol' });
    // Bob's human accepted the same plan through elicitation: his run, not alice's approval.
    bob.markConsumed(p.planId, 'run-b');
    expect(alice.status(p.planId)?.status).toBe('approved');
    expect(bob.status(p.planId)?.status).toBe('ran');
    expect(() => bob.consume(p.planId, 'run-b2')).toThrow(ApprovalError);
    expect(alice.claim({ codeHash: hashCode(CODE) }, 'run-a')).toBeDefined();
  });

  it('refuses self-approval, approvals for someone who did not ask, and an approval that does not say for whom', () => {
    const root = new ApprovalStore(dir);
    const p = plan();
    root.forPrincipal('carol').savePlan(p);
    let err: unknown;
    try {
      root.approve(p.planId, { approver: 'carol' });
    } catch (e) {
      err = e;
    }
    expect(codeOf(err)).toBe('self-approval');
    expect((err as Error).message).toMatch(/another principal with the approve scope/);
    expect(() => root.approve(p.planId, { for: 'mallory', approver: 'dave' })).toThrow(/never asked for plan/);
    root.forPrincipal('erin').savePlan(p);
    expect(() => root.approve(p.planId, { approver: 'dave' })).toThrow(/asked for by 2 principals \(carol, erin\)/);
    expect(root.approve(p.planId, { for: 'erin', approver: 'carol' })).toMatchObject({ requestedBy: 'erin', approvedBy: 'carol' });
  });

  it('leaves stores without principals as they were', () => {
    const root = new ApprovalStore(dir);
    const p = plan();
    root.savePlan(p);
    expect(root.requesters(p.planId)).toEqual([]);
    const record = root.approve(p.planId, { approvedBy: 'ops' });
    expect(record.requestedBy).toBeUndefined();
    expect(root.forPrincipal('alice').claim({ codeHash: hashCode(CODE) }, 'r')).toBeUndefined();
    expect(root.claim({ codeHash: hashCode(CODE) }, 'r')).toBeDefined();
    expect(root.approveCommand(p.planId)).not.toContain('/approvals/');
    expect(new ApprovalStore(dir, undefined, undefined, true).forPrincipal('alice').approveCommand(p.planId)).toContain(`POST /approvals/${p.planId}`);
    // Static-token mode serves no POST /approvals: its hint offers only the host's command.
    expect(root.forPrincipal('bearer').approveCommand(p.planId)).not.toContain('/approvals/');
  });

  it("four eyes: the group the asker's policy names decides who may approve over HTTP; the host operator always may", () => {
    const root = new ApprovalStore(dir, undefined, undefined, true);
    const alice = root.forPrincipal('alice', () => ({ group: 'leads' }));
    const p = plan();
    expect(alice.needsOtherApprover(p)).toBe(true);
    alice.savePlan(p);
    expect(root.approversFor(p.planId, 'alice')).toEqual({ group: 'leads' });
    expect(alice.approveCommand(p.planId)).toContain("a member of group 'leads'");
    let err: unknown;
    try {
      root.approve(p.planId, { approver: 'bob', approverGroups: ['ops'] });
    } catch (e) {
      err = e;
    }
    expect(codeOf(err)).toBe('not-an-approver');
    expect(root.approve(p.planId, { approver: 'carol', approverGroups: ['leads'] })).toMatchObject({ approvedBy: 'carol', requestedBy: 'alice', via: 'http' });
    expect(root.forPrincipal('alice').needsOtherApprover(p)).toBe(false);
  });

  it('refuses the host operator approving a plan asked for under the same name', () => {
    const root = new ApprovalStore(dir);
    const p = plan();
    root.forPrincipal('dave').savePlan(p);
    let err: unknown;
    try {
      root.approve(p.planId, { approvedBy: 'dave' });
    } catch (e) {
      err = e;
    }
    expect(codeOf(err)).toBe('self-approval');
    expect(root.approve(p.planId, { approvedBy: 'root' })).toMatchObject({ approvedBy: 'root', requestedBy: 'dave', via: 'cli' });
  });
});
