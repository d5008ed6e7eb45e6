/**
 * What the writes beyond one guest change, read at plan time: bulk power actions and migrations
 * (the guests they reach, each with its state now), HA resource state changes, pool membership,
 * backups of a pool or of everything; and, for every other write the product knows, a deliberate
 * sentence from the operation itself (`OPERATION_SENTENCES`), with `key: current → new` where the
 * object can be read at its own path. A write with neither says nothing: the test over the
 * simulator's families (test/safety/plan-families.test.ts) fails on such a family.
 */
import { isPlainObject } from '../schema/schema-node.js';
import type { PlannedChange, PreviewInput } from './change-preview.js';
import { capString } from './caps.js';
import { visible } from './plan.js';
import { listOf } from '../pve/list-value.js';
import { vmidList } from './blast-radius-guests.js';

const show = (text: string): string => visible(capString(text));
const str = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v)));

interface Listed {
  vmid: number;
  type: string;
  node: string;
  name?: string;
  status?: string;
  template?: boolean;
  hastate?: string;
}

async function guests(input: PreviewInput): Promise<Listed[] | undefined> {
  try {
    const list = await input.read('/cluster/resources');
    if (!Array.isArray(list)) return undefined;
    return list
      .filter((x): x is Record<string, unknown> => isPlainObject(x) && (x.type === 'qemu' || x.type === 'lxc') && typeof x.vmid === 'number')
      .map((x) => ({
        vmid: x.vmid as number,
        type: String(x.type),
        node: String(x.node),
        ...(typeof x.name === 'string' ? { name: x.name } : {}),
        ...(typeof x.status === 'string' ? { status: x.status } : {}),
        ...(x.template === 1 ? { template: true } : {}),
        ...(typeof x.hastate === 'string' ? { hastate: x.hastate } : {}),
      }))
      .sort((a, b) => a.vmid - b.vmid);
  } catch {
    return undefined;
  }
}

const label = (g: Listed): string => `${g.name ? `${show(g.name)} ` : ''}(${g.type === 'lxc' ? 'CT' : 'VM'} ${g.vmid} on ${show(g.node)})`;

const BULK: Record<string, { to: string; how: string; from?: string }> = {
  startall: { to: 'running', how: 'start' },
  stopall: { to: 'stopped', how: 'shut down (powered off after the timeout unless force-stop is 0)', from: 'running' },
  suspendall: { to: 'suspended', how: 'suspend to disk', from: 'running' },
  start: { to: 'running', how: 'start' },
  shutdown: { to: 'stopped', how: 'shut down', from: 'running' },
  suspend: { to: 'suspended', how: 'suspend to disk', from: 'running' },
  migrateall: { to: 'moved', how: 'migrate' },
  migrate: { to: 'moved', how: 'migrate' },
};

/** Node and cluster bulk actions: every guest reached, with its state now → after. */
async function bulkChange(input: PreviewInput, action: string, node: string | undefined): Promise<PlannedChange> {
  const spec = BULK[action] ?? { to: action, how: action };
  const where = node ? `${show(node)}` : 'the cluster';
  const only = vmidList(input.params.vms);
  const all = await guests(input);
  if (!all)
    return {
      summary: `${spec.how} ${only.length > 0 ? `${only.length} listed guests` : `every guest of ${where}`}; the guests could not be read`,
      lines: only.map((v) => `VMID ${v}: ? → ${spec.to}`),
    };
  const target = typeof input.params.target === 'string' ? input.params.target : undefined;
  const reached = all.filter(
    (g) =>
      !g.template &&
      (node === undefined || g.node === node) &&
      (only.length === 0 || only.includes(g.vmid)) &&
      (spec.from === undefined || g.status === spec.from) &&
      (spec.to !== 'moved' || g.node !== target) &&
      (node !== undefined || only.length > 0 || g.hastate === undefined),
  );
  const lines = reached.map((g) => (spec.to === 'moved' ? `${label(g)}: ${show(g.node)} → ${show(target ?? '?')} (${g.status ?? '?'})` : `${label(g)}: ${g.status ?? '?'} → ${spec.to}`));
  const missing = only.filter((v) => !all.some((g) => g.vmid === v));
  for (const v of missing) lines.push(`VMID ${v}: no such guest now`);
  return {
    summary: `${spec.how} on ${where}${target ? ` to ${show(target)}` : ''}: ${reached.length} guest${reached.length === 1 ? '' : 's'} reached${
      reached.length > 0
        ? ` (${reached
            .slice(0, 5)
            .map((g) => (g.name ? show(g.name) : String(g.vmid)))
            .join(', ')}${reached.length > 5 ? ', …' : ''})`
        : ''
    }`,
    lines,
  };
}

