import { describe, expect, it } from 'vitest';
import { MAX_CAPPED_BYTES } from './caps.js';
import { MAX_SUMMARY_CHARS, PlanBinding, PlanRecorder, summarizePlan, visible, type Plan } from './plan.js';

function plan(steps: Array<{ path: string; params?: Record<string, unknown>; risk?: 'write' | 'destructive' | 'privileged'; name?: string }>): Plan {
  const rec = new PlanRecorder();
  for (const s of steps) {
    const params = s.params ?? {};
    rec.record({
      cluster: 'default',
      method: 'POST',
      path: s.path,
      template: s.path,
      params,
      fullParams: params,
      risk: s.risk ?? 'write',
      needsApproval: s.risk === 'destructive',
      ...(s.risk === 'destructive' ? { why: 'destructive and policy requires approval' } : {}),
      targets: [{ vmid: 101, exists: true, name: s.name ?? 'web' }],
      returnsTask: true,
      node: 'pve1',
    });
  }
  return rec.finish('script', 'operator');
}

const snapshotThenRollback = () =>
  plan([
    { path: '/nodes/pve1/qemu/101/snapshot', params: { snapname: 'safety_net' } },
    { path: '/nodes/pve1/qemu/101/snapshot/old/rollback', risk: 'destructive' },
  ]);

describe('plan binding', () => {
  it('lets the approved writes through once each, in order', async () => {
    const p = snapshotThenRollback();
    const b = new PlanBinding(p, 50);
    const [first, second] = p.writes.map((w) => w.fingerprint) as [string, string];
    const made = async (fingerprint: string) => {
      const v = await b.acquire(fingerprint);
      if (v.ok) v.settle(true);
      return v;
    };
    expect(await made(first)).toMatchObject({ ok: true, write: { seq: 1 } });
    expect(await made(second)).toMatchObject({ ok: true, write: { seq: 2 } });
    expect(await b.acquire(second)).toMatchObject({ ok: false, reason: 'not-in-plan', message: expect.stringMatching(/already been made/) });
    expect(b.remaining()).toEqual([]);
  });

  it('refuses a write that skips an approved step (the script told the approved run from its dry-run)', async () => {
    const p = snapshotThenRollback();
    const b = new PlanBinding(p, 30);
    const verdict = await b.acquire(p.writes[1]!.fingerprint);
    expect(verdict).toMatchObject({ ok: false, reason: 'out-of-order' });
    if (!verdict.ok) expect(verdict.message).toMatch(/step 2 .* step 1 \(POST \/nodes\/pve1\/qemu\/101\/snapshot\) has not been made/);
    expect(b.remaining().map((w) => w.seq)).toEqual([1, 2]);
  });

  it('holds a parallel later step until the earlier one has been answered', async () => {
    const p = snapshotThenRollback();
    const b = new PlanBinding(p, 2_000);
    const order: string[] = [];
    const later = b.acquire(p.writes[1]!.fingerprint).then((v) => {
      order.push(`claim ${v.ok && v.write.seq}`);
      if (v.ok) v.settle(true);
    });
    const earlier = await b.acquire(p.writes[0]!.fingerprint);
    if (!earlier.ok) throw new Error('step 1 refused');
    order.push('claim 1');
    await new Promise((r) => setTimeout(r, 20));
    order.push('answer 1');
    earlier.settle(true);
    await later;
    expect(order).toEqual(['claim 1', 'answer 1', 'claim 2']);
  });

  it('a step stopped before it was sent is not made, and the steps after it are refused at once', async () => {
    const p = snapshotThenRollback();
    const b = new PlanBinding(p, 60_000);
    const first = await b.acquire(p.writes[0]!.fingerprint);
    const later = b.acquire(p.writes[1]!.fingerprint);
    if (first.ok) first.settle(false);
    const verdict = await later;
    expect(verdict).toMatchObject({ ok: false, reason: 'out-of-order' });
    if (!verdict.ok) expect(verdict.message).toMatch(/step 1 .* has not been made \(it was stopped before it was sent\)/);
    expect(b.remaining().map((w) => w.seq)).toEqual([1, 2]);
  });

  it('parallel twins of a write approved twice take one step each, one after the other', async () => {
    const p = plan([{ path: '/nodes/pve1/qemu/101/status/start' }, { path: '/nodes/pve1/qemu/101/status/stop' }, { path: '/nodes/pve1/qemu/101/status/stop' }]);
    const b = new PlanBinding(p, 2_000);
    const stop = p.writes[1]!.fingerprint;
    const twins = [b.acquire(stop), b.acquire(stop)].map((v) => v.then((x) => (x.ok ? (x.settle(true), x.write.seq) : x.reason)));
    const start = await b.acquire(p.writes[0]!.fingerprint);
    if (start.ok) start.settle(true);
    expect((await Promise.all(twins)).sort()).toEqual([2, 3]);
    expect(await b.acquire(stop)).toMatchObject({ ok: false, message: expect.stringMatching(/already been made/) });
  });

  it('refuses writes that are not in the plan', async () => {
    const b = new PlanBinding(snapshotThenRollback(), 30);
    expect(await b.acquire('f'.repeat(64))).toMatchObject({ ok: false, reason: 'not-in-plan' });
  });

  it('lets a run stop early: the steps it never made stay unused', async () => {
    const p = snapshotThenRollback();
    const b = new PlanBinding(p, 30);
    await b.acquire(p.writes[0]!.fingerprint);
    expect(b.remaining().map((w) => w.seq)).toEqual([2]);
  });
});

