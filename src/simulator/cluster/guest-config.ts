/**
 * Reading and rendering guest configurations: the `.conf` file text (whose SHA1 is the config
 * `digest`), disk entries, and the derived sizes that list and status endpoints report.
 */
import { createHash } from 'node:crypto';
import type { Guest, GuestConfig, GuestType } from './types.js';

const UNITS: Record<string, number> = { K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };

/** `32G` → bytes (a bare number is bytes, as in PVE disk `size=` values). */
export function parseSize(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)([KMGT])?$/.exec(text.trim());
  if (!m) return undefined;
  return Math.round(Number(m[1]) * (m[2] ? (UNITS[m[2]] as number) : 1));
}

/** Bytes → the shortest exact PVE size string (`32G`, `512M`). */
export function formatSize(bytes: number): string {
  for (const unit of ['T', 'G', 'M', 'K'] as const) {
    const f = UNITS[unit] as number;
    if (bytes >= f && bytes % f === 0) return `${bytes / f}${unit}`;
  }
  return String(bytes);
}

const QEMU_DISK_KEY = /^(?:scsi|virtio|sata|ide|efidisk|tpmstate|unused)\d+$/;
const LXC_DISK_KEY = /^(?:rootfs|mp\d+|unused\d+)$/;

export function isDiskKey(type: GuestType, key: string): boolean {
  return (type === 'qemu' ? QEMU_DISK_KEY : LXC_DISK_KEY).test(key);
}

export interface DiskEntry {
  key: string;
  volid: string;
  storage: string;
  /** Bytes (0 when the config does not say). */
  size: number;
}

/** First letters of every disk key (scsi, sata, virtio, ide, efidisk, tpmstate, unused, rootfs, mp): a cheap pre-filter. */
const DISK_KEY_INITIALS = new Set(['s', 'v', 'i', 'e', 't', 'u', 'r', 'm']);

/** Disk-backed entries of a config (CD-ROM drives and passthrough devices are skipped). */
export function diskEntries(type: GuestType, config: GuestConfig): DiskEntry[] {
  const out: DiskEntry[] = [];
  for (const key in config) {
    if (!DISK_KEY_INITIALS.has(key[0] as string) || !isDiskKey(type, key)) continue;
    const value = String(config[key]);
    if (value.includes('media=cdrom')) continue;
    const comma = value.indexOf(',');
    const first = comma < 0 ? value : value.slice(0, comma);
    const eq = first.indexOf('=');
    const volid = eq < 0 ? first : first.slice(eq + 1);
    const colon = volid.indexOf(':');
    if (colon <= 0) continue;
    const sizeAt = value.indexOf('size=', comma);
    let size = 0;
    if (comma >= 0 && sizeAt > 0) {
      const end = value.indexOf(',', sizeAt);
      size = parseSize(value.slice(sizeAt + 5, end < 0 ? undefined : end)) ?? 0;
    }
    out.push({ key, volid, storage: volid.slice(0, colon), size });
  }
  return out;
}

/** Replaces the `size=` of a disk option string. */
export function withDiskSize(value: string, bytes: number): string {
  const parts = value.split(',').filter((p) => !p.startsWith('size='));
  parts.push(`size=${formatSize(bytes)}`);
  return parts.join(',');
}

/** The bootable/primary disk size, which lists report as `maxdisk`. */
export function primaryDiskSize(guest: Guest): number {
  const disks = diskEntries(guest.type, guest.config).filter((d) => !d.key.startsWith('unused'));
  if (guest.type === 'lxc') return disks.find((d) => d.key === 'rootfs')?.size ?? 0;
  const boot = /order=([^;,]+)/.exec(String(guest.config.boot ?? ''))?.[1];
  return (disks.find((d) => d.key === boot) ?? disks.find((d) => !/^(efidisk|tpmstate)/.test(d.key)))?.size ?? 0;
}

export function guestName(guest: Guest): string {
  if (guest.type === 'qemu') return String(guest.config.name ?? `VM ${guest.vmid}`);
  return String(guest.config.hostname ?? `CT${guest.vmid}`);
}

/** Configured memory in MiB (qemu `memory` is a property string such as `4096` or `current=4096`). */
export function memoryMiB(guest: Guest): number {
  const raw = String(guest.config.memory ?? '512');
  const m = /(?:^|current=)(\d+)/.exec(raw);
  return m ? Number(m[1]) : 512;
}

export function cpuCount(guest: Guest, nodeCpus: number): number {
  if (guest.type === 'lxc') return Number(guest.config.cores ?? nodeCpus);
  if (guest.config.vcpus !== undefined) return Number(guest.config.vcpus);
  return Number(guest.config.sockets ?? 1) * Number(guest.config.cores ?? 1);
}

/** Keys that belong to snapshot bookkeeping and are not copied into a snapshot's config. */
const SNAPSHOT_META = new Set(['parent', 'snaptime', 'vmstate', 'snapstate', 'lock', 'digest']);

export function snapshotableConfig(config: GuestConfig): GuestConfig {
  const out: GuestConfig = {};
  for (const [k, v] of Object.entries(config)) if (!SNAPSHOT_META.has(k)) out[k] = v;
  return out;
}

function renderSection(config: GuestConfig): string {
  let text = '';
  const description = config.description;
  if (description !== undefined) {
    for (const line of String(description).split('\n')) text += `#${line}\n`;
  }
  for (const key of Object.keys(config).sort()) {
    if (key === 'description' || key === 'digest') continue;
    text += `${key}: ${config[key]}\n`;
  }
  return text;
}

/** The guest's `.conf` file as PVE would write it: current section, pending, then snapshots. */
export function renderConf(guest: Guest): string {
  let text = renderSection(guest.config);
  if (Object.keys(guest.pending).length > 0 || guest.pendingDelete.size > 0) {
    const pending: GuestConfig = { ...guest.pending };
    if (guest.pendingDelete.size > 0) pending.delete = [...guest.pendingDelete].join(',');
    text += `\n[PENDING]\n${renderSection(pending)}`;
  }
  for (const snap of guest.snapshots) {
    const section: GuestConfig = { ...snap.config, snaptime: snap.snaptime };
    if (snap.parent) section.parent = snap.parent;
    if (snap.vmstate) section.vmstate = snap.vmstate;
    if (snap.description) section.description = snap.description;
    text += `\n[${snap.name}]\n${renderSection(section)}`;
  }
  return text;
}

/** The config `digest`: SHA1 of the file, which changes with any edit. */
export function configDigest(guest: Guest): string {
  return createHash('sha1').update(renderConf(guest)).digest('hex');
}
