/**
 * Scenarios on the command line: `simulator --scenario …` and `demo --scenario …` refuse what does
 * not parse or does not fit the cluster, with the syntax or the fix in the message.
 */
import { describe, expect, it } from 'vitest';
import { UsageError, type CliIo } from '../../src/cli/args.js';
import { demoCommand } from '../../src/cli/commands/demo.js';
import { runSimulatorCli } from '../../src/simulator/cli.js';

function capture(): CliIo & { lines: string[] } {
  const lines: string[] = [];
  return { lines, out: (t) => void lines.push(t), err: (t) => void lines.push(t), isTty: false };
}

describe('scenarios on the command line', () => {
  it('demo: documents --scenario and refuses a bad one before anything starts', async () => {
    const io = capture();
    expect(await demoCommand.run(['--help'], io)).toBe(0);
    expect(io.lines.join('\n')).toMatch(/--scenario LIST[\s\S]*offline-node:NODE\[:timeout\][\s\S]*--scenario-file F/);
    await expect(demoCommand.run(['--scenario', 'meteor:pve2'], capture())).rejects.toThrow(UsageError);
    await expect(demoCommand.run(['--scenario', 'flaky:often'], capture())).rejects.toThrow(/the error rate \(0..1\) must be a number/);
  });

  it('simulator: a scenario that does not fit the preset stops the start with the fix', async () => {
    const io = capture();
    expect(await runSimulatorCli(['--port', '0', '--auth-delay-ms', '0', '--scenario', 'offline-node:pve9'], io)).toBe(1);
    expect(io.lines.join('\n')).toContain("Cannot start the simulator: Scenario 'node pve9 offline (refused)': no node 'pve9' in preset demo; its nodes are pve1, pve2, pve3.");
    const usage = capture();
    expect(await runSimulatorCli(['--scenario', 'locked:abc:backup'], usage)).toBe(2);
    expect(usage.lines.join('\n')).toContain('the VMID must be a number');
  });
});
