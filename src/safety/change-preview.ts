/**
 * What a planned write changes, in the words an operator approves: "app-02 (VM 112 on pve1):
 * memory 4096 → 8192 MiB (after a restart)" rather than `PUT …/config {"memory":8192}`.
 *
 * Computed in dry-run only, from reads made at plan time: a guest config write compares its
 * params with the config the identity check read (the one whose digest binds the approved run),
 * a power action reads the guest's status, a snapshot delete or rollback reads the snapshot list,
 * a volume delete reads the storage's content.
 * A read that fails does not stop the plan: the change then says it could not read the current
 * state. Every value is capped and shown with invisible characters escaped, as the plan text is.
 */
import { capString } from './caps.js';
import type { GuestIdentity } from './identity.js';
import { isPlainObject } from '../schema/schema-node.js';
import { visible } from './plan.js';
import { operationChange } from './change-preview-ops.js';
import { listOf } from '../pve/list-value.js';

export interface PlannedChange {
  /** One plain-language line, the guest first. */
  summary: string;
  /** One line per changed key or object. */
  lines: string[];
}

export interface PreviewInput {
  method: string;
  template: string;
  pathValues: Record<string, string>;
  /** The write's params, secrets redacted. */
  params: Record<string, unknown>;
  /** The guest the write targets (from the identity check), when it has one. */
  target?: GuestIdentity;
  /** The guest's config as the identity check read it (secrets redacted). */
  config?: Record<string, unknown>;
  /** A GET on the same cluster (dry-run only: status, snapshot list). */
  read(path: string): Promise<unknown>;
  /** Epoch ms a backup's age is counted to (default: now). */
  now?: number;
}

const GUEST = /^\/nodes\/\{node\}\/(qemu|lxc)\/\{vmid\}/;

/** The change a write makes, or undefined for a write nothing describes (change-preview-ops.ts lists the rest). */
export async function previewChange(input: PreviewInput): Promise<PlannedChange | undefined> {
  if (input.method === 'DELETE' && input.template === '/nodes/{node}/storage/{storage}/content/{volume}') return volumeDelete(input);
  const m = GUEST.exec(input.template);
  if (!m) return operationChange(input);
  const type = m[1] as 'qemu' | 'lxc';
  const rest = input.template.slice(m[0].length);
  const base = `/nodes/${encodeURIComponent(input.pathValues.node ?? '')}/${type}/${encodeURIComponent(input.pathValues.vmid ?? '')}`;
  const label = guestLabel(input, type);
  if (rest === '/config') return configChange(input, type, label, base);
  const power = /^\/status\/(start|stop|shutdown|reboot|suspend|resume|reset)$/.exec(rest)?.[1];
  if (power) return powerChange(input, power, label, base);
  if (rest === '/snapshot') return snapshotCreate(input, label);
  if (rest === '/snapshot/{snapname}' || rest === '/snapshot/{snapname}/rollback') return snapshotChange(input, label, base, rest.endsWith('/rollback'));
  return operationChange(input);
}

/** `app-02 (VM 112 on pve1)`; a container is a CT. */
function guestLabel(input: PreviewInput, type: 'qemu' | 'lxc'): string {
  const kind = type === 'lxc' ? 'CT' : 'VM';
  const name = input.target?.exists && input.target.name ? `${show(input.target.name)} ` : '';
  const node = input.pathValues.node !== undefined ? ` on ${show(input.pathValues.node)}` : '';
  return `${name}(${kind} ${show(input.pathValues.vmid ?? '?')}${node})`;
}

// ---- config writes -------------------------------------------------------------------------

/** Params of a config write that are not settings of the guest. */
const NOT_SETTINGS = new Set(['digest', 'delete', 'revert', 'skiplock', 'background_delay', 'force']);

/**
 * Which settings PVE applies to a running guest at once; every other changed key stays pending
 * until the guest restarts. The rule (documented in docs/security.md): a few keys that are only
 * metadata or host-side are always live; for a VM the guest's own `hotplug` setting (PVE's default
 * `network,disk,usb`) adds its NICs, disks, USB devices, memory and vCPUs; a container applies
 * its resource limits and NICs live. An approximation of PVE's own per-key logic, erring towards
 * "after a restart".
 */
const ALWAYS_LIVE = new Set(['name', 'description', 'tags', 'onboot', 'protection', 'startup', 'hookscript', 'lock']);
const QEMU_LIVE = new Set(['balloon', 'shares']);
const LXC_LIVE = new Set(['memory', 'swap', 'cores', 'cpulimit', 'cpuunits']);
const HOTPLUG_KEYS: Record<string, RegExp> = {
  network: /^net\d+$/,
  disk: /^(scsi|virtio|sata|ide)\d+$/,
  usb: /^usb\d+$/,
  memory: /^memory$/,
  cpu: /^vcpus$/,
};
const DEFAULT_HOTPLUG = 'network,disk,usb';

