/**
 * SDN plugins: controllers, IPAMs, DNS servers and fabrics, and the dry-run of a pending apply.
 * Plugin secrets (DNS keys, IPAM tokens) are never shown.
 */
import type { SimEndpoint } from '../../contract.js';
import { fail } from '../errors.js';
import { recordState } from '../sdn.js';
import type { ClusterState } from '../state.js';
import { optStr, reqStr } from './params.js';
import { arr, obj, opt, P, perm, str } from './schema.js';
import { digestOf, type Json, one, sdnContext, SUBDIR_INDEX, view, VIEW_PARAMS } from './sdn-shared.js';
import { createHash } from 'node:crypto';

export function sdnPluginEndpoints(state: ClusterState): SimEndpoint[] {
  const { sdn, audit, fabric, fabricNodes } = sdnContext(state);
  return [
    // Controllers, IPAMs, DNS.
    {
      method: 'GET',
      path: '/cluster/sdn/controllers',
      description: 'SDN controllers (BGP/EVPN routing daemons) the caller may audit.',
      parameters: { ...VIEW_PARAMS, type: opt(str('Only controllers of this type.', { enum: ['bgp', 'evpn', 'faucet', 'isis'] })) },
      returns: arr(obj({ controller: str('Controller ID.'), type: str('Type.', { enum: ['bgp', 'evpn', 'faucet', 'isis'] }) }), { links: [{ rel: 'child', href: '{controller}' }] }),
      permissions: { user: 'all', description: 'Only controllers with SDN.Audit on /sdn/controllers/<id>.' },
      handler: (ctx) => {
        const type = optStr(ctx, 'type');
        return view(sdn().controllers, ctx, (c) => (!type || c.type === type) && audit(ctx, `/sdn/controllers/${c.controller}`));
      },
    },
    {
      method: 'GET',
      path: '/cluster/sdn/controllers/{controller}',
      description: 'One SDN controller.',
      parameters: { controller: str('Controller ID.', { format: 'pve-sdn-controller-id' }), ...VIEW_PARAMS },
      returns: {},
      permissions: { check: perm('/sdn/controllers/{controller}', ['SDN.Allocate']) },
      handler: (ctx) => one(sdn().controllers, reqStr(ctx, 'controller'), 'controller', ctx),
    },
    {
      method: 'GET',
      path: '/cluster/sdn/ipams',
      description: 'IP address management plugins.',
      parameters: { type: opt(str('Only plugins of this type.', { enum: ['netbox', 'phpipam', 'pve'] })) },
      returns: arr(obj({ ipam: str('IPAM ID.'), type: str('Plugin type.') }), { links: [{ rel: 'child', href: '{ipam}' }] }),
      permissions: { user: 'all', description: 'Only IPAMs with SDN.Audit on /sdn/ipams/<id>.' },
      handler: (ctx) => [...sdn().ipams.values()].filter((i) => (!optStr(ctx, 'type') || i.type === optStr(ctx, 'type')) && audit(ctx, `/sdn/ipams/${i.ipam}`)).map((i) => ({ ...i })),
    },
    {
      method: 'GET',
      path: '/cluster/sdn/ipams/{ipam}',
      description: 'One IPAM plugin (without its token).',
      parameters: { ipam: str('IPAM ID.', { format: 'pve-sdn-ipam-id' }) },
      returns: obj({}),
      permissions: { check: perm('/sdn/ipams/{ipam}', ['SDN.Allocate']) },
      handler: (ctx) => {
        const id = reqStr(ctx, 'ipam');
        const i = sdn().ipams.get(id);
        if (!i) throw fail(`sdn ipam '${id}' does not exist`);
        return { ...i, digest: createHash('sha1').update(JSON.stringify(i)).digest('hex') };
      },
    },
    {
      method: 'GET',
      path: '/cluster/sdn/ipams/{ipam}/status',
      description: 'Addresses the IPAM has handed out: subnet gateways and the guests on the subnets with DHCP.',
      parameters: { ipam: str('IPAM ID.', { format: 'pve-sdn-ipam-id' }) },
      returns: arr(obj({})),
      permissions: { user: 'all', description: 'SDN.Audit on the zones shown.' },
      protected: true,
      handler: (ctx) => {
        const id = reqStr(ctx, 'ipam');
        if (!sdn().ipams.has(id)) throw fail(`sdn ipam '${id}' does not exist`);
        const out: Json[] = [];
        for (const s of sdn().subnets.running.values()) {
          const zone = sdn().zones.running.get(String(s.zone));
          if (zone?.ipam !== id || !audit(ctx, `/sdn/zones/${String(s.zone)}`)) continue;
          if (s.gateway) out.push({ zone: s.zone, vnet: s.vnet, subnet: s.cidr, ip: s.gateway, gateway: 1 });
          let n = 100;
          for (const g of state.allGuests()) {
            const nic = Object.entries(g.config).find(([k, v]) => /^net\d+$/.test(k) && String(v).includes(`bridge=${String(s.vnet)}`));
            if (!nic) continue;
            const mac = /(?:virtio|e1000|hwaddr|rtl8139|vmxnet3)=([0-9A-Fa-f:]{17})/.exec(String(nic[1]))?.[1];
            out.push({
              zone: s.zone,
              vnet: s.vnet,
              subnet: s.cidr,
              ip: `${String(s.network).replace(/\.0$/, '')}.${n++}`,
              vmid: g.vmid,
              hostname: String(g.config.name ?? g.config.hostname ?? ''),
              ...(mac ? { mac } : {}),
            });
          }
        }
        return out;
      },
    },
    {
      method: 'GET',
      path: '/cluster/sdn/dns',
      description: 'DNS server plugins that register guest names.',
      parameters: { type: opt(str('Only plugins of this type.', { enum: ['powerdns'] })) },
      returns: arr(obj({ dns: str('DNS plugin ID.'), type: str('Plugin type.') }), { links: [{ rel: 'child', href: '{dns}' }] }),
      permissions: { user: 'all', description: 'Only plugins with SDN.Audit on /sdn/dns/<id>.' },
      handler: (ctx) => [...sdn().dns.values()].filter((d) => audit(ctx, `/sdn/dns/${d.dns}`)).map((d) => ({ dns: d.dns, type: d.type })),
    },
    {
      method: 'GET',
      path: '/cluster/sdn/dns/{dns}',
      description: 'One DNS plugin (without its API key).',
      parameters: { dns: str('DNS plugin ID.', { format: 'pve-sdn-dns-id' }) },
      returns: obj({}),
      permissions: { check: perm('/sdn/dns/{dns}', ['SDN.Allocate']) },
      handler: (ctx) => {
        const id = reqStr(ctx, 'dns');
        const d = sdn().dns.get(id);
        if (!d) throw fail(`sdn dns '${id}' does not exist`);
        return { ...d, digest: createHash('sha1').update(JSON.stringify(d)).digest('hex') };
      },
    },
    // Fabrics.
    {
      method: 'GET',
      path: '/cluster/sdn/fabrics',
      description: 'Fabric sections (directory index).',
      parameters: {},
      returns: SUBDIR_INDEX,
      permissions: { check: perm('/sdn/fabrics', ['SDN.Audit']) },
      handler: () => ['all', 'fabric', 'node'].map((subdir) => ({ subdir })),
    },
    {
      method: 'GET',
      path: '/cluster/sdn/fabrics/fabric',
      description: 'Routed underlay fabrics (OpenFabric, OSPF) between the nodes.',
      parameters: { ...VIEW_PARAMS },
      returns: arr(obj({ id: str('Fabric ID.', { format: 'pve-sdn-fabric-id' }), protocol: str('Routing protocol.', { enum: ['openfabric', 'ospf'] }) }), { links: [{ rel: 'child', href: '{id}' }] }),
      permissions: { user: 'all', description: 'Only fabrics with SDN.Audit on /sdn/fabrics/<id>.' },
      handler: (ctx) => view(sdn().fabrics, ctx, (f) => audit(ctx, `/sdn/fabrics/${f.id}`)).map(({ state: _s, pending: _p, ...f }) => f),
    },
    {
      method: 'GET',
      path: '/cluster/sdn/fabrics/fabric/{id}',
      description: 'One fabric.',
      parameters: { id: str('Fabric ID.', { format: 'pve-sdn-fabric-id' }) },
      returns: obj({ id: str('Fabric ID.', { format: 'pve-sdn-fabric-id' }), protocol: str('Routing protocol.', { enum: ['openfabric', 'ospf'] }) }),
      permissions: { check: perm('/sdn/fabrics/{id}', ['SDN.Audit', 'SDN.Allocate'], 'any', 1) },
      handler: (ctx) => ({ ...fabric(ctx, 'id'), digest: digestOf(sdn().fabrics) }),
    },
    {
      method: 'GET',
      path: '/cluster/sdn/fabrics/node',
      description: 'The nodes of every fabric with their router address and interfaces.',
      parameters: { ...VIEW_PARAMS },
      returns: arr(
        obj({
          fabric_id: str('Fabric.', { format: 'pve-sdn-fabric-id' }),
          node_id: str('Node.', { format: 'pve-node' }),
          protocol: str('Protocol.', { enum: ['openfabric', 'ospf'] }),
          interfaces: arr(str('Interface.')),
        }),
      ),
      permissions: { user: 'all', description: 'Only fabrics with SDN.Audit.' },
      handler: (ctx) => [...sdn().fabrics.config.keys()].filter((id) => audit(ctx, `/sdn/fabrics/${id}`)).flatMap((id) => fabricNodes(id)),
    },
    {
      method: 'GET',
      path: '/cluster/sdn/fabrics/node/{fabric_id}',
      description: 'The nodes of one fabric.',
      parameters: { fabric_id: str('Fabric ID.', { format: 'pve-sdn-fabric-id' }), ...VIEW_PARAMS },
      returns: arr(
        obj({
          fabric_id: str('Fabric.', { format: 'pve-sdn-fabric-id' }),
          node_id: str('Node.', { format: 'pve-node' }),
          protocol: str('Protocol.', { enum: ['openfabric', 'ospf'] }),
          interfaces: arr(str('Interface.')),
        }),
        { links: [{ rel: 'child', href: '{node_id}' }] },
      ),
      permissions: { check: perm('/sdn/fabrics/{fabric_id}', ['SDN.Audit']) },
      handler: (ctx) => fabricNodes(String(fabric(ctx, 'fabric_id').id)),
    },
    {
      method: 'GET',
      path: '/cluster/sdn/fabrics/node/{fabric_id}/{node_id}',
      description: 'One node of a fabric.',
      parameters: { fabric_id: str('Fabric ID.', { format: 'pve-sdn-fabric-id' }), node_id: str('Node.', { format: 'pve-node' }) },
      returns: {},
      permissions: { check: ['and', perm('/sdn/fabrics/{fabric_id}', ['SDN.Audit', 'SDN.Allocate'], 'any', 1), perm('/nodes/{node_id}', ['Sys.Audit', 'Sys.Modify'], 'any', 1)] },
      handler: (ctx) => {
        const id = String(fabric(ctx, 'fabric_id').id);
        const n = fabricNodes(id).find((x) => x.node_id === reqStr(ctx, 'node_id'));
        if (!n) throw fail(`node '${reqStr(ctx, 'node_id')}' is not part of fabric '${id}'`);
        return { ...n, digest: digestOf(sdn().fabricNodes) };
      },
    },
    {
      method: 'GET',
      path: '/cluster/sdn/fabrics/all',
      description: 'Every fabric and every fabric node in one answer.',
      parameters: { ...VIEW_PARAMS },
      returns: obj({
        fabrics: arr(obj({ id: str('Fabric ID.', { format: 'pve-sdn-fabric-id' }), protocol: str('Protocol.', { enum: ['openfabric', 'ospf'] }) })),
        nodes: arr(
          obj({
            fabric_id: str('Fabric.', { format: 'pve-sdn-fabric-id' }),
            node_id: str('Node.', { format: 'pve-node' }),
            protocol: str('Protocol.', { enum: ['openfabric', 'ospf'] }),
            interfaces: arr(str('Interface.')),
          }),
        ),
      }),
      permissions: { user: 'all', description: 'Only fabrics with SDN.Audit.' },
      handler: (ctx) => {
        const ids = [...sdn().fabrics.config.keys()].filter((id) => audit(ctx, `/sdn/fabrics/${id}`));
        return { fabrics: ids.map((id) => ({ ...sdn().fabrics.config.get(id) })), nodes: ids.flatMap((id) => fabricNodes(id)) };
      },
    },
    {
      method: 'GET',
      path: '/cluster/sdn/dry-run',
      description: 'What applying the pending SDN configuration would change in the network files of a node.',
      parameters: { node: P.node },
      returns: obj({ 'frr-diff': opt(str('Changes to the routing daemon configuration.')), 'interfaces-diff': opt(str('Changes to the interfaces file.')) }),
      permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        state.node(reqStr(ctx, 'node'));
        const lines: string[] = [];
        const k = sdn().vnetKind;
        for (const id of new Set([...k.config.keys(), ...k.running.keys()])) {
          const st = recordState(k, id);
          if (st === 'new') lines.push(`+auto ${id}`, `+iface ${id}`);
          if (st === 'deleted') lines.push(`-auto ${id}`, `-iface ${id}`);
          if (st === 'changed') lines.push(` iface ${id}`, '+\t# changed');
        }
        return { 'interfaces-diff': lines.length ? `--- /etc/network/interfaces.d/sdn\n+++ /etc/network/interfaces.d/sdn.new\n${lines.join('\n')}\n` : '', 'frr-diff': '' };
      },
    },
  ];
}
