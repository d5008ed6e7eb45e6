/**
 * `pve-code-mcp approve <id>` on a terminal: it shows the plan's changes and asks y/N before it
 * approves; "n" (or anything but y/yes) leaves the plan waiting. The terminal is a real pty
 * (util-linux `script`), so the command takes the same path as an operator's shell. Needs the
 * built CLI.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApprovalStore } from '../../src/safety/approval.js';
import { PlanRecorder } from '../../src/safety/plan.js';
import { BIN } from './helpers/harness.js';

function storedPlan(dir: string): string {
  const rec = new PlanRecorder();
  rec.record({
    cluster: 'c',
    method: 'POST',
    path: '/nodes/pve1/qemu/101/status/stop',
    template: '/nodes/{node}/qemu/{vmid}/status/stop',
    params: {},
    fullParams: {},
    risk: 'destructive',
    needsApproval: true,
    targets: [{ vmid: 101, exists: true, name: 'web' }],
    returnsTask: true,
    change: { summary: 'web (VM 101 on pve1): running → stopped (stop: power off at once)', lines: ['state: running → stopped'] },
  });
  const plan = rec.finish('code', 'ops');
  new ApprovalStore(dir).savePlan(plan);
  return plan.planId;
}

/** The command on a pty, `answer` typed at its prompt; its output and exit code. */
function onTerminal(args: string[], answer: string): { out: string; code: number } {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  try {
    return { out: execFileSync('script', ['-qec', command, '/dev/null'], { input: `${answer}\n`, encoding: 'utf8', timeout: 30_000 }), code: 0 };
  } catch (err) {
    const e = err as { stdout?: string; status?: number };
    return { out: e.stdout ?? '', code: e.status ?? -1 };
  }
}

describe('approve asks on a terminal', () => {
  it('shows the change, and approves only on y', () => {
    const dir = mkdtempSync(join(tmpdir(), 'approve-tty-'));
    const planId = storedPlan(dir);
    const no = onTerminal(['approve', planId, '--state-dir', dir], 'n');
    expect(no.code).toBe(1);
    expect(no.out).toContain('1. web (VM 101 on pve1): running → stopped (stop: power off at once)');
    expect(no.out).toMatch(/Approve plan [0-9a-f]{12} \(1 write, as shown above\)\? \[y\/N\]/);
    expect(no.out).toContain('stays waiting');
    expect(new ApprovalStore(dir).status(planId)?.status).toBe('pending');
    const yes = onTerminal(['approve', planId, '--state-dir', dir], 'y');
    expect(yes.code, yes.out).toBe(0);
    expect(yes.out).toContain(`approved plan ${planId}`);
    expect(new ApprovalStore(dir).status(planId)?.status).toBe('approved');
  }, 60_000);
});