export function appliesLive(type: 'qemu' | 'lxc', key: string, config: Record<string, unknown> | undefined): boolean {
  if (ALWAYS_LIVE.has(key)) return true;
  if (type === 'lxc') return LXC_LIVE.has(key) || /^net\d+$/.test(key);
  if (QEMU_LIVE.has(key)) return true;
  const raw = typeof config?.hotplug === 'string' ? config.hotplug : DEFAULT_HOTPLUG;
  const hotplug = raw === '1' ? DEFAULT_HOTPLUG : raw === '0' ? '' : raw;
  return hotplug.split(',').some((h) => HOTPLUG_KEYS[h.trim()]?.test(key) ?? false);
}

async function configChange(input: PreviewInput, type: 'qemu' | 'lxc', label: string, base: string): Promise<PlannedChange> {
  const config = input.config;
  const set = Object.keys(input.params)
    .filter((k) => !NOT_SETTINGS.has(k))
    .sort();
  const deleted = [...new Set(listOf(input.params.delete))].sort().filter((k) => !set.includes(k));
  if (!config) {
    const keys = [...set, ...deleted];
    return {
      summary: `${label}: ${keys.length} setting${keys.length === 1 ? '' : 's'} change (${keys.map(show).join(', ') || 'none'}); the current values could not be read`,
      lines: [...set.map((k) => `${show(k)}: ? → ${value(k, input.params[k])}`), ...deleted.map((k) => `${show(k)}: ? → (deleted)`)],
    };
  }
  const running = await isRunning(input, base);
  const lines: string[] = [];
  const pending: string[] = [];
  const changed: string[] = [];
  const note = (k: string): string => {
    if (running !== true || appliesLive(type, k, config)) return '';
    pending.push(k);
    return ' (pending until restart)';
  };
  for (const k of set) {
    const now = Object.hasOwn(config, k) ? config[k] : undefined;
    const next = input.params[k];
    if (now !== undefined && String(now) === String(next)) {
      lines.push(`${show(k)}: ${value(k, now)} (unchanged)`);
      continue;
    }
    changed.push(k);
    lines.push(`${show(k)}: ${now === undefined ? '(not set)' : value(k, now)} → ${value(k, next)}${note(k)}`);
  }
  for (const k of deleted) {
    if (!Object.hasOwn(config, k)) {
      lines.push(`${show(k)}: (not set), nothing to delete`);
      continue;
    }
    changed.push(k);
    lines.push(`${show(k)}: ${value(k, config[k])} → (deleted)${note(k)}`);
  }
  const state = running === undefined ? '; whether it runs could not be read, so settings may wait for a restart' : '';
  return { summary: `${label}: ${configSummary(lines, changed, pending)}${state}`, lines };
}

function configSummary(lines: string[], changed: string[], pending: string[]): string {
  if (changed.length === 0) return 'no setting changes (the values are already set)';
  if (changed.length === 1) {
    const line = lines.find((l) => l.startsWith(`${show(changed[0] ?? '')}: `)) ?? '';
    // "memory: 4096 MiB → 8192 MiB (pending until restart)" reads as "memory 4096 MiB → 8192 MiB (after a restart)".
    return line.replace(/^([^:]*): /, '$1 ').replace(' (pending until restart)', ' (after a restart)');
  }
  const after = pending.length === 0 ? '' : pending.length === changed.length ? ', all after a restart' : `, ${pending.length} after a restart (${pending.map(show).join(', ')})`;
  return `${changed.length} settings change (${changed.map(show).join(', ')})${after}`;
}

const MIB_KEYS = new Set(['memory', 'balloon', 'swap']);

function value(key: string, v: unknown): string {
  const text = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  return `${show(text)}${MIB_KEYS.has(key) && /^\d+$/.test(text) ? ' MiB' : ''}`;
}

// ---- power actions -------------------------------------------------------------------------

const POWER_TARGET: Record<string, { to: string; how: string }> = {
  start: { to: 'running', how: 'start' },
  stop: { to: 'stopped', how: 'stop: power off at once, without a clean shutdown' },
  shutdown: { to: 'stopped', how: 'clean shutdown' },
  reboot: { to: 'running', how: 'reboot' },
  suspend: { to: 'paused', how: 'suspend' },
  resume: { to: 'running', how: 'resume' },
  reset: { to: 'running', how: 'reset: hard restart, without a clean shutdown' },
};

async function powerChange(input: PreviewInput, action: string, label: string, base: string): Promise<PlannedChange> {
  const target = POWER_TARGET[action] ?? { to: action, how: action };
  const to = action === 'suspend' && input.params.todisk !== undefined && String(input.params.todisk) !== '0' ? 'stopped (hibernated to disk)' : target.to;
  let from: string;
  try {
    const status = await input.read(`${base}/status/current`);
    const s = isPlainObject(status) ? status : {};
    from = typeof s.qmpstatus === 'string' && s.qmpstatus !== s.status ? `${show(String(s.status))} (${show(s.qmpstatus)})` : show(String(s.status ?? '?'));
  } catch {
    from = '? (the current state could not be read)';
  }
  const same = from === to && action !== 'reboot' && action !== 'reset' ? ` (already ${to})` : '';
  return { summary: `${label}: ${from} → ${to} (${target.how})${same}`, lines: [`state: ${from} → ${to}`] };
}

