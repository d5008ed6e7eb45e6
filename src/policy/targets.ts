/**
 * What a call acts on, read from the operation's schema (parameter formats, array items and
 * property-string keys) and the concrete values — path values and parameters alike:
 *
 * - nodes: `pve-node`/`pve-node-list`/HA node lists (`pve1:2`), the path's node, migration targets;
 * - guests: `pve-vmid`/`pve-vmid-list` values as strings, numbers or arrays (`vms: [100, 101]`,
 *   `vms: '100,101'`), HA resource IDs (`vm:100`, `ct:101`, lists in HA rules), clone/restore/migrate
 *   destinations (`newid`, `target-vmid`);
 * - data of other guests: volumes whose name carries an owner (`vm-111-disk-0` attached to VM 100
 *   reaches guest 111's data), restore archives, import sources;
 * - storages, pools, volumes, host paths;
 * - every guest of the cluster, or of the named nodes, for calls that name none: bulk actions
 *   without `vms`, `startall`/`stopall`/`migrateall` without `vms`, backups with `all`;
 *   every guest of a pool for backups with `pool`.
 *
 * A value that should name a target but cannot be read (`vms: 'abc'`) makes the call unresolved:
 * the decision treats it as touching everything.
 */
import type { Operation, ParamSpec, SchemaNode } from '../schema/model.js';
import { parsePropertyString, parseVolume } from './volumes.js';
import { listOf } from '../pve/list-value.js';

export interface CallTargets {
  nodes: string[];
  /** Guests the call acts on (path vmid, `vms`, HA resources, clone/restore/migrate destinations). */
  vmids: number[];
  /** Guests whose data the call reaches through a volume it names (not already in `vmids`). */
  dataOf: number[];
  storages: string[];
  pools: string[];
  volumes: string[];
  hostPaths: string[];
  /** Every guest of the cluster, or of the call's nodes; absent when the call names its guests. */
  allGuests?: 'cluster' | 'nodes';
  /** Pools whose every guest the call acts on (backup `pool`). */
  poolGuests: string[];
  /** Values that should name targets but could not be read; non-empty means "touches everything". */
  unresolved: string[];
}

const NODE_FORMATS = new Set(['pve-node', 'pve-node-list', 'pve-ha-node-list']);
const VMID_FORMATS = new Set(['pve-vmid', 'pve-vmid-list']);
const VOLUME_FORMATS = new Set(['pve-volume-id', 'pve-volume-id-or-qm-path', 'pve-volume-id-or-absolute-path', 'pve-lxc-mp-string']);
const STORAGE_FORMATS = new Set(['pve-storage-id', 'pve-storage-id-list']);
const HA_FORMATS = new Set(['pve-ha-resource-or-vm-id', 'pve-ha-resource-id-list']);
/** Parameters without a format that carry a volume ID in every operation that has them. */
const VOLUME_NAMES = new Set(['archive', 'volume', 'ostemplate', 'vmstate']);
/** vmid lists that name guests to leave out, not to act on. */
const NOT_TARGETS = new Set(['exclude']);
/** `target-storage`/`targetstorage` pairs (`src:dst` or one storage for all). */
const STORAGE_PAIR_FORMATS = new Set(['storage-pair-list']);
/** Operations that act on every guest in reach unless `vms` narrows them. */
const ALL_UNLESS_VMS = /^\/cluster\/bulk-action\/guest\/[^/]+$|^\/nodes\/\{node\}\/(?:startall|stopall|suspendall|migrateall)$/;
/**
 * Changes to an object whose effect falls on guests the call does not name: the members of an HA
 * rule or group (the HA manager moves them to fit), a backup job's selection, every backup on a
 * storage, every disk in a Ceph pool, or in a volume group, thin pool or ZFS pool the node gives
 * up (PVE destroys it with whatever it holds; a directory is unmounted, its guests lose their
 * disks), every guest on a VNet whose firewall changes (the nftables firewall, proxmox-firewall,
 * applies a VNet's rules and forward policy without an SDN apply). Unless the call names those
 * guests itself (`unlessNamedBy`), it reaches every guest of the cluster.
 */