/** An HA resource's requested state: now → new, and the guest's own state. */
async function haChange(input: PreviewInput, sid: string): Promise<PlannedChange> {
  const vmid = Number(/(\d+)$/.exec(sid)?.[1]);
  const g = (await guests(input))?.find((x) => x.vmid === vmid);
  let now = 'not HA-managed';
  if (input.method !== 'POST') {
    try {
      const res = await input.read(`/cluster/ha/resources/${encodeURIComponent(sid)}`);
      now = isPlainObject(res) && typeof res.state === 'string' ? res.state : '?';
    } catch {
      now = '? (could not be read)';
    }
  }
  const next = input.method === 'DELETE' ? 'not HA-managed' : typeof input.params.state === 'string' ? input.params.state : input.method === 'POST' ? 'started' : now;
  const who = g ? label(g) : `HA resource ${show(sid)}`;
  return { summary: `${who}: HA ${show(now)} → ${show(next)}${g?.status ? ` (the guest is ${g.status} now)` : ''}`, lines: [`HA state: ${show(now)} → ${show(next)}`] };
}

/** `PUT /pools/{poolid}` (or `/pools` with `poolid`): guests and storages joining or leaving. */
async function poolChange(input: PreviewInput, poolid: string): Promise<PlannedChange> {
  const leaving = input.params.delete === 1 || input.params.delete === true || input.params.delete === '1';
  const members = vmidList(input.params.vms);
  const all = await guests(input);
  const lines = members.map((v) => {
    const g = all?.find((x) => x.vmid === v);
    return `${g ? label(g) : `VMID ${v}`}: ${leaving ? `pool '${show(poolid)}' → (none)` : `→ pool '${show(poolid)}'`}`;
  });
  for (const s of listOf(input.params.storage)) lines.push(`storage '${show(s)}': ${leaving ? 'leaves' : 'joins'} the pool`);
  const comment = typeof input.params.comment === 'string' ? [`comment: → ${show(input.params.comment)}`] : [];
  return {
    summary: `pool '${show(poolid)}': ${lines.length} member${lines.length === 1 ? '' : 's'} ${leaving ? 'leave' : 'join'}${comment.length > 0 ? '; comment changes' : ''}`,
    lines: [...lines, ...comment],
  };
}

/** A backup of a pool or of every guest: which guests it covers now. */
async function backupChange(input: PreviewInput, node: string): Promise<PlannedChange> {
  const pool = typeof input.params.pool === 'string' ? input.params.pool : undefined;
  const listed = vmidList(input.params.vmid);
  const every = input.params.all === 1 || input.params.all === true || input.params.all === '1';
  const all = await guests(input);
  let reached: Listed[] | undefined;
  if (pool !== undefined) {
    try {
      const p = await input.read(`/pools/${encodeURIComponent(pool)}`);
      const ids = isPlainObject(p) && Array.isArray(p.members) ? p.members.map((m) => (isPlainObject(m) ? Number(m.vmid) : Number.NaN)) : [];
      reached = all?.filter((g) => ids.includes(g.vmid));
    } catch {
      reached = undefined;
    }
  } else reached = all?.filter((g) => g.node === node && (every || listed.includes(g.vmid)));
  const what = pool !== undefined ? `pool '${show(pool)}'` : every ? `every guest of ${show(node)}` : `${listed.length} listed guest${listed.length === 1 ? '' : 's'}`;
  const to = typeof input.params.storage === 'string' ? ` to storage '${show(input.params.storage)}'` : '';
  if (!reached) return { summary: `back up ${what}${to}; its guests could not be read`, lines: [] };
  return {
    summary: `back up ${what}${to}: ${reached.length} guest${reached.length === 1 ? '' : 's'}`,
    lines: reached.map((g) => `${label(g)}: a new backup (${input.params.mode ?? 'snapshot'} mode)`),
  };
}

