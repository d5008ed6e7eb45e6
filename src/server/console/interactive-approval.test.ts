/**
 * The one difference between a console approval and `POST /approvals`: a person signed in
 * interactively may approve the plan its own agent asked for, unless its policy wants four eyes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApprovalStore } from '../../safety/approval.js';
import { PlanRecorder, type Plan } from '../../safety/plan.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'console-approvals-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function plan(code: string): Plan {
  const rec = new PlanRecorder();
  rec.record({
    cluster: 'sim',
    method: 'POST',
    path: '/nodes/pve1/qemu/100/status/stop',
    template: '/nodes/{node}/qemu/{vmid}/status/stop',
    params: {},
    fullParams: {},
    risk: 'destructive',
    needsApproval: true,
    targets: [{ vmid: 100, exists: true }],
    returnsTask: true,
    node: 'pve1',
  });
  return rec.finish(code, 'ops');
}

describe('approving from the console', () => {
  it("lets the signed-in asker approve its own plan without four eyes; a bearer's approval of it stays refused", () => {
    const store = new ApprovalStore(dir);
    const p = plan('a');
    store.forPrincipal('alice').savePlan(p);
    expect(() => store.approve(p.planId, { approver: 'alice' })).toThrow(expect.objectContaining({ code: 'self-approval' }));
    const record = store.approve(p.planId, { approver: 'alice', interactive: true, via: 'console' });
    expect(record).toMatchObject({ approvedBy: 'alice', requestedBy: 'alice', via: 'console' });
  });

  it('refuses the signed-in asker under four eyes, and an approver outside the group', () => {
    const store = new ApprovalStore(dir);
    const p = plan('b');
    store.forPrincipal('bob', () => ({ group: 'leads' })).savePlan(p);
    expect(() => store.approve(p.planId, { approver: 'bob', approverGroups: ['leads'], interactive: true })).toThrow(expect.objectContaining({ code: 'self-approval' }));
    expect(() => store.approve(p.planId, { approver: 'dave', approverGroups: ['ops'], interactive: true })).toThrow(expect.objectContaining({ code: 'not-an-approver' }));
    expect(store.approve(p.planId, { approver: 'carol', approverGroups: ['leads'], interactive: true })).toMatchObject({ approvedBy: 'carol', requestedBy: 'bob' });
  });
});