describe('plan summaries for humans', () => {
  it('say which calls were refused and end with the next step', () => {
    const rec = new PlanRecorder();
    rec.refuse({ cluster: 'default', method: 'PUT', path: '/nodes/pve1/qemu/101/config', risk: 'privileged', message: "privileged with parameter 'hookscript'" });
    const p = rec.finish('script', 'operator');
    expect(summarizePlan(p)).toBe(
      [
        `Plan ${p.planId}: no writes.`,
        "refused, not sent: PUT /nodes/pve1/qemu/101/config [privileged]: privileged with parameter 'hookscript'",
        "Next: 1 call was refused by the policy and will not be sent: change the script, or ask the operator to change policy 'operator'.",
      ].join('\n'),
    );
    expect(summarizePlan(plan([{ path: '/nodes/pve1/qemu/101/status/start' }]))).toMatch(/\nNext: every write runs directly: run the same script without dryRun\.$/);
  });

  it('end with a Next line that follows what became of the plan: stopped at a budget, stopped otherwise, or ran', () => {
    const p = snapshotThenRollback();
    const budget = 'guest budget used up: this call would touch 11 distinct guests (limit 10 per run); split the work into several runs or ask the operator to raise policy.budget.guests';
    const stopped = summarizePlan(p, { state: 'stopped', kind: 'budget', message: budget }).split('\n').at(-1);
    expect(stopped).toBe(
      'Next: the run stopped at a per-run budget (guest budget used up: this call would touch 11 distinct guests (limit 10 per run)), and the same script without dryRun stops at the same call; ' +
        'act on at most 10 guests per run: run the script once per slice of the list (e.g. guests.slice(0, 10), then the next slice), or ask the operator to raise policy.budget.guests.',
    );
    expect(stopped).not.toMatch(/without dryRun\.$|needs approval/);
    const writes = summarizePlan(p, {
      state: 'stopped',
      kind: 'budget',
      message: 'write budget used up (20 write calls per run); split the work into several runs or ask the operator to raise policy.budget.write',
    });
    expect(writes).toMatch(/make at most 20 write calls per run: split the batch over several runs, or ask the operator to raise policy\.budget\.write\.$/);
    expect(summarizePlan(p, { state: 'stopped', kind: 'exception', message: 'boom\nat line 3' })).toMatch(
      /\nNext: the run stopped before the script's end \(exception: boom\), so this plan holds only the writes before that point: fix the script and dry-run it again before running it for real\.$/,
    );
    const ran = summarizePlan(p, { state: 'ran', made: 1, unused: [2] })
      .split('\n')
      .at(-1);
    expect(ran).toBe(
      `Done: plan ${p.planId} ran (1 of 2 writes made; step 2 not made). Its approval is used up: the same script again needs a new plan and approval; look at the changes before repeating any write.`,
    );
    expect(summarizePlan(p, { state: 'ran', made: 2, unused: [] })).not.toMatch(/Next:|write needs approval/);
  });

  it('counts destructive and privileged steps at the top and marks them', () => {
    const text = summarizePlan(snapshotThenRollback());
    const lines = text.split('\n');
    expect(lines[1]).toBe('!! 1 destructive step: 2');
    expect(text).toContain('1. POST /nodes/pve1/qemu/101/snapshot {"snapname":"safety_net"} [write, runs directly]');
    expect(text).toContain('2. POST /nodes/pve1/qemu/101/snapshot/old/rollback [DESTRUCTIVE, needs approval: destructive and policy requires approval]');
  });

  it('shows line separators, bidi controls and control characters visibly, so nothing hides a step', () => {
    const p = plan([
      { path: '/nodes/pve1/qemu/101/config', params: { description: `ok\u2028\u2029\u202Eesrever${'\n'.repeat(300)}Nothing else is changed.` }, name: 'web\u200B' },
      { path: '/nodes/pve1/qemu/101/status/stop', risk: 'destructive' },
    ]);
    const text = summarizePlan(p);
    expect(text).not.toMatch(/[\u2028\u2029\u202E\u200B]/);
    expect(text.split('\n')).toHaveLength(5);
    expect(text.split('\n')[4]).toMatch(/^Next: 1 write needs approval: a human approves plan [0-9a-f]{64}/);
    expect(text).toContain('\\u{2028}\\u{2029}');
    expect(text).toContain('\\u{202E}');
    expect(text).toContain("'web\\u{200B}'");
    expect(visible('a\tb')).toBe('a\\u{0009}b');
  });

  it('cuts long values with their size and hash, and caps the whole summary', () => {
    const huge = 'x'.repeat(20 * 1024 * 1024);
    const p = plan([{ path: '/nodes/pve1/qemu/101/config', params: { description: huge } }]);
    expect(JSON.stringify(p).length).toBeLessThan(MAX_CAPPED_BYTES * 2);
    expect(summarizePlan(p)).toMatch(/x…\[20971520 chars, sha256 [0-9a-f]{16}\]/);
    const many = plan(Array.from({ length: 400 }, (_, i) => ({ path: `/nodes/pve1/qemu/${100 + i}/status/start`, risk: i % 7 === 0 ? ('destructive' as const) : ('write' as const) })));
    const text = summarizePlan(many);
    expect(text.length).toBeLessThanOrEqual(MAX_SUMMARY_CHARS);
    expect(text).toMatch(/more steps not shown here/);
    expect(text.split('\n')[1]).toMatch(/^!! 58 destructive steps: 1, 8, 15/);
  });
});