async function isRunning(input: PreviewInput, base: string): Promise<boolean | undefined> {
  try {
    const status = await input.read(`${base}/status/current`);
    return isPlainObject(status) ? status.status === 'running' : undefined;
  } catch {
    return undefined;
  }
}

// ---- snapshots -----------------------------------------------------------------------------

function snapshotCreate(input: PreviewInput, label: string): PlannedChange {
  const name = show(String(input.params.snapname ?? '?'));
  const ram = input.params.vmstate !== undefined && String(input.params.vmstate) !== '0' ? ' with its RAM state' : '';
  return { summary: `${label}: take snapshot '${name}'${ram}`, lines: [`snapshot '${name}': (none) → taken now${ram}`] };
}

async function snapshotChange(input: PreviewInput, label: string, base: string, rollback: boolean): Promise<PlannedChange> {
  const name = input.pathValues.snapname ?? '?';
  let about: string;
  try {
    const list = await input.read(`${base}/snapshot`);
    const snap = Array.isArray(list) ? list.find((s) => isPlainObject(s) && s.name === name) : undefined;
    if (!isPlainObject(snap)) about = `; it does not exist now, so PVE will refuse`;
    else {
      const taken = typeof snap.snaptime === 'number' ? ` taken ${new Date(snap.snaptime * 1000).toISOString().replace('.000Z', 'Z')}` : '';
      const parent = typeof snap.parent === 'string' ? `, parent '${show(snap.parent)}'` : ', no parent';
      about = `${taken}${parent}`;
    }
  } catch {
    about = '; the snapshot list could not be read';
  }
  const what = rollback ? `roll back to snapshot '${show(name)}'${about}: every change since then is lost` : `delete snapshot '${show(name)}'${about}`;
  return { summary: `${label}: ${what}`, lines: [rollback ? `state: current → snapshot '${show(name)}'` : `snapshot '${show(name)}' → (deleted)`] };
}

// ---- volumes -------------------------------------------------------------------------------

/** A volume delete names the volume: its kind, owner, size and, for a backup, when it was made. */
async function volumeDelete(input: PreviewInput): Promise<PlannedChange> {
  const { node = '?', storage = '?', volume = '?' } = input.pathValues;
  const label = `${show(node)} storage '${show(storage)}'`;
  const volid = volume.includes(':') ? volume : `${storage}:${volume}`;
  let about: string;
  try {
    const list = await input.read(`/nodes/${encodeURIComponent(node)}/storage/${encodeURIComponent(storage)}/content`);
    const vol = Array.isArray(list) ? list.find((v) => isPlainObject(v) && v.volid === volid) : undefined;
    if (!isPlainObject(vol)) about = `volume '${show(volid)}'; it does not exist now, so PVE will refuse`;
    else {
      const kind = vol.content === 'backup' ? 'backup' : vol.content === 'images' || vol.content === 'rootdir' ? 'disk image' : typeof vol.content === 'string' ? show(vol.content) : 'volume';
      const owner = typeof vol.vmid === 'number' ? ` of guest ${vol.vmid}` : '';
      const size = typeof vol.size === 'number' ? `, ${bytes(vol.size)}` : '';
      const made =
        typeof vol.ctime === 'number'
          ? `, made ${new Date(vol.ctime * 1000).toISOString().replace('.000Z', 'Z')}${vol.content === 'backup' ? ` (${age(vol.ctime, input.now ?? Date.now())})` : ''}`
          : '';
      about = `${kind} '${show(volid)}'${owner}${size}${made}`;
    }
  } catch {
    about = `volume '${show(volid)}'; the storage's content could not be read`;
  }
  return { summary: `${label}: delete ${about}`, lines: [`volume '${show(volid)}' → (deleted)`] };
}

/** A backup's age in whole days (hours under a day): coarse, so a plan shown and approved within the hour reads the same. */
function age(ctimeSec: number, nowMs: number): string {
  const hours = Math.max(0, Math.floor((nowMs / 1000 - ctimeSec) / 3600));
  if (hours < 24) return `${hours} hour${hours === 1 ? '' : 's'} old`;
  const days = Math.floor(hours / 24);
  return `${days} day${days === 1 ? '' : 's'} old`;
}

function bytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}

// ---- text ----------------------------------------------------------------------------------

/** Capped, with invisible characters shown as `\\u{…}` (the plan text's rule). */
function show(text: string): string {
  return visible(capString(text));
}
