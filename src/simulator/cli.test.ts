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

  it('rejects bad values with a usage error', async () => {
    expect(() => parseSimulatorArgs(['--port', '70000'])).toThrow(CliUsageError);
    expect(() => parseSimulatorArgs(['--bogus'])).toThrow(CliUsageError);
    const lines: string[] = [];
    expect(await runSimulatorCli(['--seed', 'x'], { out: (l) => lines.push(l), err: (l) => lines.push(l) })).toBe(2);
    expect(lines.join('\n')).toContain('--seed must be an integer');
  });
});