const REACHES_UNNAMED: ReadonlyArray<{ op: RegExp; unlessNamedBy?: readonly string[] }> = [
  { op: /^PUT \/cluster\/ha\/rules\/\{rule\}$/, unlessNamedBy: ['resources'] },
  { op: /^PUT \/cluster\/ha\/groups\/\{group\}$/ },
  { op: /^PUT \/cluster\/backup\/\{id\}$/, unlessNamedBy: ['vmid', 'all', 'pool'] },
  { op: /^DELETE \/nodes\/\{node\}\/storage\/\{storage\}\/prunebackups$/, unlessNamedBy: ['vmid'] },
  { op: /^DELETE \/nodes\/\{node\}\/ceph\/pools?\/\{name\}$/ },
  { op: /^DELETE \/nodes\/\{node\}\/disks\/(?:lvm|lvmthin|directory|zfs)\/\{name\}$/ },
  { op: /^(?:POST|PUT|DELETE) \/cluster\/sdn\/vnets\/\{vnet\}\/firewall\/(?:options|rules(?:\/\{pos\})?)$/ },
];
const HA_SID = /^(?:(?:vm|ct):)?([1-9][0-9]{0,8})$/;
/** A replication job's ID is `<guest>-<job number>`: PVE reads the guest from it. */
const REPLICATION_JOB = /^([1-9][0-9]{0,8})-\d+$/;
const VMID = /^[1-9][0-9]{0,8}$/;

/** What a call that names no target has: shared, never mutated (`describeCall` copies before adding). */
const NO_TARGETS: CallTargets = Object.freeze({
  nodes: [],
  vmids: [],
  dataOf: [],
  storages: [],
  pools: [],
  volumes: [],
  hostPaths: [],
  poolGuests: [],
  unresolved: [],
}) as CallTargets;

export function callTargets(op: Operation, pathValues: Record<string, string>, params: Record<string, unknown>): CallTargets {
  const shape = shapeOf(op);
  // Most reads name nothing a policy looks at (`GET /version`, a listing with a `type` filter):
  // they cost one scan of their few values.
  if (!shape.allUnlessVms && !shape.backupSelection && !shape.unnamedUnless && !namesTargets(shape, pathValues, params)) return NO_TARGETS;
  const t = new TargetSet();
  const value = (name: string): unknown => (Object.hasOwn(pathValues, name) ? pathValues[name] : params[name]);

  // Only the values the call gives are read (a config operation declares hundreds of parameters).
  for (const name of new Set([...Object.keys(pathValues), ...Object.keys(params)])) {
    const spec = shape.specs.get(name);
    const v = value(name);
    if (spec) {
      if (v !== undefined && v !== null && v !== '') readParam(t, shape, spec, v);
    } else if (Object.hasOwn(pathValues, name)) {
      // Path values count even when the schema's parameter list does not repeat them.
      const pv = pathValues[name] as string;
      if (name === 'node') t.nodes.add(pv);
      else if (name === 'vmid') t.vmid(pv, 'vmid');
      else if (name === 'storage') t.storages.add(pv);
      else if (name === 'poolid') t.pools.add(pv);
      else if (VOLUME_NAMES.has(name)) t.volume(pv);
    }
  }

  const given = (name: string): boolean => {
    const v = value(name);
    return v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.length === 0);
  };
  if (shape.allUnlessVms && !given('vms')) t.allGuests = op.path.startsWith('/cluster/') ? 'cluster' : 'nodes';
  if (shape.unnamedUnless && !shape.unnamedUnless.some(given)) t.allGuests = 'cluster';
  if (shape.backupSelection) {
    if (isTruthy(value('all'))) t.allGuests = t.nodes.size > 0 ? 'nodes' : 'cluster';
    const pool = value('pool');
    if (typeof pool === 'string' && pool !== '') t.poolGuests.add(pool);
  }
  return t.done();
}

