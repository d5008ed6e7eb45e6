/**
 * Firewall rules for every scope PVE has (the other firewall sections are in firewall-sections.ts):
 * the datacenter (`/cluster/firewall`), each node, each guest and each SDN vnet. Rules are kept
 * in order (`pos` is the index); every change names the digest of the file it read, as PVE's
 * `assert_if_modified`. Rule fields are checked as PVE's parser does: known macros, protocols that
 * allow ports, IP sets and aliases that exist.
 */
import type { SchemaNode } from '../../../schema/model.js';
import type { SimEndpoint, SimPermissions, SimRequestContext } from '../../contract.js';
import { assertUnmodified, fail, paramError } from '../errors.js';
import { firewallOf, FW_MACROS, FW_PROTOCOLS, type FwGroup, type FwRule, type FwScope, groupsDigest, guestFirewall, nodeFirewall, scopeDigest, vnetFirewall } from '../firewall.js';
import type { ClusterState } from '../state.js';
import type { GuestType } from '../types.js';
import { changeOperations } from './change.js';
import { DIGEST, firewallGroup, type Json, LOG_LEVELS, NAME_RULES, vnetFirewallCheck } from './firewall-shared.js';
import { list, optInt, optStr, reqInt, reqStr } from './params.js';
import { arr, int, obj, opt, P, perm, str } from './schema.js';

const LOG = opt(str('Log level for packets this rule matches.', { enum: LOG_LEVELS }));
const RULE_FIELDS: Record<string, SchemaNode> = {
  action: str('ACCEPT, DROP or REJECT, or the security group for group rules.', { pattern: '[A-Za-z][A-Za-z0-9\\-\\_]+', minLength: 2, maxLength: 20 }),
  type: str('Direction, or `group` to include a security group.', { enum: ['in', 'out', 'forward', 'group'] }),
  comment: opt(str('Free-form note.')),
  dest: opt(str('Destination: address, network, alias or +IP set.', { format: 'pve-fw-addr-spec', maxLength: 512 })),
  dport: opt(str('Destination port(s) or service name(s).', { format: 'pve-fw-dport-spec' })),
  enable: opt(int('1 when the rule is active.', { minimum: 0 })),
  'icmp-type': opt(str('ICMP type, with proto icmp.', { format: 'pve-fw-icmp-type-spec' })),
  iface: opt(str('Network interface the rule applies to (net0…).', { format: 'pve-iface', minLength: 2, maxLength: 20 })),
  log: LOG,
  macro: opt(str('Predefined service the rule opens (SSH, HTTP…).', { maxLength: 128 })),
  proto: opt(str('IP protocol by name or number.', { format: 'pve-fw-protocol-spec' })),
  source: opt(str('Source: address, network, alias or +IP set.', { format: 'pve-fw-addr-spec', maxLength: 512 })),
  sport: opt(str('Source port(s).', { format: 'pve-fw-sport-spec' })),
};
const RULE = obj({
  pos: int('Position of the rule (0 is evaluated first).'),
  type: str('Direction, or group.'),
  action: str('Verdict or security group.'),
  comment: opt(str('Note.')),
  dest: opt(str('Destination.')),
  dport: opt(str('Destination ports.')),
  enable: opt(int('1 when active.')),
  'icmp-type': opt(str('ICMP type.')),
  iface: opt(str('Interface.')),
  ipversion: opt(int('4 or 6 when addresses pin the IP version.')),
  log: opt(str('Log level.', { enum: LOG_LEVELS })),
  macro: opt(str('Macro.')),
  proto: opt(str('Protocol.')),
  source: opt(str('Source.')),
  sport: opt(str('Source ports.')),
});
const POS = int('Position of the rule in the list.', { minimum: 0 });

function ipversion(v: string | undefined): number | undefined {
  if (!v || v.startsWith('+')) return undefined;
  if (v.includes(':')) return 6;
  if (/^\d+\.\d+\.\d+\.\d+/.test(v)) return 4;
  return undefined;
}

