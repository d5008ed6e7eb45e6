/**
 * Blast radius of HA changes and migrations: what moves where, what the HA manager will start or
 * stop, which local disks are copied on the way.
 */
import { type BlastItem, type BlastRadius, type BlastReads, plural } from './blast-radius.js';
import { bytes, disksOf, type GuestEntry, guestConfig, guestDirectory, guestLabel, vmidList } from './blast-radius-guests.js';
import { listOf } from '../pve/list-value.js';

async function sharedStorages(r: BlastReads): Promise<Set<string> | undefined> {
  const defs = await r.list('/storage');
  return defs ? new Set(defs.filter((d) => d.shared === 1 || d.shared === true).map((d) => String(d.storage))) : undefined;
}

/** One guest's migration: from → to, online or not, local disks copied, HA taking over. */
async function moveItems(r: BlastReads, g: GuestEntry, target: string, params: Record<string, unknown>, shared: Set<string> | undefined, haSids: Set<string>): Promise<BlastItem[]> {
  const items: BlastItem[] = [];
  const running = g.status === 'running';
  const online = params.online === 1 || params.online === true || params.online === '1';
  const how = !running ? 'offline' : g.type === 'lxc' ? 'with a restart (containers do not move live)' : online ? 'live' : 'refused while it runs unless online is set';
  const sid = `${g.type === 'lxc' ? 'ct' : 'vm'}:${g.vmid}`;
  items.push({
    kind: 'guest',
    what: guestLabel(g),
    effect: `moves ${g.node} → ${target} (${how})${haSids.has(sid) ? '; HA-managed: the HA manager carries out the move' : ''}`,
    vmid: g.vmid,
    severe: running && g.type === 'lxc',
  });
  const config = await guestConfig(r, g);
  const local = config && shared ? disksOf(g.type, config).filter((d) => !shared.has(d.storage)) : [];
  if (local.length > 0) items.push({ kind: 'disk', what: `${guestLabel(g)} local disks`, effect: `copied to ${target}: ${local.map((d) => `${d.key} ${bytes(d.size)}`).join(', ')}`, vmid: g.vmid });
  return items;
}

async function haSidSet(r: BlastReads): Promise<Set<string>> {
  return new Set(((await r.list('/cluster/ha/resources')) ?? []).map((h) => String(h.sid)));
}

/** A single guest's `migrate`. */
export async function migrateRadius(r: BlastReads, g: GuestEntry, params: Record<string, unknown>): Promise<BlastRadius> {
  const target = String(params.target ?? '?');
  const items = await moveItems(r, g, target, params, await sharedStorages(r), await haSidSet(r));
  return r.finish('migration', `${guestLabel(g)} moves ${g.node} → ${target}`, items);
}

/** `migrateall` on a node and the bulk migrate: each guest it reaches, read now, and where it goes. */
export async function bulkMigrateRadius(r: BlastReads, node: string | undefined, params: Record<string, unknown>): Promise<BlastRadius> {
  const target = String(params.target ?? '?');
  const only = vmidList(params.vms);
  const guests = ((await guestDirectory(r)) ?? []).filter((g) => (node === undefined || g.node === node) && (only.length === 0 || only.includes(g.vmid)) && g.node !== target && !g.template);
  const shared = await sharedStorages(r);
  const ha = await haSidSet(r);
  const items: BlastItem[] = [];
  for (const g of guests) items.push(...(await moveItems(r, g, target, { online: 1, ...params }, shared, ha)));
  return r.finish('migration', `${plural(guests.length, 'guest')} move${guests.length === 1 ? 's' : ''} to ${target}${node ? ` from ${node}` : ''}`, items);
}

const HA_EFFECT: Record<string, string> = {
  started: 'the HA manager starts it and keeps it running (restarts or relocates it after a failure)',
  stopped: 'the HA manager stops it and keeps it stopped',
  disabled: 'the HA manager stops it and no longer recovers it',
  ignored: 'the HA manager leaves it alone',
  enabled: 'the HA manager starts it and keeps it running (restarts or relocates it after a failure)',
};

/** HA resource writes: which guest, its state now, what the HA manager will do. */
export async function haResourceRadius(r: BlastReads, method: string, sid: string, params: Record<string, unknown>): Promise<BlastRadius> {
  const m = /^(?:(vm|ct):)?(\d+)$/.exec(sid);
  const vmid = Number(m?.[2]);
  const g = (await guestDirectory(r))?.find((x) => x.vmid === vmid);
  const now = method === 'POST' ? undefined : await r.object(`/cluster/ha/resources/${encodeURIComponent(sid)}`);
  const items: BlastItem[] = [];
  const what = g ? guestLabel(g) : `VMID ${vmid}`;
  const status = g?.status ?? 'unknown state';
  if (method === 'DELETE') {
    items.push({ kind: 'ha', what, effect: `no longer HA-managed (was ${String(now?.state ?? '?')}); it stays ${status}, and nothing restarts it after a node failure`, vmid });
  } else {
    const state = typeof params.state === 'string' ? params.state : method === 'POST' ? 'started' : String(now?.state ?? 'started');
    const wasState = now ? String(now.state ?? '?') : 'not HA-managed';
    const moves =
      (state === 'started' || state === 'enabled') && status !== 'running'
        ? ' — it will be started'
        : (state === 'stopped' || state === 'disabled') && status === 'running'
          ? ' — it will be stopped'
          : '';
    items.push({ kind: 'ha', what, effect: `${wasState} → ${state}: ${HA_EFFECT[state] ?? state}${moves} (now ${status})`, vmid, severe: moves.includes('stopped') });
  }
  return r.finish('ha-change', items[0] ? `${items[0].what}: ${items[0].effect}` : sid, items);
}

/** HA rule writes: node affinity that makes guests move, or a constraint lifted. */
export async function haRuleRadius(r: BlastReads, method: string, rule: string | undefined, params: Record<string, unknown>): Promise<BlastRadius> {
  // A new rule has nothing to read yet (PVE refuses a POST for a rule that exists).
  const current = rule && method !== 'POST' ? await r.object(`/cluster/ha/rules/${encodeURIComponent(rule)}`) : undefined;
  const merged = { ...(current ?? {}), ...params };
  const resources = listOf(merged.resources);
  const nodes = listOf(merged.nodes).map((n) => n.split(':')[0] ?? n);
  const guests = (await guestDirectory(r)) ?? [];
  const items: BlastItem[] = [];
  for (const sid of resources) {
    const g = guests.find((x) => x.vmid === Number(sid.replace(/^(vm|ct):/, '')));
    if (!g) continue;
    if (method === 'DELETE') items.push({ kind: 'guest', what: guestLabel(g), effect: `no longer bound by rule '${rule ?? '?'}': the HA manager may place it anywhere` });
    else if (merged.type === 'node-affinity' && nodes.length > 0 && !nodes.includes(g.node)) {
      const strict = Number(merged.strict ?? 0) === 1;
      items.push({
        kind: 'guest',
        what: guestLabel(g),
        effect: `runs on ${g.node}, outside ${nodes.join('|')}: the HA manager moves it there${strict ? ' (strict)' : ''}`,
        vmid: g.vmid,
        severe: g.status === 'running',
      });
    } else items.push({ kind: 'guest', what: guestLabel(g), effect: `stays on ${g.node}` });
  }
  const moving = items.filter((i) => i.effect.includes('moves it')).length;
  return r.finish('ha-change', `${method === 'DELETE' ? `rule '${rule ?? '?'}' removed` : `rule covers ${plural(resources.length, 'resource')}`}; ${plural(moving, 'guest')} will move`, items);
}
