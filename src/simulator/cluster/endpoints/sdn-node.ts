/**
 * Each node's view of SDN: zone status and content, bridges, IP-VRF and MAC-VRF tables, and the
 * fabric's interfaces, neighbours and routes as the node sees them.
 */
import type { SimEndpoint } from '../../contract.js';
import { fail } from '../errors.js';
import type { ClusterState } from '../state.js';
import { reqStr } from './params.js';
import { arr, int, obj, opt, P, perm, str } from './schema.js';
import { INDEX, type Json, num0, sdnContext, SUBDIR_INDEX, VNET, ZONE } from './sdn-shared.js';

export function sdnNodeEndpoints(state: ClusterState): SimEndpoint[] {
  const { sdn, audit, nodeParam, nodeZone, vnetsOf, fabric, fabricNodes } = sdnContext(state);
  return [
    // The node's view.
    {
      method: 'GET',
      path: '/nodes/{node}/sdn',
      description: 'SDN sections of a node (directory index).',
      parameters: nodeParam,
      returns: INDEX,
      permissions: { user: 'all' },
      proxyto: 'node',
      handler: (ctx) => {
        state.node(reqStr(ctx, 'node'));
        return ['fabrics', 'vnets', 'zones'].map((name) => ({ name }));
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/sdn/zones',
      description: 'The SDN zones deployed on a node with their status.',
      parameters: nodeParam,
      returns: arr(obj({ zone: str('Zone.', { format: 'pve-sdn-zone-id' }), status: str('Deployment state.', { enum: ['available', 'pending', 'error'] }) }), {
        links: [{ rel: 'child', href: '{zone}' }],
      }),
      permissions: { user: 'all', description: 'Only zones with SDN.Audit.' },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const node = reqStr(ctx, 'node');
        state.node(node);
        const zones = ['localnetwork', ...[...sdn().zones.running.keys()]];
        return zones.filter((z) => audit(ctx, `/sdn/zones/${z}`)).map((zone) => ({ zone, status: 'available' }));
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/sdn/zones/{zone}',
      description: 'Views of a zone on a node (directory index).',
      parameters: { node: P.node, zone: ZONE },
      returns: SUBDIR_INDEX,
      permissions: { check: perm('/sdn/zones/{zone}', ['SDN.Audit']) },
      handler: (ctx) => {
        nodeZone(ctx);
        return ['bridges', 'content', 'ip-vrf'].map((subdir) => ({ subdir }));
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/sdn/zones/{zone}/content',
      description: 'The vnets of a zone as deployed on a node, with their status.',
      parameters: { node: P.node, zone: ZONE },
      returns: arr(obj({ vnet: str('Vnet.'), status: opt(str('State.')), statusmsg: opt(str('Why it is not available.')) })),
      permissions: { check: perm('/sdn/zones/{zone}', ['SDN.Audit']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const { node, zone } = nodeZone(ctx);
        if (zone === 'localnetwork')
          return state
            .node(node)
            .interfaces.filter((i) => i.type === 'bridge')
            .map((i) => ({ vnet: i.iface, status: 'available' }));
        return vnetsOf(zone).map((v) => ({ vnet: String(v.vnet), status: 'available' }));
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/sdn/zones/{zone}/bridges',
      description: 'The bridges of a zone on a node with the guest ports attached to each.',
      parameters: { node: P.node, zone: str('Zone ID.') },
      returns: arr(
        obj({
          name: str('Bridge.'),
          vlan_filtering: str('0 or 1.'),
          ports: arr(obj({ name: str('Port.'), vmid: opt(num0('Guest.')), index: opt(str('NIC index.')), primary_vlan: opt(num0('Untagged VLAN.')) })),
        }),
      ),
      permissions: { check: perm('/sdn/zones/{zone}', ['SDN.Audit']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const { node, zone } = nodeZone(ctx);
        const bridges =
          zone === 'localnetwork'
            ? state
                .node(node)
                .interfaces.filter((i) => i.type === 'bridge')
                .map((i) => i.iface)
            : vnetsOf(zone).map((v) => String(v.vnet));
        return bridges.map((name) => {
          const ports: Json[] = [];
          for (const g of state.guestsOn(node)) {
            if (g.status !== 'running') continue;
            for (const [k, v] of Object.entries(g.config)) {
              const m = /^net(\d+)$/.exec(k);
              if (!m || !String(v).includes(`bridge=${name}`)) continue;
              const tag = /tag=(\d+)/.exec(String(v))?.[1];
              ports.push({ name: g.type === 'qemu' ? `tap${g.vmid}i${m[1]}` : `veth${g.vmid}i${m[1]}`, vmid: g.vmid, index: m[1], ...(tag ? { primary_vlan: Number(tag) } : {}) });
            }
          }
          return { name, vlan_filtering: zone === 'localnetwork' && name === 'vmbr1' ? '1' : '0', ports };
        });
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/sdn/zones/{zone}/ip-vrf',
      description: 'Routes of an EVPN zone’s VRF on a node (empty for zones without a VRF).',
      parameters: { node: P.node, zone: str('Zone ID.') },
      returns: arr(obj({ ip: str('Prefix.', { format: 'CIDR' }), metric: int('Metric.'), nexthops: arr(str('Next hop.')), protocol: str('Source.') })),
      permissions: { check: perm('/sdn/zones/{zone}', ['SDN.Audit']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const { zone } = nodeZone(ctx);
        if (sdn().zones.running.get(zone)?.type !== 'evpn') return [];
        return [...sdn().subnets.running.values()].filter((s) => s.zone === zone).map((s) => ({ ip: String(s.cidr), metric: 0, nexthops: [], protocol: 'connected' }));
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/sdn/vnets/{vnet}',
      description: 'Views of a vnet on a node (directory index).',
      parameters: { node: P.node, vnet: VNET },
      returns: SUBDIR_INDEX,
      permissions: { user: 'all', description: 'SDN.Audit on the vnet.' },
      handler: (ctx) => {
        state.node(reqStr(ctx, 'node'));
        if (!sdn().vnetKind.running.has(reqStr(ctx, 'vnet'))) throw fail(`vnet '${reqStr(ctx, 'vnet')}' not found`);
        return [{ subdir: 'mac-vrf' }];
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/sdn/vnets/{vnet}/mac-vrf',
      description: 'MAC addresses an EVPN vnet has learned on a node (empty outside EVPN zones).',
      parameters: { node: P.node, vnet: VNET },
      returns: arr(obj({ ip: str('Address.', { format: 'ip' }), mac: str('MAC.', { format: 'mac-addr' }), nexthop: str('VTEP.', { format: 'ip' }) })),
      permissions: { user: 'all', description: 'SDN.Audit on the vnet.' },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        state.node(reqStr(ctx, 'node'));
        const v = sdn().vnetKind.running.get(reqStr(ctx, 'vnet'));
        if (!v) throw fail(`vnet '${reqStr(ctx, 'vnet')}' not found`);
        return [];
      },
    },
    ...(['routes', 'neighbors', 'interfaces'] as const).map(
      (what): SimEndpoint => ({
        method: 'GET',
        path: `/nodes/{node}/sdn/fabrics/{fabric}/${what}`,
        description: `The ${what} of a fabric as the routing daemon on a node sees them.`,
        parameters: { node: P.node, fabric: str('Fabric ID.', { format: 'pve-sdn-fabric-id' }) },
        returns:
          what === 'routes'
            ? arr(obj({ route: str('Prefix.'), via: arr(str('Next hop.')) }))
            : what === 'neighbors'
              ? arr(obj({ neighbor: str('Neighbour router.'), status: str('Adjacency state.'), uptime: str('Since when.') }))
              : arr(obj({ name: str('Interface.'), state: str('State.'), type: str('Link type.') })),
        permissions: { check: perm('/sdn/fabrics/{fabric}', ['SDN.Audit']) },
        proxyto: 'node',
        protected: true,
        handler: (ctx) => {
          const node = reqStr(ctx, 'node');
          state.node(node);
          const id = String(fabric(ctx).id);
          const members = fabricNodes(id);
          const me = members.find((m) => m.node_id === node);
          if (!me) return [];
          const others = members.filter((m) => m !== me && state.node(String(m.node_id)).online);
          if (what === 'routes') return others.map((o) => ({ route: `${String(o.ip)}/32`, via: [String(o.ip)] }));
          if (what === 'neighbors') return others.map((o) => ({ neighbor: String(o.node_id), status: 'Up', uptime: '3d02h11m' }));
          return (me.interfaces as string[]).map((i) => ({ name: i.replace(/^name=/, '').split(',')[0] as string, state: 'up', type: 'p2p' }));
        },
      }),
    ),
    {
      method: 'GET',
      path: '/nodes/{node}/sdn/fabrics/{fabric}',
      description: 'Views of a fabric on a node (directory index).',
      parameters: { node: P.node, fabric: str('Fabric ID.', { format: 'pve-sdn-fabric-id' }) },
      returns: SUBDIR_INDEX,
      permissions: { check: perm('/sdn/fabrics/{fabric}', ['SDN.Audit']) },
      handler: (ctx) => {
        state.node(reqStr(ctx, 'node'));
        fabric(ctx);
        return ['interfaces', 'neighbors', 'routes'].map((subdir) => ({ subdir }));
      },
    },
  ];
}