/**
 * The deliberate sentence for every other write family: the object (from the template) and what
 * the method does to it. `read` marks objects whose current values can be read at their own path,
 * so a change shows `key: current → new` and a delete names what goes.
 */
export const OPERATION_SENTENCES: ReadonlyArray<{ path: RegExp; object: string; read?: boolean }> = [
  { path: /^\/cluster\/firewall\/(rules|groups\/\{group\})(\/\{pos\})?$/, object: 'firewall rule', read: true },
  { path: /^\/nodes\/\{node\}\/firewall\/rules(\/\{pos\})?$/, object: 'node firewall rule', read: true },
  { path: /^\/nodes\/\{node\}\/(qemu|lxc)\/\{vmid\}\/firewall\/rules(\/\{pos\})?$/, object: 'guest firewall rule', read: true },
  { path: /^\/cluster\/sdn\/vnets\/\{vnet\}\/firewall\/rules(\/\{pos\})?$/, object: 'VNet firewall rule', read: true },
  { path: /^\/cluster\/firewall\/groups(\/\{group\})?$/, object: 'firewall security group' },
  { path: /\/firewall\/options$/, object: 'firewall options', read: true },
  { path: /\/firewall\/aliases(\/\{name\})?$/, object: 'firewall alias', read: true },
  { path: /\/firewall\/ipset(\/\{name\})?(\/\{cidr\})?$/, object: 'firewall IP set', read: true },
  { path: /^\/cluster\/sdn$/, object: 'pending SDN configuration (applied to every node)' },
  { path: /^\/cluster\/sdn\/(zones|vnets)(\/\{(zone|vnet)\})?$/, object: 'SDN zone or VNet', read: true },
  { path: /^\/cluster\/sdn\/vnets\/\{vnet\}\/subnets(\/\{subnet\})?$/, object: 'SDN subnet', read: true },
  { path: /^\/cluster\/backup(\/\{id\})?$/, object: 'scheduled backup job', read: true },
  { path: /^\/cluster\/ha\/rules(\/\{rule\})?$/, object: 'HA rule', read: true },
  { path: /^\/storage(\/\{storage\})?$/, object: 'storage definition', read: true },
  { path: /^\/nodes\/\{node\}\/storage\/\{storage\}\/content(\/\{volume\})?$/, object: 'storage volume' },
  { path: /^\/nodes\/\{node\}\/storage\/\{storage\}\/prunebackups$/, object: 'backups beyond the keep rules (pruned)' },
  { path: /^\/nodes\/\{node\}\/storage\/\{storage\}\/download-url$/, object: 'file downloaded onto the storage' },
  { path: /^\/pools(\/\{poolid\})?$/, object: 'resource pool', read: true },
  { path: /^\/access\/users(\/\{userid\})?$/, object: 'user', read: true },
  { path: /^\/access\/users\/\{userid\}\/token\/\{tokenid\}$/, object: 'API token', read: true },
  { path: /^\/access\/acl$/, object: 'ACL entry' },
  { path: /^\/access\/ticket$/, object: 'login ticket (nothing in the cluster changes)' },
  { path: /^\/nodes\/\{node\}\/tasks\/\{upid\}$/, object: 'running task (stopped)' },
  { path: /^\/nodes\/\{node\}\/status$/, object: 'node power state' },
  { path: /^\/nodes\/\{node\}\/network$/, object: 'node network configuration (POST stages a new interface; PUT applies the staged changes, DELETE drops them)' },
  { path: /^\/nodes\/\{node\}\/network\/\{iface\}$/, object: 'staged network interface (running only once the node network is applied)', read: true },
  { path: /^\/nodes\/\{node\}\/(qemu|lxc)$/, object: 'new guest' },
  { path: /^\/nodes\/\{node\}\/(qemu|lxc)\/\{vmid\}$/, object: 'guest, with its disks' },
  { path: /^\/nodes\/\{node\}\/(qemu|lxc)\/\{vmid\}\/(clone|template|resize|move_disk|move_volume|migrate|remote_migrate|cloudinit)$/, object: 'guest' },
  { path: /^\/nodes\/\{node\}\/(qemu|lxc)\/\{vmid\}\/snapshot\/\{snapname\}\/config$/, object: 'snapshot notes', read: true },
  { path: /^\/nodes\/\{node\}\/(qemu|lxc)\/\{vmid\}\/agent\/(exec|ping)$/, object: 'command run inside the guest by its agent' },
];

