/**
 * Runtime figures (cpu load, memory in use, uptime, traffic) as pure functions of a record and the
 * clock: they move from one second to the next, grow monotonically where PVE's counters do, and
 * every endpoint that reports them agrees.
 */
import { noise } from './prng.js';
import { cpuCount, memoryMiB, primaryDiskSize } from './guest-config.js';
import type { Guest, SimNode } from './types.js';

const MiB = 1024 * 1024;

export interface GuestRuntime {
  status: 'running' | 'stopped';
  cpus: number;
  cpu: number;
  mem: number;
  maxmem: number;
  disk: number;
  maxdisk: number;
  uptime: number;
  netin: number;
  netout: number;
  diskread: number;
  diskwrite: number;
}

export function guestRuntime(guest: Guest, node: SimNode, now: number): GuestRuntime {
  const maxmem = memoryMiB(guest) * MiB;
  const maxdisk = primaryDiskSize(guest);
  const cpus = cpuCount(guest, node.maxcpu);
  const diskUsedShare = 0.15 + 0.6 * noise(guest.vmid, 7);
  // Containers report filesystem usage even when stopped; VMs cannot see inside their disks.
  const disk = guest.type === 'lxc' ? Math.floor(maxdisk * diskUsedShare) : 0;
  if (guest.status !== 'running') {
    return { status: 'stopped', cpus, cpu: 0, mem: 0, maxmem, disk, maxdisk, uptime: 0, netin: 0, netout: 0, diskread: 0, diskwrite: 0 };
  }
  const uptime = Math.max(0, Math.floor((now - guest.startedAt) / 1000));
  const tick = Math.floor(now / 1000);
  const profile = 0.02 + 0.35 * noise(guest.vmid, 1);
  const cpu = guest.paused ? 0 : round4(Math.min(1, profile * (0.5 + noise(guest.vmid, tick))));
  const memShare = 0.3 + 0.45 * noise(guest.vmid, 2) + 0.05 * noise(guest.vmid, Math.floor(tick / 10));
  const rate = (k: number, scale: number): number => Math.floor(uptime * (1 + noise(guest.vmid, k) * scale));
  return {
    status: 'running',
    cpus,
    cpu,
    mem: Math.floor(maxmem * Math.min(0.95, memShare)),
    maxmem,
    disk,
    maxdisk,
    uptime,
    netin: rate(3, 120_000),
    netout: rate(4, 60_000),
    diskread: rate(5, 400_000),
    diskwrite: rate(6, 200_000),
  };
}

export interface NodeRuntime {
  cpu: number;
  mem: number;
  uptime: number;
  rootfsUsed: number;
}

/** Node load follows its running guests plus a host baseline. */
export function nodeRuntime(node: SimNode, guestMem: number, guestCpuCores: number, now: number): NodeRuntime {
  const tick = Math.floor(now / 1000);
  const key = node.nodeid * 7919;
  const base = 0.01 + 0.03 * noise(key, tick);
  return {
    cpu: round4(Math.min(1, base + guestCpuCores / node.maxcpu)),
    mem: Math.min(node.maxmem, Math.floor(node.maxmem * 0.06 + guestMem)),
    uptime: Math.max(0, Math.floor((now - node.bootedAt) / 1000)),
    rootfsUsed: Math.floor(node.rootfsTotal * (0.08 + 0.1 * noise(key, 1))),
  };
}

function round4(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}
