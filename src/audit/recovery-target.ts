/**
 * What an orphan intent names, from its path and parameters alone: its node and guest, the task
 * types PVE gives the operation, and the state on PVE that shows whether the change was made. Kept
 * apart from reading PVE (recovery-evidence.ts) so that what is looked for is decided before, and
 * without, any request.
 */
import type { IntentToRecover } from './recovery.js';

type GuestType = 'qemu' | 'lxc';

interface Guest {
  type: GuestType;
  vmid: number;
}

export type StateCheck =
  | { kind: 'gone'; path: string; what: string }
  | { kind: 'config'; path: string; what: string; set: Record<string, string>; remove: string[] }
  | { kind: 'snapshot'; path: string; what: string; name: string };

/** What the intent names, derived from its path and parameters alone. */
export interface Target {
  node?: string;
  guest?: Guest;
  /** Task types consistent with the operation; undefined when the path does not tell. */
  taskTypes?: string[];
  returnsTask: boolean;
  state?: StateCheck;
}

export function segmentsOf(path: string): string[] {
  const bare = path.split('?')[0] ?? '';
  return bare
    .replace(/^\/api2\/json(?=\/)/, '')
    .split('/')
    .filter((s) => s !== '')
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
}

const CONFIG_CONTROL_KEYS = new Set(['node', 'vmid', 'digest', 'delete', 'revert', 'skiplock', 'background_delay', 'force']);

export function describeTarget(intent: IntentToRecover): Target {
  const seg = segmentsOf(intent.path);
  const node = intent.node ?? (seg[0] === 'nodes' ? seg[1] : undefined);
  const kind = seg[2];
  const guestType: GuestType | undefined = seg[0] === 'nodes' && (kind === 'qemu' || kind === 'lxc') ? kind : undefined;
  const pathVmid = guestType && seg[3] !== undefined && /^\d+$/.test(seg[3]) ? Number(seg[3]) : undefined;
  const paramVmid = typeof intent.params.vmid === 'number' || (typeof intent.params.vmid === 'string' && /^\d+$/.test(intent.params.vmid)) ? Number(intent.params.vmid) : undefined;
  let guest: Guest | undefined;
  let taskTypes: string[] | undefined;
  let state: StateCheck | undefined;
  if (guestType && pathVmid !== undefined) {
    guest = { type: guestType, vmid: pathVmid };
    taskTypes = guestTaskTypes(intent.method, guestType, seg.slice(4));
    state = guestState(intent, guest, seg.slice(4));
  } else if (guestType && seg.length === 3 && intent.method === 'POST') {
    // Creating (or restoring) a guest: the new guest's ID is a parameter.
    if (paramVmid !== undefined) guest = { type: guestType, vmid: paramVmid };
    const p = guestType === 'qemu' ? 'qm' : 'vz';
    taskTypes = [`${p}create`, `${p}restore`];
  } else if (seg[0] === 'nodes' && seg[2] === 'vzdump' && seg.length === 3 && intent.method === 'POST') {
    taskTypes = ['vzdump'];
  }
  if (!state && intent.method === 'DELETE') state = { kind: 'gone', path: intent.path, what: `${intent.path}` };
  const returnsTask = intent.returnsTask ?? taskTypes !== undefined;
  return { ...(node ? { node } : {}), ...(guest ? { guest } : {}), ...(taskTypes ? { taskTypes } : {}), returnsTask, ...(state ? { state } : {}) };
}

/** Task types PVE's qemu-server and pve-container give the operation below `/nodes/{node}/{type}/{vmid}`. */
function guestTaskTypes(method: string, type: GuestType, rest: string[]): string[] | undefined {
  const p = type === 'qemu' ? 'qm' : 'vz';
  const [a, b, c] = rest;
  if (rest.length === 0) return method === 'DELETE' ? [`${p}destroy`] : undefined;
  if (method === 'DELETE') return a === 'snapshot' && rest.length === 2 ? [`${p}delsnapshot`] : undefined;
  if (method === 'POST' && a === 'snapshot') {
    if (rest.length === 1) return [`${p}snapshot`];
    if (rest.length === 3 && c === 'rollback') return [`${p}rollback`];
    return undefined;
  }
  if (method === 'POST' && a === 'status' && b !== undefined && rest.length === 2) {
    // A VM suspended without saving its RAM is a pause; an HA-managed guest starts and stops
    // through the HA manager (hastart/hastop on the guest).
    if (type === 'qemu' && b === 'suspend') return ['qmsuspend', 'qmpause'];
    if (b === 'start') return [`${p}start`, 'hastart'];
    if (b === 'stop' || b === 'shutdown') return [`${p}${b}`, 'hastop'];
    return [`${p}${b}`];
  }
  if (rest.length !== 1) return undefined;
  if (method === 'PUT') return a === 'resize' ? ['resize'] : undefined;
  if (method !== 'POST') return undefined;
  switch (a) {
    case 'clone':
    case 'template':
      return [`${p}${a}`];
    case 'migrate':
      return [type === 'qemu' ? 'qmigrate' : 'vzmigrate', 'hamigrate'];
    case 'config':
      return type === 'qemu' ? ['qmconfig'] : undefined;
    case 'move_disk':
      return ['qmmove'];
    case 'move_volume':
      return ['move_volume'];
    default:
      return undefined;
  }
}

export function guestName(g: Guest): string {
  return `${g.type === 'qemu' ? 'VM' : 'CT'} ${g.vmid}`;
}

function guestState(intent: IntentToRecover, g: Guest, rest: string[]): StateCheck | undefined {
  const base = intent.path.split('?')[0]?.replace(/\/+$/, '') ?? intent.path;
  if (rest.length === 1 && rest[0] === 'config' && intent.method !== 'DELETE') {
    const set: Record<string, string> = {};
    for (const [k, v] of Object.entries(intent.params)) {
      if (!CONFIG_CONTROL_KEYS.has(k) && v !== undefined && v !== null) set[k] = wireValue(v);
    }
    const remove = listOf(intent.params.delete);
    if (Object.keys(set).length === 0 && remove.length === 0) return undefined;
    return { kind: 'config', path: base, what: `the config of ${guestName(g)}`, set, remove };
  }
  if (rest.length === 1 && rest[0] === 'snapshot' && intent.method === 'POST' && typeof intent.params.snapname === 'string') {
    return { kind: 'snapshot', path: base, what: `snapshot '${intent.params.snapname}' of ${guestName(g)}`, name: intent.params.snapname };
  }
  if (intent.method === 'DELETE') {
    const what = rest.length === 0 ? guestName(g) : rest[0] === 'snapshot' && rest.length === 2 ? `snapshot '${rest[1]}' of ${guestName(g)}` : base;
    return { kind: 'gone', path: base, what };
  }
  return undefined;
}

/** A parameter as PVE stores it in a config: booleans as 1/0, numbers as their decimal text. */
export function wireValue(v: unknown): string {
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (typeof v === 'string' || typeof v === 'number') return String(v);
  return JSON.stringify(v);
}

function listOf(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String).filter((s) => s !== '');
  if (typeof v === 'string') return v.split(/[\s,;]+/).filter((s) => s !== '');
  return [];
}