const VERB: Record<string, string> = { POST: 'create or run', PUT: 'change', DELETE: 'delete' };
const NOT_SETTINGS = new Set(['digest', 'delete']);

/** Bulk, HA and pool writes first; then the listed sentence; undefined for a write nothing describes. */
export async function operationChange(input: PreviewInput): Promise<PlannedChange | undefined> {
  const t = input.template;
  const pv = input.pathValues;
  const bulk = /^\/nodes\/\{node\}\/(startall|stopall|suspendall|migrateall)$/.exec(t)?.[1] ?? /^\/cluster\/bulk-action\/guest\/(start|shutdown|suspend|migrate)$/.exec(t)?.[1];
  if (bulk) return bulkChange(input, bulk, pv.node);
  if (t === '/cluster/ha/resources' && input.method === 'POST') return haChange(input, str(input.params.sid ?? '?'));
  if (t === '/cluster/ha/resources/{sid}') return haChange(input, pv.sid ?? '?');
  if (input.method === 'PUT' && (t === '/pools/{poolid}' || t === '/pools')) return poolChange(input, pv.poolid ?? str(input.params.poolid ?? '?'));
  if (t === '/nodes/{node}/vzdump' && input.method === 'POST') return backupChange(input, pv.node ?? '?');
  const entry = OPERATION_SENTENCES.find((e) => e.path.test(t));
  if (!entry) return undefined;
  return sentence(input, entry.object, entry.read === true);
}

async function sentence(input: PreviewInput, object: string, readable: boolean): Promise<PlannedChange> {
  const names = Object.entries(input.pathValues)
    .map(([k, v]) => `${k} ${show(v)}`)
    .join(', ');
  const at = names ? ` (${names})` : '';
  const keys = Object.keys(input.params)
    .filter((k) => !NOT_SETTINGS.has(k))
    .sort();
  const verb = VERB[input.method] ?? input.method;
  let current: Record<string, unknown> | undefined;
  let unread = '';
  const hasObject = Object.keys(input.pathValues).some((k) => k !== 'node' && k !== 'vmid') || input.method !== 'POST';
  if (readable && hasObject && input.method !== 'POST') {
    try {
      const data = await input.read(concrete(input));
      current = isPlainObject(data) ? data : undefined;
    } catch {
      unread = '; its current values could not be read';
    }
  }
  const lines = keys.map((k) => {
    const now = current && Object.hasOwn(current, k) ? show(str(current[k])) : current ? '(not set)' : '?';
    // Only an object read at its own path has a current value to show; otherwise the line says what is set.
    return readable && input.method !== 'POST' ? `${show(k)}: ${now} → ${show(str(input.params[k]))}` : `${show(k)}: ${show(str(input.params[k]))}`;
  });
  for (const k of listOf(input.params.delete)) lines.push(`${show(k)}: ${current && Object.hasOwn(current, k) ? show(str(current[k])) : '?'} → (deleted)`);
  if (input.method === 'DELETE' && current) {
    const about = ['comment', 'type', 'action', 'schedule', 'storage', 'state'].filter((k) => current?.[k] !== undefined).map((k) => `${k} ${show(str(current?.[k]))}`);
    if (about.length > 0) lines.unshift(`deleted: ${about.join(', ')}`);
  }
  return {
    summary: `${verb} ${object}${at}${keys.length > 0 && input.method !== 'DELETE' ? `: ${keys.length} setting${keys.length === 1 ? '' : 's'} (${keys.map(show).join(', ')})` : ''}${unread}`,
    lines,
  };
}

function concrete(input: PreviewInput): string {
  return input.template.replace(/\{([^}]+)\}/g, (_, k: string) => encodeURIComponent(input.pathValues[k] ?? ''));
}
