/**
 * Blast radius of firewall changes that can cut the management path, and of applying a node's
 * network configuration. "The API node" is the node answering this server's requests: the
 * cluster status marks it `local`.
 *
 * The firewall rule modelled is the one that decides whether an operator keeps reaching the API
 * (port 8006) and SSH (22) from outside the cluster network: the firewall is on for the node when
 * it is on at the datacenter and not off for the node; inbound traffic then meets the node's and
 * the datacenter's rules, then the datacenter's input policy (DROP when unset). PVE always lets
 * the cluster's own network (the `management` IP set, or the local network) in, so "cut" means
 * cut for everyone else.
 */
import { type BlastItem, type BlastRadius, type BlastReads, plural } from './blast-radius.js';
import { guestConfig, guestDirectory, guestLabel, MAX_CONFIG_READS } from './blast-radius-guests.js';
import { SourceClassifier, type SourceReach } from './blast-radius-sources.js';
import { listOf } from '../pve/list-value.js';

const MGMT_PORTS = [8006, 22];

interface Rule {
  type?: unknown;
  action?: unknown;
  enable?: unknown;
  dport?: unknown;
  proto?: unknown;
  macro?: unknown;
  source?: unknown;
  iface?: unknown;
  pos?: unknown;
}

async function apiNode(r: BlastReads): Promise<{ node: string; ip?: string } | undefined> {
  const status = await r.list('/cluster/status');
  const local = status?.find((s) => s.type === 'node' && (s.local === 1 || s.local === true));
  return local && typeof local.name === 'string' ? { node: local.name, ...(typeof local.ip === 'string' ? { ip: local.ip } : {}) } : undefined;
}

/** Ports a rule's `dport` covers among 8006 and 22 (no dport: every port). */
function mgmtPortsOf(rule: Rule): number[] {
  if (rule.macro === 'SSH') return [22];
  if (rule.macro !== undefined && rule.macro !== '') return [];
  if (rule.dport === undefined || rule.dport === '') return rule.proto === 'udp' || rule.proto === 'icmp' ? [] : MGMT_PORTS;
  const out: number[] = [];
  for (const part of String(rule.dport).split(',')) {
    const [lo, hi] = part.split(/[:-]/).map((p) => Number(p.trim()));
    for (const port of MGMT_PORTS) if (lo !== undefined && port >= lo && port <= (hi ?? lo)) out.push(port);
  }
  return out;
}

const enabled = (rule: Rule): boolean => rule.enable === undefined || Number(rule.enable) === 1;
const inbound = (rule: Rule): boolean => rule.type === 'in' || rule.type === undefined;

const sourceOf = (rule: Rule): string | undefined => (typeof rule.source === 'string' && rule.source !== '' ? rule.source : undefined);

/**
 * Which of 8006/22 stay reachable, given the rules in order and the policy. A rule without a
 * source decides for everyone outside the cluster network; a DROP or REJECT whose source includes
 * or may include the management network (`sources`) decides for the operators too. An ACCEPT
 * with a source opens the port only for that source, so it does not count as open.
 */
function reachable(fwOn: boolean, rules: Rule[], policyIn: string, sources: ReadonlyMap<string, SourceReach>): Map<number, string> {
  const out = new Map<number, string>();
  for (const port of MGMT_PORTS) {
    if (!fwOn) {
      out.set(port, 'open (firewall off)');
      continue;
    }
    const decides = (r: Rule): boolean => {
      const src = sourceOf(r);
      return src === undefined || (String(r.action) !== 'ACCEPT' && (sources.get(src) ?? 'may') !== 'excludes');
    };
    const hit = rules.find((r) => enabled(r) && inbound(r) && mgmtPortsOf(r).includes(port) && decides(r));
    const src = hit ? sourceOf(hit) : undefined;
    if (hit && src !== undefined) {
      out.set(
        port,
        sources.get(src) === 'includes'
          ? `blocked for the management network by a ${String(hit.action)} rule from ${src}`
          : `blocked by a ${String(hit.action)} rule from ${src}, which may include the management network (counts as the worst case)`,
      );
    } else if (hit) out.set(port, String(hit.action) === 'ACCEPT' ? 'open (a rule accepts it)' : `blocked by a ${String(hit.action)} rule`);
    else out.set(port, policyIn === 'ACCEPT' ? 'open (input policy ACCEPT)' : `blocked by input policy ${policyIn}`);
  }
  return out;
}

/**
 * An object after a PUT: the keys set, and those `delete` names removed (back to their default:
 * deleting a rule's `source` opens it to everyone, deleting `policy_in` makes it DROP).
 */
function merged(base: object, params: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(params)) if (k !== 'delete' && k !== 'digest') out[k] = v;
  for (const k of listOf(params.delete)) delete out[k];
  return out;
}

