import { describe, expect, it } from 'vitest';
import type { BlastRadius } from '../../safety/blast-radius.js';
import type { Plan, PlannedWrite } from '../../safety/plan.js';
import type { DescribeResult } from '../../describe/index.js';
import type { RunScriptOutput } from '../tools/run-script.js';
import { operationView, plansView, planView } from './views.js';

const HOSTILE = '<img src=x onerror=alert(1)>';

function write(seq: number, blastRadius?: BlastRadius): PlannedWrite {
  return {
    seq,
    cluster: 'sim',
    method: 'DELETE',
    path: '/storage/scratch',
    template: '/storage/{storage}',
    params: {},
    risk: 'privileged',
    needsApproval: true,
    targets: [],
    fingerprint: 'f',
    change: { summary: "storage 'scratch' is removed", lines: [] },
    ...(blastRadius ? { blastRadius } : {}),
  } as PlannedWrite;
}

function render(writes: PlannedWrite[], notes?: string[]): string {
  const plan: Plan = { version: 1, planId: 'a'.repeat(64), codeHash: 'c', policy: 'ops', createdAt: '2026-12-03T08:00:00Z', writes, ...(notes ? { notes } : {}) };
  return planView({ status: { plan, status: 'pending', requestedBy: [] }, waiting: false, csrf: 't', canDecide: true }).html;
}

describe('the console plan page', () => {
  it('shows a blast radius summary first, its severe items marked, and the reads behind it', () => {
    const out = render([
      write(1, {
        family: 'storage-remove',
        summary: '1 guest loses a disk; 1 of them will not boot',
        complete: true,
        failed: [],
        reads: ['GET /storage/scratch'],
        items: [
          { kind: 'guest', what: "VM 118 'dev-02' on pve1", effect: 'loses disk scsi0 — its boot disk: it will not boot', vmid: 118, severe: true },
          { kind: 'backup', what: HOSTILE, effect: 'deleted' },
        ],
      }),
    ]);
    const radius = out.slice(out.indexOf('class="blast"'));
    expect(radius.indexOf('1 guest loses a disk')).toBeLessThan(radius.indexOf('VM 118'));
    expect(out).toMatch(/<li class="severe" data-kind="guest"><span class="sev">severe<\/span> <b>VM 118 &#39;dev-02&#39; on pve1<\/b>/);
    expect(out).toContain('1 severe effect (marked below)');
    expect(out).toContain('<code>GET /storage/scratch</code>');
    expect(out).not.toContain(HOSTILE);
    expect(out).not.toContain('worst case');
  });

  it('marks a severe or unreadable radius in the list of plans', () => {
    const severe: BlastRadius = {
      family: 'storage-remove',
      summary: '1 guest loses a disk',
      complete: true,
      reads: [],
      failed: [],
      items: [{ kind: 'guest', what: 'VM 118', effect: 'will not boot', severe: true }],
    };
    const unread: BlastRadius = { family: 'ha-change', summary: 'vm:101', complete: false, reads: [], failed: ['GET /cluster/ha/resources: 500'], items: [] };
    const plan = (writes: PlannedWrite[]): Plan => ({ version: 1, planId: 'b'.repeat(64), codeHash: 'c', policy: 'ops', createdAt: 'now', writes });
    const out = plansView([{ status: { plan: plan([write(1, severe), write(2, unread), write(3)]), status: 'pending', requestedBy: [] }, waiting: false }]).html;
    expect(out).toContain('<div class="bad">blast radius: 1 guest loses a disk (severe)</div>');
    expect(out).toContain('<div class="bad">blast radius: vm:101 (could not be read: counts as the worst case)</div>');
    expect(out.match(/blast radius:/g)?.length).toBe(2);
  });

  it('shows an incomplete radius as counting as the worst case, with the reads that failed', () => {
    const out = render([write(2, { family: 'ha-change', summary: 'vm:101 INCOMPLETE', complete: false, reads: [], items: [], failed: [`GET /cluster/ha/resources/vm%3A101: 500 ${HOSTILE}`] })]);
    expect(out).toContain('class="blast partial"');
    expect(out).toContain('Could not be read: counts as the worst case.');
    expect(out).toContain('GET /cluster/ha/resources/vm%3A101: 500 &#60;img');
    expect(out).toContain('step 2: could not be read, counts as the worst case');
    expect(out).not.toContain(HOSTILE);
  });

  it('lists what cannot be undone before the decision buttons, escaped', () => {
    const out = render([write(1)], [`not undone: DELETE /storage/scratch: ${HOSTILE}`, 'a safety snapshot is taken first']);
    expect(out).toContain('<li class="not-undone"><b>Not undone:</b> DELETE /storage/scratch: &#60;img');
    expect(out).toContain('<li>a safety snapshot is taken first</li>');
    expect(out.indexOf('Before you approve')).toBeLessThan(out.indexOf('class="approve"'));
    expect(out).not.toContain(HOSTILE);
    expect(out).not.toContain('Blast radius');
  });

  it("shows the blast radius of a write the explorer's dry-run planned", () => {
    const radius: BlastRadius = {
      family: 'storage-remove',
      summary: '1 guest loses a disk',
      complete: true,
      reads: [],
      failed: [],
      items: [{ kind: 'guest', what: 'VM 118', effect: 'will not boot', severe: true }],
    };
    const tried = { ok: true, result: null, logs: [], stats: { mode: 'dry-run', calls: {}, budget: {} }, plan: { planId: 'c'.repeat(64), writes: [write(1, radius)] } } as unknown as RunScriptOutput;
    const described = {
      operations: [{ method: 'DELETE', path: '/storage/{storage}', risk: 'privileged', permission: 'Datastore.Allocate', signature: 'x' }],
      notFound: [],
    } as unknown as DescribeResult;
    const out = operationView({ spec: 'DELETE /storage/{storage}', described, code: '', csrf: 't', tried }).html;
    expect(out).toContain('<span class="blast-summary">1 guest loses a disk</span>');
    expect(out).toContain('<span class="sev">severe</span>');
  });
});
