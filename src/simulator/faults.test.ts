import { describe, expect, it } from 'vitest';
import { FaultController, globToRegExp } from './faults.js';

const targets = () => {
  const online = new Map<string, boolean>();
  return { online, setNodeOnline: (n: string, o: boolean) => void online.set(n, o), expireTickets: async () => {} };
};

describe('FaultController', () => {
  it('matches globs per segment (*) and across segments (**)', () => {
    expect(globToRegExp('/nodes/*/qemu').test('/nodes/pve1/qemu')).toBe(true);
    expect(globToRegExp('/nodes/*/qemu').test('/nodes/pve1/qemu/100')).toBe(false);
    expect(globToRegExp('/nodes/**').test('/nodes/pve1/qemu/100/status/start')).toBe(true);
  });

  it('rolls the same dice for the same seed', () => {
    const roll = (seed: number) => {
      const f = new FaultController(seed, targets(), { rules: [{ path: '/**', errorRate: 0.5, latencyMs: [0, 100] }] });
      return Array.from({ length: 20 }, () => f.decide('GET', '/version', undefined));
    };
    expect(roll(3)).toEqual(roll(3));
    expect(roll(3)).not.toEqual(roll(4));
    expect(roll(3).some((d) => d.error) && roll(3).some((d) => !d.error)).toBe(true);
  });

  it('applies start-time offline nodes and validates its spec', () => {
    const t = targets();
    const f = new FaultController(1, t, { offlineNodes: { pve2: 'timeout' } });
    expect(t.online.get('pve2')).toBe(false);
    expect(f.offlineMode('pve2')).toBe('timeout');
    f.clear();
    expect(t.online.get('pve2')).toBe(true);
    expect(() => new FaultController(1, t, { rules: [{ path: '/x', errorRate: 2 }] })).toThrow();
  });
});