/** The rule list after a rule write (insert at `pos`, change or remove the one at `{pos}`). */
function rulesAfter(rules: Rule[], method: string, pos: number | undefined, params: Record<string, unknown>): Rule[] {
  const next = rules.map((r) => ({ ...r }));
  if (method === 'POST') next.splice(typeof params.pos === 'number' ? params.pos : 0, 0, { ...params });
  else if (pos !== undefined && method === 'PUT' && params.moveto !== undefined && next[pos]) {
    // PVE moves the rule and ignores the other fields; as the simulator does, a later position counts before the removal.
    const [rule] = next.splice(pos, 1);
    const to = Number(params.moveto);
    next.splice(Math.min(to > pos ? to - 1 : to, next.length), 0, rule as Rule);
  } else if (pos !== undefined && method === 'PUT') next[pos] = merged(next[pos] ?? {}, params) as Rule;
  else if (pos !== undefined && method === 'DELETE') next.splice(pos, 1);
  return next;
}

/** Rules with each enabled `group` rule replaced by the security group's own rules, in place. */
async function expandGroups(r: BlastReads, rules: Rule[], edited?: { group: string; rules: Rule[] }): Promise<Rule[]> {
  const out: Rule[] = [];
  for (const rule of rules) {
    if (rule.type !== 'group') {
      out.push(rule);
      continue;
    }
    if (!enabled(rule)) continue;
    const name = String(rule.action);
    const members = edited?.group === name ? edited.rules : (((await r.list(`/cluster/firewall/groups/${encodeURIComponent(name)}`)) ?? []) as Rule[]);
    out.push(...members);
  }
  return out;
}

/**
 * A datacenter, node or security-group firewall write (rules or options): does 8006 or 22 on the
 * API node (or the node named) go from reachable to blocked for everyone outside the cluster
 * network? A security group counts where the datacenter's or the node's rules use it.
 */
export async function firewallRadius(
  r: BlastReads,
  scope: 'cluster' | { node: string } | { group: string },
  what: 'rules' | 'options',
  method: string,
  pos: number | undefined,
  params: Record<string, unknown>,
): Promise<BlastRadius> {
  const api = await apiNode(r);
  if (!api) r.incomplete('the cluster status names no local node: the API node is not known');
  const node = typeof scope === 'object' && 'node' in scope ? scope.node : api?.node;
  const dcOpts = (await r.object('/cluster/firewall/options')) ?? {};
  const dcRules = ((await r.list('/cluster/firewall/rules')) ?? []) as Rule[];
  const nodeOpts = node ? ((await r.object(`/nodes/${encodeURIComponent(node)}/firewall/options`)) ?? {}) : {};
  const nodeRules = node ? (((await r.list(`/nodes/${encodeURIComponent(node)}/firewall/rules`)) ?? []) as Rule[]) : [];
  const group = typeof scope === 'object' && 'group' in scope ? scope.group : undefined;
  const groupRules = group !== undefined ? (((await r.list(`/cluster/firewall/groups/${encodeURIComponent(group)}`)) ?? []) as Rule[]) : [];
  const edited = group !== undefined ? { group, rules: rulesAfter(groupRules, method, pos, params) } : undefined;
  const classifier = new SourceClassifier(r, api);
  const sources = new Map<string, SourceReach>();
  const state = async (dc: Record<string, unknown>, n: Record<string, unknown>, dcR: Rule[], nR: Rule[], g?: { group: string; rules: Rule[] }) => {
    const rules = [...(await expandGroups(r, nR, g)), ...(await expandGroups(r, dcR, g))];
    // Only sources that could decide a management port are resolved: those of enabled inbound DROP/REJECT rules on 8006 or 22.
    for (const rule of rules) {
      const src = sourceOf(rule);
      if (src !== undefined && !sources.has(src) && enabled(rule) && inbound(rule) && String(rule.action) !== 'ACCEPT' && mgmtPortsOf(rule).length > 0)
        sources.set(src, await classifier.classify(src));
    }
    return reachable(Number(dc.enable ?? 0) === 1 && Number(n.enable ?? 1) === 1, rules, String(dc.policy_in ?? 'DROP'), sources);
  };
  const before = await state(dcOpts, nodeOpts, dcRules, nodeRules);
  const cluster = scope === 'cluster';
  const onNode = typeof scope === 'object' && 'node' in scope;
  const after = await state(
    cluster && what === 'options' ? merged(dcOpts, params) : dcOpts,
    onNode && what === 'options' ? merged(nodeOpts, params) : nodeOpts,
    cluster && what === 'rules' ? rulesAfter(dcRules, method, pos, params) : dcRules,
    onNode && what === 'rules' ? rulesAfter(nodeRules, method, pos, params) : nodeRules,
    edited,
  );
  const items: BlastItem[] = [];
  const onApi = node !== undefined && node === api?.node;
  for (const port of MGMT_PORTS) {
    const b = before.get(port) ?? '?';
    const a = after.get(port) ?? '?';
    if (b === a) continue;
    const cut = a.startsWith('blocked') && !b.startsWith('blocked');
    items.push({
      kind: 'firewall',
      what: `port ${port} (${port === 8006 ? 'API and web UI' : 'SSH'}) on ${node ?? 'every node'}${onApi ? ', the API node' : ''}`,
      effect: `${b} → ${a}${cut ? (a.includes('management network') ? ': the operators lose it too' : ': only the cluster network still reaches it') : ''}`,
      severe: cut,
    });
  }
  const cuts = items.filter((i) => i.severe).length;
  const summary =
    cuts > 0
      ? `cuts the management path: ${plural(cuts, 'port')} of ${node ?? 'the nodes'} blocked from outside the cluster network`
      : items.length > 0
        ? 'changes how the management ports are reached, without blocking them'
        : `keeps ports 8006 and 22 of ${node ?? 'the nodes'} as reachable as they are`;
  return r.finish('firewall-management', summary, items);
}