function namesTargets(shape: OperationShape, pathValues: Record<string, string>, params: Record<string, unknown>): boolean {
  for (const name in pathValues) if (Object.hasOwn(pathValues, name) && (shape.targetNames.has(name) || PATH_TARGET_NAMES.has(name))) return true;
  for (const name in params) if (Object.hasOwn(params, name) && shape.targetNames.has(name)) return true;
  return false;
}

/** Path values that name targets even when the schema's parameter list does not declare them. */
const PATH_TARGET_NAMES = new Set(['node', 'vmid', 'storage', 'poolid', ...VOLUME_NAMES]);

/** What of an operation's schema the target reading needs, computed once per operation. */
interface OperationShape {
  specs: Map<string, ParamSpec>;
  /** Parameters whose values can name a target (by name, format, item format or property-string keys). */
  targetNames: Set<string>;
  allUnlessVms: boolean;
  /** Reaches every guest unless one of these (possibly none) is given (`REACHES_UNNAMED`). */
  unnamedUnless?: readonly string[];
  /** Backup operations select guests by `all`, `pool` or `vmid`: there `pool` is a selector, not a destination. */
  backupSelection: boolean;
}

const shapes = new WeakMap<Operation, OperationShape>();

function shapeOf(op: Operation): OperationShape {
  let shape = shapes.get(op);
  if (!shape) {
    const specs = new Map(op.params.map((p) => [p.name, p]));
    const targetNames = new Set(op.params.filter(mayNameTarget).map((p) => p.name));
    const unnamed = REACHES_UNNAMED.find((r) => r.op.test(op.key));
    shape = {
      specs,
      targetNames,
      allUnlessVms: ALL_UNLESS_VMS.test(op.path),
      ...(unnamed ? { unnamedUnless: unnamed.unlessNamedBy ?? [] } : {}),
      backupSelection: specs.has('all') && specs.has('exclude'),
    };
    shapes.set(op, shape);
  }
  return shape;
}

/** Whether `readParam` can find a target in this parameter's values (it reads nothing else). */
function mayNameTarget(spec: ParamSpec): boolean {
  const format = typeof spec.format === 'string' ? spec.format : undefined;
  const itemFormat = typeof spec.items?.format === 'string' ? spec.items.format : undefined;
  const fmt = format ?? itemFormat;
  if (spec.name === 'node' || spec.name === 'vmid' || spec.name === 'pool' || spec.name === 'poolid' || VOLUME_NAMES.has(spec.name) || fmt === 'pve-replication-job-id') return true;
  if (fmt && (NODE_FORMATS.has(fmt) || VMID_FORMATS.has(fmt) || HA_FORMATS.has(fmt) || STORAGE_FORMATS.has(fmt) || STORAGE_PAIR_FORMATS.has(fmt) || VOLUME_FORMATS.has(fmt) || fmt === 'pve-poolid')) {
    return true;
  }
  return spec.format !== undefined && typeof spec.format === 'object';
}

