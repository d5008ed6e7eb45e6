/**
 * The guests a generated cluster starts with: VMs and containers per role, their configs (disks on
 * the storage the role uses, network, cloud-init), and a snapshot history for some. Part of
 * generate.ts's build, drawing from the same seeded generator.
 */
import { formatSize } from './guest-config.js';
import { macAddress, uuid } from './ids.js';
import { BalancedPlacer } from './placement.js';
import type { PresetSpec } from './presets.js';
import type { Rng } from './prng.js';
import { DAY, GiB, type Role, ROLES } from './roles.js';
import { ClusterState } from './state.js';
import type { Guest, GuestConfig, SimNode } from './types.js';

/** The preset's guests, by role over its nodes (or placed by the balancing placer), each with its config and snapshots. */
export function makeGuests(state: ClusterState, spec: PresetSpec, rng: Rng, nodes: SimNode[], shared: boolean, nowSec: number, placer?: BalancedPlacer): void {
  const perRole = Math.ceil(spec.guests / ROLES.length);
  const width = Math.max(2, String(perRole).length);
  const counters = new Map<string, number>();
  // One template; the rest cycle through the roles so every preset has every kind of guest.
  for (let i = 0; i < spec.guests - 1; i++) {
    const role = ROLES[i % ROLES.length] as Role;
    const n = (counters.get(role.name) ?? 0) + 1;
    counters.set(role.name, n);
    const name = `${role.name}-${String(n).padStart(width, '0')}`;
    const running = placer ? placer.running(i) : rng.chance(role.running);
    const node = placer ? placer.place(role, running) : (nodes[i % nodes.length] as SimNode);
    const vmid = 100 + i;
    const storage = shared && role.pool === 'production' ? 'ceph' : 'local-lvm';
    const config = role.type === 'qemu' ? qemuConfig(rng, vmid, name, role, storage, nowSec) : lxcConfig(rng, vmid, name, role, storage);
    const guest: Guest = {
      vmid,
      type: role.type,
      node: node.name,
      config,
      pending: {},
      pendingDelete: new Set(),
      status: running ? 'running' : 'stopped',
      paused: false,
      // Guests came up with or after their node.
      startedAt: running ? Math.max(node.bootedAt + 90_000, (nowSec - rng.int(600, 30 * DAY)) * 1000) : 0,
      pid: running ? node.nextPid++ : 0,
      snapshots: [],
    };
    if (rng.chance(0.25)) addSnapshots(guest, rng, nowSec);
    state.guests.set(vmid, guest);
    state.setPool(guest, role.pool);
  }
  const tplNode = nodes[0] as SimNode;
  const tplRole = ROLES[0] as Role;
  const tplVmid = spec.guests > 900 ? 100 + spec.guests : 9000;
  const tplConfig = qemuConfig(rng, tplVmid, 'tpl-debian-12', { ...tplRole, tags: 'template' }, shared ? 'ceph' : 'local-lvm', nowSec);
  tplConfig.template = 1;
  tplConfig.scsi0 = String(tplConfig.scsi0).replace(`vm-${tplVmid}-disk-0`, `base-${tplVmid}-disk-0`);
  delete tplConfig.onboot;
  state.guests.set(tplVmid, {
    vmid: tplVmid,
    type: 'qemu',
    node: tplNode.name,
    config: tplConfig,
    pending: {},
    pendingDelete: new Set(),
    status: 'stopped',
    paused: false,
    startedAt: 0,
    pid: 0,
    snapshots: [],
  });
}

function qemuConfig(rng: Rng, vmid: number, name: string, role: Role, storage: string, nowSec: number): GuestConfig {
  const config: GuestConfig = {
    agent: '1',
    boot: 'order=scsi0;ide2;net0',
    cores: role.cores,
    cpu: 'x86-64-v2-AES',
    ide2: 'none,media=cdrom',
    memory: String(role.memory),
    meta: `creation-qemu=9.2.0,ctime=${nowSec - rng.int(30, 400) * DAY}`,
    name,
    net0: `virtio=${macAddress(rng)},bridge=vmbr0,firewall=1`,
    numa: 0,
    ostype: role.ostype,
    scsi0: `${storage}:vm-${vmid}-disk-0,iothread=1,size=${formatSize(role.diskGiB * GiB)}`,
    scsihw: 'virtio-scsi-single',
    smbios1: `uuid=${uuid(rng)}`,
    sockets: 1,
    tags: role.tags,
    vmgenid: uuid(rng),
  };
  if (role.pool === 'production') config.onboot = 1;
  if (role.ostype === 'win11') {
    config.bios = 'ovmf';
    config.machine = 'pc-q35-9.2+pve1';
    config.efidisk0 = `${storage}:vm-${vmid}-disk-1,efitype=4m,pre-enrolled-keys=1,size=4M`;
    config.tpmstate0 = `${storage}:vm-${vmid}-disk-2,size=4M,version=v2.0`;
  }
  if (role.name === 'db') config.description = 'Primary database server.\nBackups are verified weekly.';
  return config;
}

function lxcConfig(rng: Rng, vmid: number, name: string, role: Role, storage: string): GuestConfig {
  const config: GuestConfig = {
    arch: 'amd64',
    cores: role.cores,
    features: 'nesting=1',
    hostname: name,
    memory: role.memory,
    net0: `name=eth0,bridge=vmbr0,firewall=1,hwaddr=${macAddress(rng)},ip=dhcp,type=veth`,
    ostype: role.ostype,
    rootfs: `${storage}:vm-${vmid}-disk-0,size=${formatSize(role.diskGiB * GiB)}`,
    swap: 512,
    tags: role.tags,
    unprivileged: 1,
  };
  if (role.pool !== 'development') config.onboot = 1;
  return config;
}

function addSnapshots(guest: Guest, rng: Rng, nowSec: number): void {
  const names = ['before-upgrade', 'pre-migration', 'weekly'];
  const count = rng.int(1, 2);
  let parent: string | undefined;
  let at = nowSec - rng.int(20, 90) * DAY;
  for (let i = 0; i < count; i++) {
    const name = names[i] as string;
    guest.snapshots.push({
      name,
      description: i === 0 ? 'Taken before the distribution upgrade' : '',
      snaptime: at,
      ...(guest.type === 'qemu' ? { vmstate: 0 } : {}),
      ...(parent ? { parent } : {}),
      config: { ...guest.config },
    });
    parent = name;
    at += rng.int(1, 10) * DAY;
  }
  if (parent) guest.config.parent = parent;
}
