/**
 * The few parts of a node's file system that API parameters name: hook scripts (`script`),
 * backup directories (`dumpdir`, `tmpdir`). A path exists when it is a standard PVE directory,
 * a directory of a storage mounted on the node, a snippet on such a storage (the usual place for
 * hook scripts, `local:snippets/hook.pl` is `/var/lib/vz/snippets/hook.pl`), or one of the node's
 * own `files` (tests add them).
 */
import type { ClusterState } from './state.js';
import type { SimStorage } from './types.js';

const STANDARD_DIRS = ['/', '/root', '/tmp', '/var', '/var/tmp', '/var/lib', '/var/lib/vz', '/etc', '/etc/pve', '/usr/local/bin', '/mnt', '/mnt/pve'];

/** The mount point of a file-based storage on a node, or undefined for block storages. */
export function storageRoot(s: SimStorage): string | undefined {
  if (s.type !== 'dir' && s.type !== 'nfs') return undefined;
  return String(s.props.path ?? `/mnt/pve/${s.storage}`);
}

function storageDirs(state: ClusterState, node: string): Array<{ storage: SimStorage; dir: string; kind: string }> {
  const out: Array<{ storage: SimStorage; dir: string; kind: string }> = [];
  for (const s of state.storages.values()) {
    if (!state.storageOn(s.storage, node)) continue;
    const root = storageRoot(s);
    if (root === undefined) continue;
    out.push({ storage: s, dir: root, kind: 'root' });
    out.push({ storage: s, dir: `${root}/dump`, kind: 'backup' });
    out.push({ storage: s, dir: `${root}/snippets`, kind: 'snippets' });
    out.push({ storage: s, dir: `${root}/template/iso`, kind: 'iso' });
    out.push({ storage: s, dir: `${root}/template/cache`, kind: 'vztmpl' });
    out.push({ storage: s, dir: `${root}/images`, kind: 'images' });
  }
  return out;
}

const norm = (p: string): string => (p.length > 1 ? p.replace(/\/+$/, '') : p);

export function nodeDirExists(state: ClusterState, node: string, path: string): boolean {
  const p = norm(path);
  return STANDARD_DIRS.includes(p) || storageDirs(state, node).some((d) => d.dir === p);
}

export function nodeFileExists(state: ClusterState, node: string, path: string): boolean {
  const p = norm(path);
  if (state.node(node).files?.has(p)) return true;
  for (const d of storageDirs(state, node)) {
    if (d.kind !== 'snippets' || !p.startsWith(`${d.dir}/`)) continue;
    const name = p.slice(d.dir.length + 1);
    const shared = d.storage.shared;
    if (state.volumes.some((v) => v.storage === d.storage.storage && v.content === 'snippets' && v.volid === `${d.storage.storage}:snippets/${name}` && (shared || v.node === node))) return true;
  }
  return false;
}

/** The storage whose backup directory is `dir` on the node, if any (a `dumpdir` that is a storage's dump directory). */
export function storageOfDumpdir(state: ClusterState, node: string, dir: string): SimStorage | undefined {
  return storageDirs(state, node).find((d) => d.kind === 'backup' && d.dir === norm(dir))?.storage;
}
