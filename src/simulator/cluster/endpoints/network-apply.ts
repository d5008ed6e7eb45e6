/**
 * A node's network configuration: interfaces are created, changed and removed in a staged copy
 * (network-stage.ts), applying it reloads the interfaces (a task on the node, as PVE's reload is)
 * and reverting throws the staged copy away. What applying can reach (the node's management
 * address, the bridges its guests use, what the staged copy changes) is what plans read.
 */
import type { SimEndpoint, SimRequestContext } from '../../contract.js';
import { fail } from '../errors.js';
import { applyStaged, revertStaged, stagedInterfaces } from '../network-stage.js';
import type { ClusterState } from '../state.js';
import type { NodeInterface } from '../types.js';
import { changeOperations } from './change.js';
import { flag, optStr, reqStr } from './params.js';
import { bool, opt, P, perm, str, UPID } from './schema.js';

const IFACE = str('Interface name.', { format: 'pve-iface', minLength: 2, maxLength: 20 });
const FIELDS = {
  type: str('Interface kind.', { enum: ['bridge', 'bond', 'eth', 'vlan'] }),
  address: opt(str('IPv4 address.', { format: 'ipv4' })),
  netmask: opt(str('IPv4 netmask.', { format: 'ipv4mask' })),
  cidr: opt(str('IPv4 address with prefix length.', { format: 'CIDRv4' })),
  gateway: opt(str('IPv4 default gateway.', { format: 'ipv4' })),
  bridge_ports: opt(str('Ports enslaved to the bridge.', { format: 'pve-iface-list' })),
  bridge_vlan_aware: opt(bool('Bridge filters VLANs.')),
  autostart: opt(bool('Bring it up at boot.')),
  comments: opt(str('Free-form comment.')),
};
const SETTABLE = ['address', 'netmask', 'cidr', 'gateway', 'bridge_ports', 'comments'] as const;

/** The staged interface with the request's fields set (and `delete` ones removed); an address sets its cidr and the reverse. */
function withFields(ctx: SimRequestContext, base: NodeInterface): NodeInterface {
  const next: NodeInterface = { ...base, families: [...base.families] };
  const rec = next as unknown as Record<string, unknown>;
  for (const k of (optStr(ctx, 'delete') ?? '').split(/[,;\s]+/).filter((x) => x !== '')) delete rec[k];
  for (const k of SETTABLE) {
    const v = optStr(ctx, k);
    if (v !== undefined) rec[k] = v;
  }
  const cidr = optStr(ctx, 'cidr');
  if (cidr !== undefined) next.address = cidr.split('/')[0] as string;
  else if (optStr(ctx, 'address') !== undefined) next.cidr = `${next.address}/${optStr(ctx, 'netmask') ?? '24'}`;
  if (next.address !== undefined) next.method = 'static';
  for (const k of ['bridge_vlan_aware', 'autostart'] as const) {
    const v = flag(ctx, k);
    if (v !== undefined) next[k] = v ? 1 : 0;
  }
  return next;
}

export function networkApplyEndpoints(state: ClusterState): SimEndpoint[] {
  const modify = { check: perm('/nodes/{node}', ['Sys.Modify']) };
  const change = changeOperations(modify);
  /** Each change is made by the node whose network it is. */
  const onNode = (e: SimEndpoint): SimEndpoint => ({ ...e, proxyto: 'node' });
  const staged = (ctx: SimRequestContext): NodeInterface[] => stagedInterfaces(state, state.node(reqStr(ctx, 'node')));
  /** The staged interface the request names: the node's staged list and its place there (PVE's error when it is not there). */
  const named = (ctx: SimRequestContext): { list: NodeInterface[]; at: number } => {
    const list = staged(ctx);
    const at = list.findIndex((i) => i.iface === reqStr(ctx, 'iface'));
    if (at < 0) throw fail(`interface '${reqStr(ctx, 'iface')}' does not exist`);
    return { list, at };
  };
  return [
    onNode(
      change(
        'POST',
        '/nodes/{node}/network',
        'Create a network interface in the staged configuration of a node (applied by PUT on the same path).',
        { node: P.node, iface: IFACE, ...FIELDS },
        (ctx) => {
          const list = staged(ctx);
          const iface = reqStr(ctx, 'iface');
          if (list.some((i) => i.iface === iface)) throw fail(`interface '${iface}' already exists`);
          const type = reqStr(ctx, 'type') as NodeInterface['type'];
          list.push(withFields(ctx, { iface, type, active: 0, autostart: 1, method: 'manual', method6: 'manual', families: ['inet'], priority: list.length + 1 }));
          return null;
        },
      ),
    ),
    onNode(
      change(
        'PUT',
        '/nodes/{node}/network/{iface}',
        'Change a network interface in the staged configuration of a node; delete removes fields.',
        { node: P.node, iface: IFACE, ...FIELDS, delete: opt(str('Fields to remove.', { format: 'pve-configid-list' })) },
        (ctx) => {
          const { list, at } = named(ctx);
          list[at] = withFields(ctx, list[at] as NodeInterface);
          return null;
        },
      ),
    ),
    onNode(
      change('DELETE', '/nodes/{node}/network/{iface}', 'Remove a network interface from the staged configuration of a node.', { node: P.node, iface: IFACE }, (ctx) => {
        const { list, at } = named(ctx);
        list.splice(at, 1);
        return null;
      }),
    ),
    {
      method: 'PUT',
      path: '/nodes/{node}/network',
      description: 'Apply the network changes pending on a node by reloading its interfaces, without a reboot (task).',
      parameters: { node: P.node, 'regenerate-frr': opt(bool('Also rewrite the routing daemon configuration of the fabrics.')) },
      returns: UPID,
      permissions: modify,
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        const node = state.node(reqStr(ctx, 'node'));
        return state.tasks.start({
          node: node.name,
          type: 'srvreload',
          id: 'networking',
          user: ctx.principal.authId,
          finish: (run) => run.log(`reloaded ${applyStaged(state, node)} interfaces`),
        });
      },
    },
    onNode(
      change('DELETE', '/nodes/{node}/network', 'Discard the network changes pending on a node (staged, not yet applied); the interfaces in effect stay as they are.', { node: P.node }, (ctx) => {
        revertStaged(state, state.node(reqStr(ctx, 'node')));
        return null;
      }),
    ),
  ];
}