function readParam(t: TargetSet, shape: OperationShape, spec: ParamSpec, v: unknown): void {
  const format = typeof spec.format === 'string' ? spec.format : undefined;
  const itemFormat = typeof spec.items?.format === 'string' ? spec.items.format : undefined;
  const fmt = format ?? itemFormat;
  if (spec.name === 'node' || (fmt && NODE_FORMATS.has(fmt))) {
    for (const item of listOf(v)) t.nodes.add(item.split(':')[0] as string);
  } else if (spec.name === 'vmid' || (fmt && VMID_FORMATS.has(fmt))) {
    if (NOT_TARGETS.has(spec.name)) return;
    const items = listOf(v);
    if (items.length === 0 && typeof v !== 'string') t.unresolved.push(`${spec.name}: ${JSON.stringify(v)}`);
    for (const item of items) t.vmid(item, spec.name);
  } else if (fmt === 'pve-replication-job-id') {
    for (const item of listOf(v)) {
      const m = REPLICATION_JOB.exec(item);
      if (m?.[1]) t.vmids.add(Number(m[1]));
      else t.unresolved.push(`${spec.name}: ${item}`);
    }
  } else if (fmt && HA_FORMATS.has(fmt)) {
    for (const item of listOf(v)) {
      const m = HA_SID.exec(item);
      if (m?.[1]) t.vmids.add(Number(m[1]));
      else t.unresolved.push(`${spec.name}: ${item}`);
    }
  } else if (fmt && STORAGE_FORMATS.has(fmt)) {
    for (const item of listOf(v)) t.storages.add(item);
  } else if (fmt && STORAGE_PAIR_FORMATS.has(fmt)) {
    for (const item of listOf(v)) for (const s of item.split(':')) if (s !== '' && s !== '1') t.storages.add(s);
  } else if (spec.name === 'pool' || spec.name === 'poolid' || fmt === 'pve-poolid') {
    if (!shape.backupSelection) for (const item of listOf(v)) t.pools.add(item);
  } else if ((fmt && VOLUME_FORMATS.has(fmt)) || VOLUME_NAMES.has(spec.name)) {
    for (const item of listOf(v)) t.volume(item);
  } else if (spec.format !== undefined && typeof spec.format === 'object' && typeof v === 'string') {
    readPropertyString(t, spec.format, v);
  }
}

/** Volume-carrying keys of property strings: disks (`file`, `import-from`), mount points and rootfs (`volume`). */
function readPropertyString(t: TargetSet, format: Record<string, SchemaNode>, text: string): void {
  const defaultKey = Object.entries(format).find(([, node]) => node.default_key === 1 || node.default_key === true)?.[0];
  const keys = parsePropertyString(text, defaultKey ?? '');
  for (const [key, node] of Object.entries(format)) {
    const sub = typeof node.format === 'string' ? node.format : undefined;
    const v = keys[key];
    if (v === undefined || v === '') continue;
    if (sub && VOLUME_FORMATS.has(sub)) t.volume(v);
    else if (sub && STORAGE_FORMATS.has(sub)) t.storages.add(v);
  }
}

class TargetSet {
  readonly nodes = new Set<string>();
  readonly vmids = new Set<number>();
  readonly dataOf = new Set<number>();
  readonly storages = new Set<string>();
  readonly pools = new Set<string>();
  readonly volumes = new Set<string>();
  readonly hostPaths = new Set<string>();
  readonly poolGuests = new Set<string>();
  readonly unresolved: string[] = [];
  allGuests?: 'cluster' | 'nodes';

  vmid(item: string, name: string): void {
    if (VMID.test(item)) this.vmids.add(Number(item));
    else this.unresolved.push(`${name}: ${item}`);
  }

  volume(text: string): void {
    const ref = parseVolume(text);
    if (!ref) return;
    if (ref.hostPath) {
      this.hostPaths.add(ref.hostPath);
      return;
    }
    if (ref.storage) this.storages.add(ref.storage);
    if (!ref.allocation) this.volumes.add(ref.text);
    for (const owner of ref.owners) this.dataOf.add(owner);
  }

  done(): CallTargets {
    const vmids = [...this.vmids];
    return {
      nodes: [...this.nodes],
      vmids,
      dataOf: [...this.dataOf].filter((v) => !this.vmids.has(v)),
      storages: [...this.storages],
      pools: [...this.pools],
      volumes: [...this.volumes],
      hostPaths: [...this.hostPaths],
      ...(this.allGuests ? { allGuests: this.allGuests } : {}),
      poolGuests: [...this.poolGuests],
      unresolved: this.unresolved,
    };
  }
}

export function isTruthy(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 'true' || value === 'on' || value === 'yes';
}
