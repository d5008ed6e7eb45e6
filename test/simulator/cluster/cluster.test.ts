import { describe, expect, it } from 'vitest';
import { createCluster, UnknownPresetError } from '../../../src/simulator/cluster/index.js';
import { fakeClock } from '../direct.js';

const snapshotOf = (seed: number) => {
  const c = createCluster({ preset: 'demo', seed, clock: fakeClock() });
  return JSON.stringify({
    guests: c.guests().map((g) => ({ ...g, pendingDelete: [...g.pendingDelete] })),
    nodes: [...c.state.nodes.values()],
    volumes: c.state.volumes,
    jobs: [...c.state.backupJobs.values()],
    tasks: c.tasks().map((t) => t.upid),
  });
};

describe('createCluster presets', () => {
  it('is deterministic: same seed and clock, same cluster; another seed, another cluster', () => {
    expect(snapshotOf(42)).toBe(snapshotOf(42));
    expect(snapshotOf(42)).not.toBe(snapshotOf(43));
  });

  it('demo: 3 nodes, ~30 guests of both kinds, running and stopped, a template, pools, tags, backups, HA', () => {
    const c = createCluster({ preset: 'demo', clock: fakeClock() });
    expect(c.clusterName).toBe('demo');
    expect(c.nodeNames).toEqual(['pve1', 'pve2', 'pve3']);
    const guests = c.guests();
    expect(guests.length).toBe(30);
    expect(new Set(guests.map((g) => g.type))).toEqual(new Set(['qemu', 'lxc']));
    expect(new Set(guests.map((g) => g.status))).toEqual(new Set(['running', 'stopped']));
    expect(guests.filter((g) => g.config.template === 1)).toHaveLength(1);
    expect(guests.some((g) => g.snapshots.length > 0)).toBe(true);
    expect(guests.map((g) => String(g.config.name ?? g.config.hostname))).toContain('web-01');
    expect(guests.every((g) => g.config.tags !== undefined)).toBe(true);
    expect([...c.state.pools.keys()].sort()).toEqual(['development', 'infra', 'production']);
    expect(c.storages().map((s) => s.storage)).toEqual(['local', 'local-lvm', 'nas', 'ceph']);
    const contents = new Set(c.state.volumes.map((v) => v.content));
    expect(contents).toEqual(new Set(['iso', 'vztmpl', 'backup']));
    expect(c.state.backupJobs.size).toBeGreaterThan(0);
    expect(c.state.haResources.size).toBeGreaterThan(0);
    expect(c.tasks().length).toBeGreaterThan(0);
  });

  it('qemu memory is stored as a string and container memory as a number (Perl typing)', () => {
    const guests = createCluster({ preset: 'demo', clock: fakeClock() }).guests();
    const vm = guests.find((g) => g.type === 'qemu');
    const ct = guests.find((g) => g.type === 'lxc');
    expect(typeof vm?.config.memory).toBe('string');
    expect(typeof vm?.config.cores).toBe('number');
    expect(typeof ct?.config.memory).toBe('number');
  });

  it('small is a stand-alone node; scale presets spread guests over up to 50 nodes', () => {
    const small = createCluster({ preset: 'small', clock: fakeClock() });
    expect(small.clusterName).toBeUndefined();
    expect(small.nodeNames).toEqual(['pve']);
    const big = createCluster({ preset: 'scale-10000', clock: fakeClock() });
    expect(big.guests()).toHaveLength(10_000);
    expect(big.nodeNames).toHaveLength(50);
    expect(createCluster({ preset: 'scale-500', clock: fakeClock() }).guests()).toHaveLength(500);
  });

  it('rejects unknown presets and bad durations with a clear message', () => {
    expect(() => createCluster({ preset: 'huge' })).toThrow(UnknownPresetError);
    expect(() => createCluster({ preset: 'huge' })).toThrow(/demo, small, scale-2000, scale-10000 or scale-<N>/);
    expect(() => createCluster({ preset: 'scale-0' })).toThrow(UnknownPresetError);
    expect(() => createCluster({ preset: 'demo', taskDurationMs: -1 })).toThrow(/non-negative/);
  });

  it('node availability: online by default, switchable, unknown names are a hostname lookup error', () => {
    const c = createCluster({ preset: 'demo', clock: fakeClock() });
    expect(c.isNodeOnline('pve2')).toBe(true);
    c.setNodeOnline('pve2', false);
    expect(c.isNodeOnline('pve2')).toBe(false);
    expect(c.hasNode('nope')).toBe(false);
    expect(() => c.isNodeOnline('nope')).toThrow(/hostname lookup 'nope' failed/);
  });

  it('poolsFor maps guest and storage ACL paths to their pools', () => {
    const c = createCluster({ preset: 'demo', clock: fakeClock() });
    const g = c.guests().find((x) => x.pool === 'production');
    expect(c.poolsFor(`/vms/${g?.vmid}`)).toEqual(['production']);
    expect(c.poolsFor('/storage/ceph')).toEqual(['production']);
    expect(c.poolsFor('/nodes/pve1')).toEqual([]);
  });
});
