import { describe, expect, it } from 'vitest';
import { CliUsageError, parseSimulatorArgs, runSimulatorCli } from './cli.js';

describe('simulator CLI arguments', () => {
  it('parses the documented options', () => {
    expect(parseSimulatorArgs(['simulator', '--preset', 'demo', '--port', '0', '--seed', '5', '--auth-delay-ms', '0'])).toEqual({
      port: 0,
      preset: 'demo',
      seed: 5,
      authFailureDelayMs: 0,
    });
    expect(parseSimulatorArgs([])).toEqual({ port: 8006 });
    expect(parseSimulatorArgs(['--help'])).toBe('help');
  });

  it('takes scenarios repeated or comma-separated, and a scenario file', () => {
    const opts = parseSimulatorArgs(['--scenario', 'offline-node:pve2,locked:101:backup', '--scenario', 'slow:100-300', '--scenario-file', 's.json']);
    expect(opts).toMatchObject({
      scenarios: [
        { kind: 'offline-node', node: 'pve2' },
        { kind: 'locked', vmid: 101, lock: 'backup' },
        { kind: 'slow', ms: [100, 300] },
      ],
      scenarioFile: 's.json',
    });
    expect(parseSimulatorArgs(['--scenario', 'no-quorum', '--scenario', 'flaky:0.1', '--scenario', 'failing-task:qmstart:101', '--scenario', 'full-storage:local-lvm'])).toMatchObject({
      scenarios: [{ kind: 'no-quorum' }, { kind: 'flaky', rate: 0.1 }, { kind: 'failing-task', type: 'qmstart', vmid: 101 }, { kind: 'full-storage', storage: 'local-lvm' }],
    });
    expect(() => parseSimulatorArgs(['--scenario', 'flaky:lots'])).toThrow(/the error rate \(0..1\) must be a number/);
    expect(() => parseSimulatorArgs(['--scenario', 'meteor'])).toThrow(/unknown scenario 'meteor'[\s\S]*offline-node:NODE/);
  });

  it('rejects bad values with a usage error', async () => {
    expect(() => parseSimulatorArgs(['--port', '70000'])).toThrow(CliUsageError);
    expect(() => parseSimulatorArgs(['--bogus'])).toThrow(CliUsageError);
    const lines: string[] = [];
    expect(await runSimulatorCli(['--seed', 'x'], { out: (l) => lines.push(l), err: (l) => lines.push(l) })).toBe(2);
    expect(lines.join('\n')).toContain('--seed must be an integer');
  });
});
