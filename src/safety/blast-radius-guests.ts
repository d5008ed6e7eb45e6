/**
 * What blast-radius families know of guests: the cluster's guest list, a guest's config, its
 * disks and which one it boots from. Every read goes through `BlastReads`, so a failed one is
 * recorded and makes the radius incomplete.
 */
import type { BlastReads } from './blast-radius.js';
import { listOf } from '../pve/list-value.js';

export interface GuestEntry {
  vmid: number;
  type: 'qemu' | 'lxc';
  node: string;
  name?: string;
  status?: string;
  template?: boolean;
  pool?: string;
}

export interface DiskRef {
  key: string;
  volid: string;
  storage: string;
  /** Bytes, when the entry says. */
  size?: number;
}

/** Guest configs read at most per radius; past it the radius is incomplete. */
export const MAX_CONFIG_READS = 100;

/** Every guest of the cluster (`GET /cluster/resources`), or undefined when the read failed. */
export async function guestDirectory(r: BlastReads): Promise<GuestEntry[] | undefined> {
  const list = await r.list('/cluster/resources');
  if (!list) return undefined;
  const out: GuestEntry[] = [];
  for (const x of list) {
    if ((x.type !== 'qemu' && x.type !== 'lxc') || typeof x.vmid !== 'number' || typeof x.node !== 'string') continue;
    out.push({
      vmid: x.vmid,
      type: x.type,
      node: x.node,
      ...(typeof x.name === 'string' ? { name: x.name } : {}),
      ...(typeof x.status === 'string' ? { status: x.status } : {}),
      ...(x.template === 1 || x.template === true ? { template: true } : {}),
      ...(typeof x.pool === 'string' ? { pool: x.pool } : {}),
    });
  }
  return out.sort((a, b) => a.vmid - b.vmid);
}

/** Nodes of the cluster and whether they are online, from the same read. */
export async function nodeDirectory(r: BlastReads): Promise<Array<{ node: string; online: boolean }> | undefined> {
  const list = await r.list('/cluster/resources');
  if (!list) return undefined;
  return list.filter((x) => x.type === 'node' && typeof x.node === 'string').map((x) => ({ node: String(x.node), online: x.status === 'online' }));
}

export function guestConfig(r: BlastReads, g: GuestEntry): Promise<Record<string, unknown> | undefined> {
  return r.object(`/nodes/${encodeURIComponent(g.node)}/${g.type}/${g.vmid}/config`);
}

/** `VM 112 'app-02' on pve1`. */
export function guestLabel(g: { vmid: number; type?: 'qemu' | 'lxc'; name?: string; node?: string }): string {
  const kind = g.type === 'lxc' ? 'CT' : 'VM';
  return `${kind} ${g.vmid}${g.name ? ` '${g.name}'` : ''}${g.node ? ` on ${g.node}` : ''}`;
}

const QEMU_DISK = /^(ide|sata|scsi|virtio)\d+$|^(efidisk|tpmstate)0$|^unused\d+$/;
const LXC_DISK = /^(rootfs|mp\d+|unused\d+)$/;

function isDiskKey(type: 'qemu' | 'lxc', key: string): boolean {
  return (type === 'lxc' ? LXC_DISK : QEMU_DISK).test(key);
}

/** The disks of a config: volume-backed entries only (no CD-ROM, no passed-through device). */
export function disksOf(type: 'qemu' | 'lxc', config: Record<string, unknown>): DiskRef[] {
  const out: DiskRef[] = [];
  for (const [key, raw] of Object.entries(config)) {
    if (!isDiskKey(type, key) || typeof raw !== 'string' || /(?:^|,)media=cdrom(?:,|$)/.test(raw)) continue;
    const first = raw.split(',')[0] ?? '';
    const volid = first.includes('=') ? (first.split('=')[1] ?? '') : first;
    const colon = volid.indexOf(':');
    if (colon <= 0 || volid.startsWith('/')) continue;
    const size = sizeOf(/(?:^|,)size=([^,]+)/.exec(raw)?.[1]);
    out.push({ key, volid, storage: volid.slice(0, colon), ...(size !== undefined ? { size } : {}) });
  }
  return out.sort((a, b) => a.key.localeCompare(b.key, 'en', { numeric: true }));
}

/**
 * The disk a guest boots from: a container's root filesystem; a VM's first disk in its `boot`
 * order (or the legacy `bootdisk`), else its first disk in PVE's default order.
 */
export function bootKey(type: 'qemu' | 'lxc', config: Record<string, unknown>): string | undefined {
  if (type === 'lxc') return 'rootfs';
  const disks = disksOf(type, config).filter((d) => !d.key.startsWith('unused') && !/^(efidisk|tpmstate)/.test(d.key));
  const keys = new Set(disks.map((d) => d.key));
  const order = typeof config.boot === 'string' ? /(?:^|,)order=([^,]+)/.exec(config.boot)?.[1] : undefined;
  if (order) return order.split(';').find((k) => keys.has(k));
  if (typeof config.bootdisk === 'string' && keys.has(config.bootdisk)) return config.bootdisk;
  for (const bus of ['scsi', 'virtio', 'sata', 'ide']) {
    const first = disks.find((d) => d.key.startsWith(bus));
    if (first) return first.key;
  }
  return undefined;
}

function sizeOf(text: string | undefined): number | undefined {
  const m = text ? /^(\d+(?:\.\d+)?)([KMGT]?)$/.exec(text) : null;
  if (!m) return undefined;
  const unit = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 }[m[2] as '' | 'K' | 'M' | 'G' | 'T'];
  return Math.round(Number(m[1]) * unit);
}

export function bytes(n: number | undefined): string {
  if (n === undefined) return 'size unknown';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}

/** The `vmid` list of a job or bulk call (`100,101` or an array) as numbers. */
export function vmidList(raw: unknown): number[] {
  return listOf(raw)
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0);
}
