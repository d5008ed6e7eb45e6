/**
 * Firewall sections beside the rules and the security groups (firewall-groups.ts): options,
 * aliases, references, logs and the directory indexes, for the datacenter, nodes, guests and vnets.
 */
import type { SchemaNode } from '../../../schema/model.js';
import type { SimEndpoint, SimPermissions, SimRequestContext } from '../../contract.js';
import { assertUnmodified, fail } from '../errors.js';
import { firewallOf, type FwRule, type FwScope, guestFirewall, nodeFirewall, scopeDigest, vnetFirewall } from '../firewall.js';
import type { ClusterState } from '../state.js';
import type { GuestType } from '../types.js';
import { changeOperations } from './change.js';
import { DIGEST, type Json, LOG_ENTRY, LOG_LEVELS, LOG_PARAMS, NAME_RULES, vnetFirewallCheck } from './firewall-shared.js';
import { list, optInt, optStr, reqInt, reqStr } from './params.js';
import { arr, bool, int, obj, opt, P, perm, str } from './schema.js';

export function firewallSectionEndpoints(state: ClusterState): SimEndpoint[] {
  const fw = () => firewallOf(state);
  const vnetCheck = vnetFirewallCheck(state);
  return [...optionEndpoints(), ...aliasEndpoints(), ...refEndpoints(), ...logEndpoints(), ...indexEndpoints()];

  function optionEndpoints(): SimEndpoint[] {
    const bool01 = (d: string) => opt(bool(d));
    const guestOptions: Record<string, SchemaNode> = {
      enable: bool01('Firewall on for this guest.'),
      dhcp: bool01('Allow DHCP.'),
      ipfilter: bool01('Only the addresses of the guest may be used as source.'),
      macfilter: bool01('Only the MAC of the NIC may be used as source.'),
      ndp: bool01('Allow IPv6 neighbour discovery.'),
      radv: bool01('Allow router advertisements from the guest.'),
      log_level_in: opt(str('Log level for incoming traffic.', { enum: LOG_LEVELS })),
      log_level_out: opt(str('Log level for outgoing traffic.', { enum: LOG_LEVELS })),
      policy_in: opt(str('Default verdict for incoming traffic.', { enum: ['ACCEPT', 'REJECT', 'DROP'] })),
      policy_out: opt(str('Default verdict for outgoing traffic.', { enum: ['ACCEPT', 'REJECT', 'DROP'] })),
    };
    const nodeOptions: Record<string, SchemaNode> = {
      enable: bool01('Host firewall on.'),
      log_level_in: opt(str('Log level for incoming traffic.', { enum: LOG_LEVELS })),
      log_level_out: opt(str('Log level for outgoing traffic.', { enum: LOG_LEVELS })),
      log_level_forward: opt(str('Log level for forwarded traffic.', { enum: LOG_LEVELS })),
      nosmurfs: bool01('Drop smurf packets.'),
      tcpflags: bool01('Drop illegal TCP flag combinations.'),
      nf_conntrack_max: opt(int('Connection tracking table size.', { minimum: 32768 })),
      ndp: bool01('Allow IPv6 neighbour discovery.'),
      nftables: bool01('Use the nftables-based firewall.'),
    };
    const clusterOptions: Record<string, SchemaNode> = {
      enable: opt(int('Firewall on cluster-wide.', { minimum: 0 })),
      ebtables: bool01('Enable ebtables rules.'),
      log_ratelimit: opt(str('Log rate limit (enable, rate, burst).')),
      policy_in: opt(str('Default verdict for incoming traffic.', { enum: ['ACCEPT', 'REJECT', 'DROP'] })),
      policy_out: opt(str('Default verdict for outgoing traffic.', { enum: ['ACCEPT', 'REJECT', 'DROP'] })),
      policy_forward: opt(str('Default verdict for forwarded traffic.', { enum: ['ACCEPT', 'DROP'] })),
    };
    const vnetOptions: Record<string, SchemaNode> = {
      enable: bool01('Firewall on for the vnet.'),
      log_level_forward: opt(str('Log level for forwarded traffic.', { enum: LOG_LEVELS })),
      policy_forward: opt(str('Default verdict for forwarded traffic.', { enum: ['ACCEPT', 'DROP'] })),
    };
    const family = (
      base: string,
      whose: string,
      context: Record<string, SchemaNode>,
      props: Record<string, SchemaNode>,
      audit: SimPermissions,
      modify: SimPermissions,
      scope: (ctx: SimRequestContext) => FwScope,
      check?: (ctx: SimRequestContext, write: boolean) => void,
      proxy?: boolean,
    ): SimEndpoint[] => [
      {
        method: 'GET',
        path: base,
        description: `Options of ${whose} firewall (on/off, default policies, logging).`,
        parameters: { ...context },
        returns: obj({ ...props }),
        permissions: audit,
        ...(proxy ? { proxyto: 'node' as const } : {}),
        handler: (ctx) => {
          check?.(ctx, false);
          const s = scope(ctx);
          return { ...s.options, digest: scopeDigest(s) };
        },
      },
      {
        ...changeOperations(modify)(
          'PUT',
          base,
          `Change options of ${whose} firewall; delete resets options.`,
          { ...context, ...props, delete: opt(str('Options to reset.', { format: 'pve-configid-list' })), digest: DIGEST },
          (ctx) => {
            check?.(ctx, true);
            const s = scope(ctx);
            assertUnmodified(scopeDigest(s), optStr(ctx, 'digest'));
            for (const key of list(ctx.params.delete)) delete s.options[key];
            for (const key of Object.keys(props)) {
              const v = ctx.params[key];
              if (v !== undefined) s.options[key] = typeof v === 'number' ? v : String(v);
            }
            return null;
          },
        ),
        ...(proxy ? { proxyto: 'node' as const } : {}),
      },
    ];
    const vmPerm = { audit: { check: perm('/vms/{vmid}', ['VM.Audit']) }, modify: { check: perm('/vms/{vmid}', ['VM.Config.Network']) } };
    return [
      ...family('/cluster/firewall/options', 'the datacenter', {}, clusterOptions, { check: perm('/', ['Sys.Audit']) }, { check: perm('/', ['Sys.Modify']) }, () => fw().cluster),
      ...family(
        '/nodes/{node}/firewall/options',
        "the node's",
        { node: P.node },
        nodeOptions,
        { check: perm('/nodes/{node}', ['Sys.Audit']) },
        { check: perm('/nodes/{node}', ['Sys.Modify']) },
        (ctx) => {
          const node = reqStr(ctx, 'node');
          state.node(node);
          return nodeFirewall(state, node);
        },
        undefined,
        true,
      ),
      ...(['qemu', 'lxc'] as GuestType[]).flatMap((type) =>
        family(
          `/nodes/{node}/${type}/{vmid}/firewall/options`,
          "the guest's",
          { node: P.node, vmid: P.vmid },
          guestOptions,
          vmPerm.audit,
          vmPerm.modify,
          (ctx) => guestFirewall(state, reqInt(ctx, 'vmid')),
          undefined,
          true,
        ),
      ),
      ...family(
        '/cluster/sdn/vnets/{vnet}/firewall/options',
        "the vnet's",
        { vnet: str('SDN vnet name.', { format: 'pve-sdn-vnet-id' }) },
        vnetOptions,
        { user: 'all', description: 'SDN.Audit on the vnet (checked by the handler).' },
        { user: 'all', description: 'SDN.Allocate on the vnet (checked by the handler).' },
        (ctx) => vnetFirewall(state, reqStr(ctx, 'vnet')),
        vnetCheck,
      ),
    ];
  }

  function aliasEndpoints(): SimEndpoint[] {
    const NAME = str('Alias name.', NAME_RULES);
    const CIDR = str('Address or network the alias stands for.', { format: 'IPorCIDR' });
    const family = (base: string, whose: string, context: Record<string, SchemaNode>, audit: SimPermissions, modify: SimPermissions, scope: (ctx: SimRequestContext) => FwScope): SimEndpoint[] => {
      const change = changeOperations(modify);
      const alias = (ctx: SimRequestContext) => {
        const name = reqStr(ctx, 'name');
        const a = scope(ctx).aliases.get(name.toLowerCase()) ?? scope(ctx).aliases.get(name);
        if (!a) throw fail(`no such alias '${name}'`);
        return a;
      };
      return [
        {
          method: 'GET',
          path: base,
          description: `Named addresses and networks of ${whose} firewall.`,
          parameters: { ...context },
          returns: arr(obj({ name: str('Alias name.'), cidr: str('Address or network.'), comment: opt(str('Note.')), digest: str('Digest of the file.', { maxLength: 64 }) }), {
            links: [{ rel: 'child', href: '{name}' }],
          }),
          permissions: audit,
          handler: (ctx) => {
            const s = scope(ctx);
            const digest = scopeDigest(s);
            return [...s.aliases.values()].sort((a, b) => a.name.localeCompare(b.name)).map((a) => ({ ...a, digest }));
          },
        },
        change('POST', base, `Define an alias in ${whose} firewall.`, { ...context, name: NAME, cidr: CIDR, comment: opt(str('Free-form note.')) }, (ctx) => {
          const s = scope(ctx);
          const name = reqStr(ctx, 'name');
          if (s.aliases.has(name.toLowerCase())) throw fail(`alias '${name}' already exists`);
          const comment = optStr(ctx, 'comment');
          s.aliases.set(name.toLowerCase(), { name, cidr: reqStr(ctx, 'cidr'), ...(comment ? { comment } : {}) });
          return null;
        }),
        {
          method: 'GET',
          path: `${base}/{name}`,
          description: `One alias of ${whose} firewall.`,
          parameters: { ...context, name: NAME },
          returns: obj({}),
          permissions: audit,
          handler: (ctx) => ({ ...alias(ctx), digest: scopeDigest(scope(ctx)) }),
        },
        change(
          'PUT',
          `${base}/{name}`,
          `Change the address, comment or name (rename) of an alias.`,
          { ...context, name: NAME, cidr: CIDR, comment: opt(str('Free-form note.')), rename: opt(str('New name.', NAME_RULES)), digest: DIGEST },
          (ctx) => {
            const s = scope(ctx);
            assertUnmodified(scopeDigest(s), optStr(ctx, 'digest'));
            const a = alias(ctx);
            const rename = optStr(ctx, 'rename');
            const comment = optStr(ctx, 'comment');
            const next = { name: rename ?? a.name, cidr: reqStr(ctx, 'cidr'), ...(comment ? { comment } : {}) };
            if (rename && rename.toLowerCase() !== a.name.toLowerCase() && s.aliases.has(rename.toLowerCase())) throw fail(`alias '${rename}' already exists`);
            s.aliases.delete(a.name.toLowerCase());
            s.aliases.set(next.name.toLowerCase(), next);
            return null;
          },
        ),
        change('DELETE', `${base}/{name}`, `Remove an alias from ${whose} firewall.`, { ...context, name: NAME, digest: DIGEST }, (ctx) => {
          const s = scope(ctx);
          assertUnmodified(scopeDigest(s), optStr(ctx, 'digest'));
          s.aliases.delete(reqStr(ctx, 'name').toLowerCase());
          return null;
        }),
      ];
    };
    return [
      ...family('/cluster/firewall/aliases', 'the datacenter', {}, { check: perm('/', ['Sys.Audit']) }, { check: perm('/', ['Sys.Modify']) }, () => fw().cluster),
      ...(['qemu', 'lxc'] as GuestType[]).flatMap((type) =>
        family(
          `/nodes/{node}/${type}/{vmid}/firewall/aliases`,
          "the guest's",
          { node: P.node, vmid: P.vmid },
          { check: perm('/vms/{vmid}', ['VM.Audit']) },
          { check: perm('/vms/{vmid}', ['VM.Config.Network']) },
          (ctx) => guestFirewall(state, reqInt(ctx, 'vmid')),
        ),
      ),
    ];
  }

  function refEndpoints(): SimEndpoint[] {
    const REF = arr(
      obj({ type: str('alias or ipset.', { enum: ['alias', 'ipset'] }), name: str('Name.'), ref: str('How a rule refers to it.'), scope: str('dc or guest.'), comment: opt(str('Note.')) }),
    );
    const TYPE = opt(str('Only references of this kind.', { enum: ['alias', 'ipset'] }));
    const refs = (ctx: SimRequestContext, vmid?: number): Json[] => {
      const type = optStr(ctx, 'type');
      const out: Json[] = [];
      const add = (kind: 'alias' | 'ipset', scope: string, name: string, comment?: string) => {
        if (type && type !== kind) return;
        out.push({ type: kind, name, scope, ref: kind === 'ipset' ? `+${scope}/${name}` : `${scope}/${name}`, ...(comment ? { comment } : {}) });
      };
      for (const a of fw().cluster.aliases.values()) add('alias', 'dc', a.name, a.comment);
      for (const s of state.ipsets.values()) add('ipset', 'dc', s.name, s.comment);
      if (vmid !== undefined) {
        for (const a of guestFirewall(state, vmid).aliases.values()) add('alias', 'guest', a.name, a.comment);
        for (const s of state.guestIpsets(vmid).values()) add('ipset', 'guest', s.name, s.comment);
      }
      return out;
    };
    return [
      {
        method: 'GET',
        path: '/cluster/firewall/refs',
        description: 'Aliases and IP sets rules of the datacenter can refer to, with the reference to write.',
        parameters: { type: TYPE },
        returns: REF,
        permissions: { check: perm('/', ['Sys.Audit']) },
        handler: (ctx) => refs(ctx),
      },
      ...(['qemu', 'lxc'] as GuestType[]).map(
        (type): SimEndpoint => ({
          method: 'GET',
          path: `/nodes/{node}/${type}/{vmid}/firewall/refs`,
          description: "Aliases and IP sets the guest's rules can refer to (the datacenter's and its own).",
          parameters: { node: P.node, vmid: P.vmid, type: TYPE },
          returns: REF,
          permissions: { check: perm('/vms/{vmid}', ['VM.Audit']) },
          handler: (ctx) => refs(ctx, reqInt(ctx, 'vmid')),
        }),
      ),
    ];
  }

  /** Log lines for the rules that log, one every few minutes over the last hours, from the clock. */
  function logLines(ctx: SimRequestContext, prefix: string, rules: FwRule[]): Json[] {
    const now = state.nowSec();
    const logging = rules.filter((r) => r.log && r.log !== 'nolog' && r.enable !== 0);
    const lines: string[] = [];
    const since = optInt(ctx, 'since') ?? now - 6 * 3600;
    const until = optInt(ctx, 'until') ?? now;
    for (let t = Math.ceil(since / 600) * 600; t <= until; t += 600) {
      const r = logging[(t / 600) % Math.max(1, logging.length)];
      const stamp = new Date(t * 1000)
        .toUTCString()
        .replace(/^\w+, /, '')
        .replace(' GMT', ' +0000');
      if (r) lines.push(`${prefix} 6 - ${stamp} ${r.action === 'DROP' ? 'DROP' : 'ACCEPT'}: IN=vmbr0 SRC=203.0.113.${(t / 600) % 250} DST=10.0.0.11 PROTO=TCP DPT=${r.dport ?? 22}`);
      else lines.push(`${prefix} 6 - ${stamp} policy DROP: IN=vmbr0 SRC=198.51.100.${(t / 600) % 250} DST=10.0.0.11 PROTO=TCP DPT=23`);
    }
    const start = optInt(ctx, 'start') ?? 0;
    const limit = optInt(ctx, 'limit') ?? 50;
    ctx.setTotal(lines.length);
    return lines.slice(start, start + limit).map((t, i) => ({ n: start + i + 1, t }));
  }

  function logEndpoints(): SimEndpoint[] {
    return [
      {
        method: 'GET',
        path: '/nodes/{node}/firewall/log',
        description: "The node's firewall log: packets logged by rules and default policies.",
        parameters: { node: P.node, ...LOG_PARAMS },
        returns: LOG_ENTRY,
        permissions: { check: perm('/nodes/{node}', ['Sys.Syslog']) },
        proxyto: 'node',
        protected: true,
        handler: (ctx) => {
          const node = reqStr(ctx, 'node');
          state.node(node);
          return logLines(ctx, '0', [...fw().cluster.rules, ...nodeFirewall(state, node).rules]);
        },
      },
      ...(['qemu', 'lxc'] as GuestType[]).map(
        (type): SimEndpoint => ({
          method: 'GET',
          path: `/nodes/{node}/${type}/{vmid}/firewall/log`,
          description: "The guest's firewall log: the packets its rules and policies logged, such as those they dropped.",
          parameters: { node: P.node, vmid: P.vmid, ...LOG_PARAMS },
          returns: LOG_ENTRY,
          permissions: { check: perm('/vms/{vmid}', ['VM.Console']) },
          proxyto: 'node',
          protected: true,
          handler: (ctx) => {
            const g = state.guestAt(type, reqStr(ctx, 'node'), reqInt(ctx, 'vmid'));
            return logLines(ctx, String(g.vmid), guestFirewall(state, g.vmid).rules);
          },
        }),
      ),
    ];
  }

  function indexEndpoints(): SimEndpoint[] {
    const index = (path: string, what: string, context: Record<string, SchemaNode>, names: string[]): SimEndpoint => ({
      method: 'GET',
      path,
      description: `Firewall sections of ${what} (directory index).`,
      parameters: context,
      returns: arr(obj({}), { links: [{ rel: 'child', href: '{name}' }] }),
      permissions: path.startsWith('/cluster/sdn') ? {} : { user: 'all' },
      handler: () => names.map((name) => ({ name })),
    });
    return [
      index('/cluster/firewall', 'the datacenter', {}, ['aliases', 'groups', 'ipset', 'macros', 'options', 'refs', 'rules']),
      index('/nodes/{node}/firewall', 'a node', { node: P.node }, ['log', 'options', 'rules']),
      index('/nodes/{node}/qemu/{vmid}/firewall', 'a VM', { node: P.node, vmid: P.vmid }, ['aliases', 'ipset', 'log', 'options', 'refs', 'rules']),
      index('/nodes/{node}/lxc/{vmid}/firewall', 'a container', { node: P.node, vmid: P.vmid }, ['aliases', 'ipset', 'log', 'options', 'refs', 'rules']),
      index('/cluster/sdn/vnets/{vnet}/firewall', 'a vnet', { vnet: str('SDN vnet name.', { format: 'pve-sdn-vnet-id' }) }, ['options', 'rules']),
    ];
  }
}
