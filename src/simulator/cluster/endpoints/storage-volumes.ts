/**
 * The volumes a storage holds, as the storage endpoints list them: the stored ISOs, templates and
 * backups, and the guest disks derived from guest configs, each with its format and where it
 * lives on the node.
 */
import { diskEntries } from '../guest-config.js';
import type { ClusterState } from '../state.js';
import type { SimStorage, StorageContent, StoredVolume } from '../types.js';

export interface VolumeView {
  volid: string;
  content: StorageContent;
  format: string;
  size: number;
  ctime?: number;
  vmid?: number;
  notes?: string;
  protected?: number;
  parent?: string;
  stored?: StoredVolume;
}

/** The disk format of a volume: its file extension, else the storage type's own. */
export function formatOf(s: SimStorage, volid: string): string {
  const ext = /\.(qcow2|raw|vmdk)$/.exec(volid)?.[1];
  if (ext) return ext;
  return s.type === 'dir' || s.type === 'nfs' ? 'qcow2' : 'raw';
}

/** All volumes of one storage as seen from one node. */
export function volumesOn(state: ClusterState, s: SimStorage, node: string): VolumeView[] {
  const out: VolumeView[] = [];
  for (const v of state.volumes) {
    if (v.storage !== s.storage || (!s.shared && v.node !== node)) continue;
    out.push({
      volid: v.volid,
      content: v.content,
      format: v.format,
      size: v.size,
      ctime: v.ctime,
      stored: v,
      ...(v.vmid !== undefined ? { vmid: v.vmid } : {}),
      ...(v.notes !== undefined ? { notes: v.notes } : {}),
      ...(v.protected ? { protected: 1 } : {}),
    });
  }
  for (const g of state.allGuests()) {
    if (!s.shared && g.node !== node) continue;
    const seen = new Set<string>();
    const configs = [g.config, ...g.snapshots.map((snap) => snap.config)];
    for (const config of configs) {
      for (const d of diskEntries(g.type, config)) {
        if (d.storage !== s.storage || seen.has(d.volid)) continue;
        seen.add(d.volid);
        const linked = /^[^:]+:(base-\d+-disk-\d+)\//.exec(d.volid);
        out.push({
          volid: d.volid,
          content: g.type === 'qemu' ? 'images' : 'rootdir',
          format: formatOf(s, d.volid),
          size: d.size,
          vmid: g.vmid,
          ...(linked?.[1] ? { parent: `${linked[1]}@__base__` } : {}),
        });
      }
    }
  }
  return out.sort((a, b) => a.volid.localeCompare(b.volid));
}

/** Where a volume lives on the node, as PVE's `path` reports it. */
export function volumePath(s: SimStorage, volid: string, vmid: number | undefined): string {
  const name = volid.slice(volid.indexOf(':') + 1);
  switch (s.type) {
    case 'lvmthin':
      return `/dev/${String(s.props.vgname ?? 'pve')}/${name.split('/').pop()}`;
    case 'rbd':
      return `rbd:${String(s.props.pool ?? 'rbd')}/${name.split('/').pop()}`;
    case 'zfspool':
      return `/dev/zvol/${String(s.props.pool ?? 'rpool')}/${name}`;
    default: {
      const root = String(s.props.path ?? `/mnt/pve/${s.storage}`);
      const [kind, file] = name.includes('/') ? [name.slice(0, name.indexOf('/')), name.slice(name.indexOf('/') + 1)] : ['images', name];
      const dir = kind === 'iso' ? 'template/iso' : kind === 'vztmpl' ? 'template/cache' : kind === 'backup' ? 'dump' : kind === 'snippets' ? 'snippets' : `images/${vmid ?? kind}`;
      return `${root}/${dir}/${file}`;
    }
  }
}
