/**
 * Volumes as PVE names them, and whose data they are. A volume ID is `<storage>:<volname>`; the
 * volname carries the owning guest in every storage plugin's naming scheme (`vm-101-disk-0`,
 * `base-100-disk-1/vm-101-disk-0` for a linked clone, `subvol-102-disk-0`, `101/vm-101-disk-0.qcow2`
 * on directory storages, `vzdump-qemu-101-….vma.zst` for a backup of guest 101). A call that
 * attaches, moves, restores or imports such a volume reaches that guest's data, whatever guest its
 * path names, so the owners are targets of the call.
 */

export interface VolumeRef {
  /** As written in the call. */
  text: string;
  storage?: string;
  /** Guests whose data the volume holds (linked clones name their base too). */
  owners: number[];
  /** An absolute host path or device (`/dev/sda`, `/mnt/data`) rather than a storage volume. */
  hostPath?: string;
  /** `STORAGE:SIZE`: a new volume is allocated on the storage, no existing data is reached. */
  allocation?: boolean;
}

const VMID = String.raw`[1-9][0-9]{0,8}`;
const OWNER_PATTERNS = [
  new RegExp(String.raw`(?:^|[/:])(?:vm|base|subvol|basevol)-(${VMID})-`, 'g'),
  new RegExp(String.raw`(?:^|[/:])(${VMID})/`, 'g'),
  new RegExp(String.raw`vzdump-(?:qemu|lxc|openvz)-(${VMID})-`, 'g'),
];
const ALLOCATION = /^[A-Za-z][A-Za-z0-9_.-]*:\d+(?:\.\d+)?$/;
const SPECIAL = new Set(['none', 'cdrom', '']);

/** Parse a volume ID or host path; undefined for values that name no volume (`none`, `cdrom`). */
export function parseVolume(text: string): VolumeRef | undefined {
  const value = text.trim();
  if (SPECIAL.has(value)) return undefined;
  if (value.startsWith('/')) return { text: value, owners: [], hostPath: value };
  const colon = value.indexOf(':');
  const storage = colon > 0 ? value.slice(0, colon) : undefined;
  if (ALLOCATION.test(value)) return { text: value, ...(storage ? { storage } : {}), owners: [], allocation: true };
  const volname = colon > 0 ? value.slice(colon + 1) : value;
  const owners = new Set<number>();
  for (const pattern of OWNER_PATTERNS) {
    for (const m of volname.matchAll(pattern)) owners.add(Number(m[1]));
  }
  return { text: value, ...(storage ? { storage } : {}), owners: [...owners] };
}

/**
 * Split a PVE property string (`local-lvm:vm-101-disk-0,size=32G` or `volume=/mnt/x,mp=/data`)
 * into its keys; the leading value without `=` belongs to `defaultKey`.
 */
export function parsePropertyString(text: string, defaultKey: string): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const part of text.split(',')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    if (eq < 0) out[defaultKey] ??= part;
    else out[part.slice(0, eq).trim()] = part.slice(eq + 1);
  }
  return out;
}