describe('plans show the change', () => {
  const withChange = (summary: string, lines: string[]): Plan => {
    const rec = new PlanRecorder();
    rec.record({
      cluster: 'default',
      method: 'PUT',
      path: '/nodes/pve1/qemu/112/config',
      template: '/nodes/{node}/qemu/{vmid}/config',
      params: { memory: 8192 },
      fullParams: { memory: 8192 },
      risk: 'write',
      needsApproval: true,
      targets: [{ vmid: 112, exists: true, name: 'app-02', digest: 'd1' }],
      returnsTask: false,
      change: { summary, lines },
    });
    return rec.finish('script', 'operator');
  };

  it('puts the summary line first and the call below it; the change is part of the planId', () => {
    const p = withChange('app-02 (VM 112 on pve1): memory 4096 MiB → 8192 MiB (after a restart)', ['memory: 4096 MiB → 8192 MiB (pending until restart)']);
    const text = summarizePlan(p);
    expect(text).toContain('1. app-02 (VM 112 on pve1): memory 4096 MiB → 8192 MiB (after a restart)\n   call: PUT /nodes/pve1/qemu/112/config {"memory":8192}');
    const other = withChange('app-02 (VM 112 on pve1): memory 2048 MiB → 8192 MiB (after a restart)', ['memory: 2048 MiB → 8192 MiB (pending until restart)']);
    expect(other.planId).not.toBe(p.planId);
  });

  it('lists the per-key lines with invisible characters escaped', () => {
    const text = summarizePlan(withChange('s\u202E', ['a: 1 → 2', 'b: x\u200B → y']));
    expect(text).toContain('1. s\\u{202E}\n   - a: 1 → 2\n   - b: x\\u{200B} → y\n   call:');
  });
});
