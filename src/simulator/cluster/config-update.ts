/**
 * Guest config edits as PVE applies them: digest guard, lock check, `delete`/`revert` lists,
 * new disks from `STORAGE:SIZE`, and hot-plug rules — on a running guest, options that cannot
 * change live are queued as pending until the next start.
 */
import { assertUnmodified, fail, locked } from './errors.js';
import { allocateIfNew, usedDiskNumbers } from './disks.js';
import { configDigest, isDiskKey } from './guest-config.js';
import { storedValue } from './guest-options.js';
import { removeOption } from './guest-ops.js';
import { isCloudinitKey, storedCipassword } from './cloudinit.js';
import type { Guest } from './types.js';
import type { ClusterState } from './state.js';

export interface ConfigChange {
  set: Record<string, unknown>;
  delete: string[];
  revert: string[];
  digest?: string;
  skiplock: boolean;
  /** With `delete`: destroy removed VM disks instead of keeping them as unusedN. */
  force?: boolean;
}

/** Options a running guest takes without a restart. */
const LIVE: Record<Guest['type'], RegExp> = {
  qemu: /^(?:name|description|tags|onboot|startup|protection|balloon|net\d+|scsi\d+|virtio\d+|sata\d+|unused\d+|hotplug|cpulimit|cpuunits)$/,
  lxc: /^(?:description|tags|onboot|startup|protection|memory|swap|cores|cpulimit|cpuunits|net\d+|mp\d+|unused\d+)$/,
};

const NOT_SETTABLE = new Set(['lock', 'digest', 'parent', 'snaptime', 'vmstate']);

export function assertDigest(g: Guest, digest: string | undefined): void {
  assertUnmodified(configDigest(g), digest);
}

/** The checks PVE makes under the config lock before changing anything (500 errors). */
export function checkConfigChange(g: Guest, change: ConfigChange): void {
  const setKeys = Object.keys(change.set);
  if (setKeys.length === 0 && change.delete.length === 0 && change.revert.length === 0) throw fail('no options specified');
  assertDigest(g, change.digest);
  if (g.config.lock !== undefined && !change.skiplock) throw locked(g.type, String(g.config.lock));
  for (const key of [...setKeys, ...change.delete]) {
    if (NOT_SETTABLE.has(key)) throw fail(`unable to change read-only option '${key}'`);
  }
  for (const key of change.delete) {
    if (key in change.set) throw fail(`you can't use option '${key}' in both 'delete' and set at the same time`);
  }
}

/** Checks, then applies the change (disks allocated, live or pending per option). */
export function applyConfigChange(state: ClusterState, g: Guest, change: ConfigChange): void {
  checkConfigChange(g, change);
  writeConfigChange(state, g, change);
}

/** Applies an already checked change. */
export function writeConfigChange(state: ClusterState, g: Guest, change: ConfigChange): void {
  const setKeys = Object.keys(change.set);
  const running = g.status === 'running';
  // The drive still holds what it was generated from; GET …/cloudinit shows the difference.
  if (g.type === 'qemu' && g.cloudinitGenerated === undefined && [...setKeys, ...change.delete].some(isCloudinitKey)) {
    g.cloudinitGenerated = cloudinitValues(g.config);
  }
  const live = (key: string): boolean => !running || LIVE[g.type].test(key);
  const reserved = usedDiskNumbers(g);

  for (const key of change.revert) {
    delete g.pending[key];
    g.pendingDelete.delete(key);
    g.pendingForce?.delete(key);
  }
  for (const key of change.delete) {
    if (!live(key)) {
      if (key in g.config || key in g.pending) {
        g.pendingDelete.add(key);
        if (change.force) (g.pendingForce ??= new Set()).add(key);
      }
      delete g.pending[key];
      continue;
    }
    removeOption(g, key, change.force ?? false);
    delete g.pending[key];
    g.pendingDelete.delete(key);
    g.pendingForce?.delete(key);
  }
  for (const key of setKeys) {
    let value = storedValue(g.type, key, change.set[key]);
    if (g.type === 'qemu' && key === 'cipassword') {
      // PVE stores the hash and writes it at once, also on a running VM.
      g.config.cipassword = storedCipassword(state, g, String(value));
      continue;
    }
    if (isDiskKey(g.type, key) && typeof value === 'string') value = allocateIfNew(state, g, value, reserved);
    if (live(key)) {
      g.config[key] = value;
      delete g.pending[key];
      g.pendingDelete.delete(key);
    } else {
      g.pending[key] = value;
    }
  }
}

/** The cloud-init relevant part of a config. */
export function cloudinitValues(config: Record<string, string | number>): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(config)) if (isCloudinitKey(k)) out[k] = v;
  return out;
}