/** `PUT /nodes/{node}/network`: every interface reloads; the one with the node's address and the bridges guests use are named. */
export async function networkApplyRadius(r: BlastReads, node: string): Promise<BlastRadius> {
  const api = await apiNode(r);
  const status = await r.list('/cluster/status');
  const ip = status?.find((s) => s.type === 'node' && s.name === node)?.ip;
  const ifaces = (await r.list(`/nodes/${encodeURIComponent(node)}/network`)) ?? [];
  const items: BlastItem[] = [];
  const isApi = api?.node === node;
  for (const i of ifaces) {
    const addr = typeof i.address === 'string' ? i.address : typeof i.cidr === 'string' ? i.cidr.split('/')[0] : undefined;
    if (addr !== undefined && addr === ip) {
      items.push({
        kind: 'interface',
        what: `${String(i.iface)} (${String(i.cidr ?? addr)})`,
        effect: `carries ${node}'s cluster and management address${isApi ? ', the node this server talks to' : ''}: a mistake in it cuts the API and corosync`,
        severe: true,
      });
    }
  }
  // GET shows the staged configuration (PVE's `interfaces.new`) when there is one. The textual
  // diff PVE sends beside it is not passed on by the client, so what the staged copy changes is
  // read from the copy itself: the cluster address gone from every interface, interfaces not up.
  if (typeof ip === 'string' && ifaces.length > 0 && !ifaces.some((i) => i.address === ip || (typeof i.cidr === 'string' && i.cidr.split('/')[0] === ip))) {
    items.push({
      kind: 'interface',
      what: `${node}'s cluster address ${ip}`,
      effect: `is on no interface of the staged configuration: applying it takes the address away, which cuts ${isApi ? 'this server off the API and ' : 'the API and '}corosync on ${node}`,
      severe: true,
    });
  }
  for (const i of ifaces) {
    // Only an interface the apply brings up (autostart) is reached; one left down stays as it is.
    if ((i.active === 0 || i.active === undefined) && Number(i.autostart) === 1)
      items.push({
        kind: 'interface',
        what: `${String(i.iface)}${typeof i.cidr === 'string' ? ` (${i.cidr})` : ''}`,
        effect: 'is not up now: applying brings it up (new or changed in the staged configuration)',
      });
  }
  const guests = ((await guestDirectory(r)) ?? []).filter((g) => g.node === node);
  const byBridge = new Map<string, string[]>();
  let read = 0;
  for (const g of guests) {
    if (++read > MAX_CONFIG_READS) {
      r.incomplete(`more than ${MAX_CONFIG_READS} guests on ${node}: the rest were not read`);
      break;
    }
    const config = await guestConfig(r, g);
    for (const [k, v] of Object.entries(config ?? {})) {
      if (!/^net\d+$/.test(k) || typeof v !== 'string') continue;
      const bridge = /(?:^|,)bridge=([^,]+)/.exec(v)?.[1];
      if (bridge) byBridge.set(bridge, [...(byBridge.get(bridge) ?? []), `${guestLabel({ vmid: g.vmid, type: g.type, ...(g.name ? { name: g.name } : {}) })} ${k}`]);
    }
  }
  for (const [bridge, nics] of [...byBridge].sort())
    items.push({
      kind: 'interface',
      what: `bridge ${bridge}`,
      effect: `${plural(nics.length, 'guest NIC')} on it lose traffic while it reloads: ${nics.slice(0, 8).join(', ')}${nics.length > 8 ? '…' : ''}`,
    });
  const nicCount = [...byBridge.values()].reduce((n, l) => n + l.length, 0);
  return r.finish('network-apply', `reloads ${plural(ifaces.length, 'interface')} of ${node}${isApi ? ', the API node' : ''}; ${plural(nicCount, 'guest NIC')} on its bridges`, items);
}
