/**
 * Scale presets look like clusters people run: every node carries a mix of roles, and no
 * storage, node CPU or node memory is at 100% (checked at several instants, several seeds).
 */
import { describe, expect, it } from 'vitest';
import { createCluster } from '../../src/simulator/cluster/index.js';

const roleOf = (name: unknown): string => String(name).replace(/-\d+$/, '');

describe.each(['scale-100', 'scale-1000', 'scale-10000'])('preset %s', (preset) => {
  it.each([1, 2, 7])('seed %i: roles spread over nodes, storage and load below 100%%', (seed) => {
    let now = 1_760_000_000_000;
    const cluster = createCluster({ preset, seed, clock: () => now });
    const state = cluster.state;
    const guests = cluster.guests();
    const nodes = [...state.nodes.values()];

    // Roles: each node carries several, and each role lives on several nodes.
    const rolesByNode = new Map<string, Set<string>>();
    const nodesByRole = new Map<string, Set<string>>();
    for (const g of guests) {
      if (g.config.template) continue;
      const role = roleOf(g.config.name ?? g.config.hostname);
      (rolesByNode.get(g.node) ?? rolesByNode.set(g.node, new Set()).get(g.node))?.add(role);
      (nodesByRole.get(role) ?? nodesByRole.set(role, new Set()).get(role))?.add(g.node);
    }
    expect(rolesByNode.size).toBe(nodes.length);
    const fewestRoles = Math.min(...[...rolesByNode.values()].map((r) => r.size));
    expect(fewestRoles).toBeGreaterThanOrEqual(Math.min(10, Math.floor(guests.length / nodes.length / 3)));
    for (const [role, on] of nodesByRole) expect([role, on.size]).toEqual([role, nodes.length]);

    // Storage: below 100% on every node (local storages) and pool (shared ones).
    const used = state.storageUsage();
    let fullest = 0;
    for (const s of state.storages.values()) {
      for (const n of nodes) {
        const u = used.get(state.storageKey(s, n.name)) ?? 0;
        fullest = Math.max(fullest, u / s.total);
        expect(u).toBeLessThan(s.total);
      }
    }

    // Node load over a minute of simulated time.
    let busiestCpu = 0;
    let busiestMem = 0;
    for (let step = 0; step < 6; step++) {
      now += 10_000 + step * 997;
      for (const [name, rt] of state.nodeRuntimes()) {
        const node = state.nodes.get(name);
        if (!node) throw new Error(name);
        expect(rt.cpu).toBeLessThan(1);
        expect(rt.mem).toBeLessThan(node.maxmem);
        busiestCpu = Math.max(busiestCpu, rt.cpu);
        busiestMem = Math.max(busiestMem, rt.mem / node.maxmem);
      }
    }
    // Not idle either: a dense cluster shows real load somewhere.
    expect(busiestMem).toBeGreaterThan(0.2);
    console.log(
      `${preset} seed ${seed}: ${nodes.length} nodes (${[...new Set(nodes.map((n) => `${n.maxcpu} CPUs/${n.maxmem / 1024 ** 3} GiB`))].join(', ')}), ` +
        `fewest roles on a node ${fewestRoles}, fullest storage ${(fullest * 100).toFixed(1)}%, busiest CPU ${(busiestCpu * 100).toFixed(1)}%, memory ${(busiestMem * 100).toFixed(1)}%`,
    );
  });
});

describe('fixed presets keep their layout', () => {
  it('demo still places guest i on node i mod 3', () => {
    const guests = createCluster({ preset: 'demo' })
      .guests()
      .filter((g) => !g.config.template);
    for (const g of guests) expect([g.vmid, g.node]).toEqual([g.vmid, `pve${((g.vmid - 100) % 3) + 1}`]);
  });
});
