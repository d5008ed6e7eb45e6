/**
 * The situation the operator tasks look at, seeded into a fresh simulated cluster so every task
 * has a non-trivial, checkable answer: some web VMs drifted from their baseline, one node's local
 * storage nearly full, some production guests without any backup, and one snapshot that will
 * fail. Everything is chosen by position in VMID order, so two simulators started with the same
 * preset and clock get exactly the same scenario (the two arms each get their own simulator).
 */
import { guestIpv4 } from '../../src/simulator/cluster/guest-net.js';
import type { Guest } from '../../src/simulator/cluster/types.js';
import type { RunningSimulator } from '../../src/simulator/index.js';

export interface ScenarioFacts {
  preset: string;
  /** The guest the find-by-IP task looks for, and its address. */
  targetVmid: number;
  targetIp: string;
  /** Web VMs whose configuration was changed, with the keys that now differ from the baseline. */
  drift: Array<{ vmid: number; keys: string[] }>;
  /** The node whose `local` storage was filled to 87%. */
  fullStorageNode: string;
  /** Production guests whose backup archives were all removed. */
  unbackedProduction: number[];
  /** The VM whose snapshot task will fail. */
  failingSnapshotVmid: number;
  evacuateNode: string;
}

export const SNAPSHOT_POOL = 'production';
export const SNAPSHOT_NAME = 'pre-patch';
export const STOP_TAG = 'dev';
export const BACKUP_STORAGE = 'nas';
export const SNAPSHOT_FAILURE = 'snapshot failed: storage local-lvm has no free extents left';

/** What the config-drift task compares web VMs with (as PVE returns the values). */
export const WEB_BASELINE: Readonly<Record<string, string>> = Object.freeze({
  cores: '2',
  memory: '4096',
  cpu: 'x86-64-v2-AES',
  agent: '1',
  onboot: '1',
});

export function tagsOf(g: Guest): string[] {
  return String(g.config.tags ?? '')
    .split(/[;,\s]+/)
    .filter((t) => t.length > 0);
}

export function prepareScenario(sim: RunningSimulator): ScenarioFacts {
  const state = sim.cluster.state;
  const guests = sim.cluster.guests();
  const nodes = sim.cluster.nodeNames;
  if (nodes.length < 2) throw new Error(`the token benchmark needs a cluster of at least 2 nodes; preset ${sim.cluster.preset} has ${nodes.length}`);

  const drift = driftWebVms(guests.filter((g) => g.type === 'qemu' && tagsOf(g).includes('web')));

  const fullStorageNode = nodes[1] as string;
  const local = state.storages.get('local');
  if (!local) throw new Error(`preset ${sim.cluster.preset} has no 'local' storage to fill`);
  state.volumes.push({
    storage: 'local',
    node: fullStorageNode,
    volid: 'local:iso/appliance-archive-full.iso',
    content: 'iso',
    format: 'iso',
    size: Math.round(local.total * 0.87),
    ctime: state.nowSec() - 3 * 86_400,
  });

  const production = guests.filter((g) => g.pool === 'production');
  const unbackedProduction = production.filter((_, i) => i % 6 === 2).map((g) => g.vmid);
  const drop = new Set(unbackedProduction);
  for (let i = state.volumes.length - 1; i >= 0; i--) {
    const v = state.volumes[i];
    if (v && v.content === 'backup' && v.vmid !== undefined && drop.has(v.vmid)) state.volumes.splice(i, 1);
  }

  const snapshotCandidates = guests.filter((g) => g.type === 'qemu' && g.pool === SNAPSHOT_POOL && g.status === 'running');
  const failing = snapshotCandidates[Math.floor(snapshotCandidates.length / 2)];
  if (!failing) throw new Error(`preset ${sim.cluster.preset} has no running VM in pool ${SNAPSHOT_POOL}`);
  sim.cluster.taskFaults.push({ type: 'qmsnapshot', vmid: failing.vmid, fail: SNAPSHOT_FAILURE, times: 1 });

  const running = guests.filter((g) => g.status === 'running');
  const target = running[Math.floor(running.length / 2)] as Guest;

  return {
    preset: sim.cluster.preset,
    targetVmid: target.vmid,
    targetIp: guestIpv4(target.vmid),
    drift,
    fullStorageNode,
    unbackedProduction,
    failingSnapshotVmid: failing.vmid,
    evacuateNode: nodes[0] as string,
  };
}

/** Two in every seven web VMs get one of four typical drifts. */
function driftWebVms(web: Guest[]): ScenarioFacts['drift'] {
  const kinds: Array<{ key: string; apply(g: Guest): void }> = [
    { key: 'memory', apply: (g) => void (g.config.memory = '8192') },
    { key: 'net0.firewall', apply: (g) => void (g.config.net0 = String(g.config.net0).replace('firewall=1', 'firewall=0')) },
    { key: 'cores', apply: (g) => void (g.config.cores = 4) },
    { key: 'onboot', apply: (g) => void delete g.config.onboot },
  ];
  const out: ScenarioFacts['drift'] = [];
  web.forEach((g, i) => {
    if (i % 7 !== 1 && i % 7 !== 2) return;
    const kind = kinds[out.length % kinds.length] as (typeof kinds)[number];
    kind.apply(g);
    out.push({ vmid: g.vmid, keys: [kind.key] });
  });
  return out;
}