function ruleView(r: FwRule, pos: number, digest: string): Json {
  const v = ipversion(r.source) ?? ipversion(r.dest);
  return { pos, ...r, ...(v ? { ipversion: v } : {}), digest };
}

/** One scope of firewall rules: where it lives, who may read and change it. */
interface RuleScope {
  base: string;
  whose: string;
  context: Record<string, SchemaNode>;
  audit: SimPermissions;
  modify: SimPermissions;
  /** Extra check inside the handler (vnets check SDN privileges there, as PVE does). */
  check?(ctx: SimRequestContext, write: boolean): void;
  /** The rule list and the digest guarding it. */
  rules(ctx: SimRequestContext): { rules: FwRule[]; digest: () => string };
  /** Rule types this scope allows. */
  types: string[];
  /** IP set and alias names visible here (`+dc/name`, `guest/name`…). */
  known(ctx: SimRequestContext): { ipsets: Set<string>; aliases: Set<string> };
}

export function firewallEndpoints(state: ClusterState): SimEndpoint[] {
  const fw = () => firewallOf(state);
  const clusterKnown = (): { ipsets: Set<string>; aliases: Set<string> } => ({
    ipsets: new Set([...state.ipsets.keys()].flatMap((n) => [n, `dc/${n}`])),
    aliases: new Set([...fw().cluster.aliases.keys()].flatMap((n) => [n, `dc/${n}`])),
  });
  const guestKnown = (vmid: number) => {
    const k = clusterKnown();
    for (const n of state.guestIpsets(vmid).keys()) {
      k.ipsets.add(n);
      k.ipsets.add(`guest/${n}`);
    }
    for (const n of guestFirewall(state, vmid).aliases.keys()) {
      k.aliases.add(n);
      k.aliases.add(`guest/${n}`);
    }
    return k;
  };
  const scopeRules = (scope: () => FwScope) => () => {
    const s = scope();
    return { rules: s.rules, digest: () => scopeDigest(s) };
  };

  const vnetCheck = vnetFirewallCheck(state);
  const group = (name: string): FwGroup => firewallGroup(state, name);
  const scopes: RuleScope[] = [
    {
      base: '/cluster/firewall/rules',
      whose: 'the datacenter',
      context: {},
      audit: { check: perm('/', ['Sys.Audit']) },
      modify: { check: perm('/', ['Sys.Modify']) },
      rules: () => scopeRules(() => fw().cluster)(),
      types: ['in', 'out', 'forward', 'group'],
      known: clusterKnown,
    },
    {
      base: '/cluster/firewall/groups/{group}',
      whose: 'a security group',
      context: { group: str('Security group name.', { ...NAME_RULES, maxLength: 18 }) },
      audit: { check: perm('/', ['Sys.Audit']) },
      modify: { check: perm('/', ['Sys.Modify']) },
      rules: (ctx) => {
        const g = group(reqStr(ctx, 'group'));
        return { rules: g.rules, digest: () => groupsDigest(fw()) };
      },
      types: ['in', 'out', 'forward'],
      known: clusterKnown,
    },
    {
      base: '/nodes/{node}/firewall/rules',
      whose: "the node's",
      context: { node: P.node },
      audit: { check: perm('/nodes/{node}', ['Sys.Audit']) },
      modify: { check: perm('/nodes/{node}', ['Sys.Modify']) },
      rules: (ctx) => {
        const node = reqStr(ctx, 'node');
        state.node(node);
        return scopeRules(() => nodeFirewall(state, node))();
      },
      types: ['in', 'out', 'forward', 'group'],
      known: clusterKnown,
    },
    ...(['qemu', 'lxc'] as GuestType[]).map(
      (type): RuleScope => ({
        base: `/nodes/{node}/${type}/{vmid}/firewall/rules`,
        whose: "the guest's",
        context: { node: P.node, vmid: P.vmid },
        audit: { check: perm('/vms/{vmid}', ['VM.Audit']) },
        modify: { check: perm('/vms/{vmid}', ['VM.Config.Network']) },
        rules: (ctx) => scopeRules(() => guestFirewall(state, reqInt(ctx, 'vmid')))(),
        types: ['in', 'out', 'group'],
        known: (ctx) => guestKnown(reqInt(ctx, 'vmid')),
      }),
    ),
    {
      base: '/cluster/sdn/vnets/{vnet}/firewall/rules',
      whose: "the vnet's",
      context: { vnet: str('SDN vnet name.', { format: 'pve-sdn-vnet-id' }) },
      audit: { user: 'all', description: 'SDN.Audit on the vnet (checked by the handler).' },
      modify: { user: 'all', description: 'SDN.Allocate on the vnet (checked by the handler).' },
      check: vnetCheck,
      rules: (ctx) => scopeRules(() => vnetFirewall(state, reqStr(ctx, 'vnet')))(),
      types: ['forward'],
      known: clusterKnown,
    },
  ];

  /** PVE's rule checks: action by type, known macro, ports only with a port protocol, references that exist. */
  function checkRule(scope: RuleScope, ctx: SimRequestContext, r: FwRule): void {
    if (!scope.types.includes(r.type)) throw paramError('type', `security groups and rules of type '${r.type}' are not allowed here`);
    if (r.type === 'group') {
      if (!fw().groups.has(r.action)) throw paramError('action', `security group '${r.action}' does not exist`);
    } else if (!['ACCEPT', 'DROP', 'REJECT'].includes(r.action)) {
      throw paramError('action', `unknown action '${r.action}'`);
    }
    if (r.macro !== undefined && !FW_MACROS.some((m) => m.macro.toLowerCase() === r.macro?.toLowerCase())) throw paramError('macro', `unknown macro '${r.macro}'`);
    if (r.proto !== undefined && !FW_PROTOCOLS.includes(r.proto) && !/^\d+$/.test(r.proto)) throw paramError('proto', `unknown protocol '${r.proto}'`);
    if ((r.dport !== undefined || r.sport !== undefined) && r.macro === undefined && !['tcp', 'udp', 'sctp', 'udplite', '6', '17'].includes(r.proto ?? '')) {
      throw paramError(r.dport !== undefined ? 'dport' : 'sport', 'protocol does not support ports');
    }
    if (r['icmp-type'] !== undefined && !['icmp', 'ipv6-icmp', 'icmpv6'].includes(r.proto ?? '')) throw paramError('icmp-type', "proto must be 'icmp' or 'ipv6-icmp'");
    const known = scope.known(ctx);
    for (const field of ['source', 'dest'] as const) {
      const v = r[field];
      if (v === undefined) continue;
      for (const part of v.split(',')) {
        if (part.startsWith('+')) {
          if (!known.ipsets.has(part.slice(1))) throw paramError(field, `no such ipset '${part.slice(1)}'`);
        } else if (/^[A-Za-z]/.test(part) && !part.includes(':')) {
          if (!known.aliases.has(part.toLowerCase())) throw paramError(field, `no such alias '${part}'`);
        }
      }
    }
  }

  const ruleFrom = (ctx: SimRequestContext, base?: FwRule): FwRule => {
    const out: Record<string, unknown> = { ...(base ?? {}) };
    for (const key of list(ctx.params.delete)) delete out[key];
    for (const key of Object.keys(RULE_FIELDS)) {
      const v = ctx.params[key];
      if (v !== undefined) out[key] = key === 'enable' ? Number(v) : String(v);
    }
    return out as unknown as FwRule;
  };

  const ruleOps = (scope: RuleScope): SimEndpoint[] => {
    const proxied = scope.base.startsWith('/nodes/{node}/firewall');
    const plain = changeOperations(scope.modify);
    const change: typeof plain = (...args) => ({ ...plain(...args), ...(proxied ? { proxyto: 'node' as const } : {}) });
    const read = (ctx: SimRequestContext) => {
      scope.check?.(ctx, false);
      return scope.rules(ctx);
    };
    const write = (ctx: SimRequestContext) => {
      scope.check?.(ctx, true);
      const r = scope.rules(ctx);
      assertUnmodified(r.digest(), optStr(ctx, 'digest'));
      return r;
    };
    const at = (rules: FwRule[], pos: number): FwRule => {
      const r = rules[pos];
      if (!r) throw fail(`no rule at position ${pos}`);
      return r;
    };
    return [
      {
        method: 'GET',
        path: scope.base,
        description: `The rules of ${scope.whose} firewall, in evaluation order.`,
        parameters: { ...scope.context },
        returns: arr(RULE, { links: [{ rel: 'child', href: '{pos}' }] }),
        permissions: scope.audit,
        ...(scope.base.startsWith('/nodes/{node}/firewall') ? { proxyto: 'node' as const } : {}),
        handler: (ctx) => {
          const { rules, digest } = read(ctx);
          const d = digest();
          return rules.map((r, i) => ruleView(r, i, d));
        },
      },
      change(
        'POST',
        scope.base,
        `Add a rule to ${scope.whose} firewall that accepts, drops or rejects traffic (at pos, or on top).`,
        { ...scope.context, ...RULE_FIELDS, pos: opt(POS), digest: DIGEST },
        (ctx) => {
          const { rules } = write(ctx);
          const rule = ruleFrom(ctx);
          checkRule(scope, ctx, rule);
          const pos = Math.min(optInt(ctx, 'pos') ?? 0, rules.length);
          rules.splice(pos, 0, rule);
          return null;
        },
      ),
      {
        method: 'GET',
        path: `${scope.base}/{pos}`,
        description: `One rule of ${scope.whose} firewall.`,
        parameters: { ...scope.context, pos: int('Position of the rule in the list.') },
        returns: RULE,
        permissions: scope.audit,
        ...(scope.base.startsWith('/nodes/{node}/firewall') ? { proxyto: 'node' as const } : {}),
        handler: (ctx) => {
          const { rules, digest } = read(ctx);
          const pos = reqInt(ctx, 'pos');
          return ruleView(at(rules, pos), pos, digest());
        },
      },
      change(
        'PUT',
        `${scope.base}/{pos}`,
        `Change or move (moveto) a rule of ${scope.whose} firewall; delete removes fields.`,
        {
          ...scope.context,
          pos: int('Position of the rule in the list.'),
          ...Object.fromEntries(Object.entries(RULE_FIELDS).map(([k, v]) => [k, opt(v)])),
          moveto: opt(int('Move the rule to this position.', { minimum: 0 })),
          delete: opt(str('Fields to remove.', { format: 'pve-configid-list' })),
          digest: DIGEST,
        },
        (ctx) => {
          const { rules } = write(ctx);
          const pos = reqInt(ctx, 'pos');
          const rule = at(rules, pos);
          const moveto = optInt(ctx, 'moveto');
          if (moveto !== undefined) {
            rules.splice(pos, 1);
            rules.splice(Math.min(moveto > pos ? moveto - 1 : moveto, rules.length), 0, rule);
            return null;
          }
          const next = ruleFrom(ctx, rule);
          checkRule(scope, ctx, next);
          rules[pos] = next;
          return null;
        },
      ),
      change('DELETE', `${scope.base}/{pos}`, `Remove a rule from ${scope.whose} firewall.`, { ...scope.context, pos: int('Position of the rule in the list.'), digest: DIGEST }, (ctx) => {
        const { rules } = write(ctx);
        const pos = reqInt(ctx, 'pos');
        at(rules, pos);
        rules.splice(pos, 1);
        return null;
      }),
    ];
  };

  return [
    ...scopes.flatMap(ruleOps),
    {
      method: 'GET',
      path: '/cluster/firewall/macros',
      description: 'Predefined services rules can name as macro, with what each opens.',
      parameters: {},
      returns: arr(obj({ macro: str('Macro name.'), descr: str('What it opens.') })),
      permissions: { user: 'all' },
      handler: () => FW_MACROS.map((m) => ({ macro: m.macro, descr: m.descr })),
    },
  ];
}
