/**
 * SDN configuration: the section index, zones, vnets and subnets. Writes go to the pending
 * configuration with PVE's checks (IDs that exist or not, zones still used by vnets, vnets still holding
 * subnets, digests); `PUT /cluster/sdn` applies them in a `reloadnetworkall` task. The plugins
 * (controllers, IPAMs, DNS, fabrics) are in sdn-plugins.ts, each node's view in sdn-node.ts.
 */
import type { SimEndpoint } from '../../contract.js';
import { fail, permissionDenied } from '../errors.js';
import { applySdn, type SdnRecord } from '../sdn.js';
import type { ClusterState } from '../state.js';
import { changeOperations } from './change.js';
import { optStr, reqStr } from './params.js';
import { arr, bool, int, obj, opt, perm, str, UPID } from './schema.js';
import { DIGEST, one, sdnContext, view, VIEW_PARAMS, VNET, ZONE } from './sdn-shared.js';

export function sdnEndpoints(state: ClusterState): SimEndpoint[] {
  const { sdn, audit, zoneChange, zoneItemChange, vnetChange, createIn, updateIn, ZONE_FIELDS, zoneProps } = sdnContext(state);
  return [
    {
      method: 'GET',
      path: '/cluster/sdn',
      description: 'SDN sections (directory index).',
      parameters: {},
      returns: arr(obj({ id: str('Section.') }), { links: [{ rel: 'child', href: '{id}' }] }),
      permissions: { check: perm('/sdn', ['SDN.Audit']) },
      handler: () => ['controllers', 'dns', 'fabrics', 'ipams', 'vnets', 'zones'].map((id) => ({ id })),
    },
    {
      method: 'PUT',
      path: '/cluster/sdn',
      description: 'Apply the pending SDN configuration on every node (task reloadnetworkall).',
      parameters: { 'lock-token': opt(str('Token of a held SDN lock.')), 'release-lock': opt(bool('Release the lock after applying.')) },
      returns: UPID,
      permissions: { check: perm('/sdn', ['SDN.Allocate']) },
      protected: true,
      handler: (ctx) => {
        const node = [...state.nodes.values()][0]?.name as string;
        return state.tasks.start({ node, type: 'reloadnetworkall', id: '', user: ctx.principal.authId, finish: () => applySdn(sdn()) });
      },
    },
    // Zones.
    {
      method: 'GET',
      path: '/cluster/sdn/zones',
      description: 'SDN zones the caller may audit, optionally of one type.',
      parameters: { ...VIEW_PARAMS, type: opt(str('Only zones of this type.', { enum: ['evpn', 'faucet', 'qinq', 'simple', 'vlan', 'vxlan'] })) },
      returns: arr(
        obj({
          zone: str('Zone ID.'),
          type: str('Zone type.', { enum: ['evpn', 'faucet', 'qinq', 'simple', 'vlan', 'vxlan'] }),
          digest: opt(str('Digest.')),
          state: opt(str('Pending change.', { enum: ['new', 'changed', 'deleted'] })),
          pending: opt(obj({})),
        }),
        { links: [{ rel: 'child', href: '{zone}' }] },
      ),
      permissions: { user: 'all', description: 'Only zones with SDN.Audit or SDN.Allocate on /sdn/zones/<zone>.' },
      handler: (ctx) => {
        const type = optStr(ctx, 'type');
        return view(sdn().zones, ctx, (z) => (!type || z.type === type) && audit(ctx, `/sdn/zones/${z.zone}`));
      },
    },
    zoneChange(
      'POST',
      '/cluster/sdn/zones',
      'Create an SDN zone (pending until applied).',
      { zone: ZONE, type: str('Zone type.', { enum: ['evpn', 'faucet', 'qinq', 'simple', 'vlan', 'vxlan'], format: 'pve-configid' }), ...zoneProps },
      (ctx) => {
        const zone = reqStr(ctx, 'zone');
        const type = reqStr(ctx, 'type');
        if ((type === 'vlan' || type === 'qinq') && ctx.params.bridge === undefined) throw fail("missing property - 'bridge' is required for this zone type");
        if (type === 'evpn' && ctx.params.controller !== undefined && !sdn().controllers.config.has(String(ctx.params.controller)))
          throw fail(`controller '${String(ctx.params.controller)}' does not exist`);
        const rec: SdnRecord = { zone, type };
        for (const f of ZONE_FIELDS) if (ctx.params[f] !== undefined) rec[f] = ctx.params[f] as string | number;
        createIn(sdn().zones, zone, 'zone', rec);
        return null;
      },
    ),
    {
      method: 'GET',
      path: '/cluster/sdn/zones/{zone}',
      description: 'One SDN zone.',
      parameters: { zone: ZONE, ...VIEW_PARAMS },
      returns: {},
      permissions: { check: perm('/sdn/zones/{zone}', ['SDN.Allocate']) },
      handler: (ctx) => one(sdn().zones, reqStr(ctx, 'zone'), 'zone', ctx),
    },
    zoneItemChange(
      'PUT',
      '/cluster/sdn/zones/{zone}',
      'Change an SDN zone; delete resets options.',
      { zone: ZONE, ...zoneProps, delete: opt(str('Options to reset.', { format: 'pve-configid-list', maxLength: 4096 })), digest: DIGEST },
      (ctx) => {
        updateIn(sdn().zones, reqStr(ctx, 'zone'), 'zone', ctx, ZONE_FIELDS);
        return null;
      },
    ),
    zoneItemChange('DELETE', '/cluster/sdn/zones/{zone}', 'Delete an SDN zone no vnet uses.', { zone: ZONE }, (ctx) => {
      const zone = reqStr(ctx, 'zone');
      if (!sdn().zones.config.has(zone)) throw fail(`sdn zone '${zone}' does not exist`);
      const user = [...sdn().vnetKind.config.values()].find((v) => v.zone === zone);
      if (user) throw fail(`Can't delete zone '${zone}': vnet '${user.vnet}' uses it`);
      sdn().zones.config.delete(zone);
      return null;
    }),
    // Vnets.
    {
      method: 'GET',
      path: '/cluster/sdn/vnets',
      description: 'SDN vnets (virtual networks guests attach to) the caller may audit.',
      parameters: { ...VIEW_PARAMS },
      returns: arr(
        obj({
          vnet: str('Vnet ID.'),
          type: str('Always vnet.', { enum: ['vnet'] }),
          zone: opt(str('Zone.')),
          tag: opt(int('VLAN or VXLAN tag.')),
          alias: opt(str('Alias.')),
          state: opt(str('Pending change.', { enum: ['new', 'changed', 'deleted'] })),
          pending: opt(obj({})),
          digest: opt(str('Digest.')),
        }),
        { links: [{ rel: 'child', href: '{vnet}' }] },
      ),
      permissions: { user: 'all', description: 'Only vnets with SDN.Audit or SDN.Allocate on their zone.' },
      handler: (ctx) => view(sdn().vnetKind, ctx, (v) => audit(ctx, `/sdn/zones/${v.zone}/${v.vnet}`)),
    },
    changeOperations({ check: perm('/sdn/zones/{zone}', ['SDN.Allocate']) })(
      'POST',
      '/cluster/sdn/vnets',
      'Create an SDN vnet in a zone (pending until applied).',
      {
        vnet: VNET,
        zone: str('Zone the vnet belongs to.'),
        tag: opt(int('VLAN or VXLAN tag.', { minimum: 1, maximum: 16777215 })),
        alias: opt(str('Alias.', { maxLength: 256 })),
        vlanaware: opt(bool('Allow VLANs inside the vnet.')),
        type: opt(str('Always vnet.', { enum: ['vnet'] })),
      },
      (ctx) => {
        const vnet = reqStr(ctx, 'vnet');
        const zone = reqStr(ctx, 'zone');
        const z = sdn().zones.config.get(zone);
        if (!z) throw fail(`zone '${zone}' doesn't exist`);
        const tag = ctx.params.tag as number | undefined;
        if ((z.type === 'vlan' || z.type === 'qinq' || z.type === 'vxlan' || z.type === 'evpn') && tag === undefined) throw fail(`missing vlan tag`);
        if (z.type === 'simple' && tag !== undefined) throw fail(`vlan tag is not allowed on simple zone`);
        if (tag !== undefined) {
          const clash = [...sdn().vnetKind.config.values()].find((v) => v.zone === zone && v.tag === tag);
          if (clash) throw fail(`tag ${tag} already exists in vnet '${clash.vnet}'`);
        }
        const rec: SdnRecord = { vnet, type: 'vnet', zone };
        for (const f of ['tag', 'alias', 'vlanaware']) if (ctx.params[f] !== undefined) rec[f] = ctx.params[f] as string | number;
        createIn(sdn().vnetKind, vnet, 'vnet', rec);
        return null;
      },
    ),
    {
      method: 'GET',
      path: '/cluster/sdn/vnets/{vnet}',
      description: 'One SDN vnet.',
      parameters: { vnet: VNET, ...VIEW_PARAMS },
      returns: {},
      permissions: { user: 'all', description: 'SDN.Audit or SDN.Allocate on the vnet (checked by the handler).' },
      handler: (ctx) => {
        const rec = one(sdn().vnetKind, reqStr(ctx, 'vnet'), 'vnet', ctx);
        const path = `/sdn/zones/${String(rec.zone)}/${String(rec.vnet)}`;
        if (!audit(ctx, path)) throw permissionDenied(path, 'SDN.Audit');
        return rec;
      },
    },
    vnetChange(
      'PUT',
      '/cluster/sdn/vnets/{vnet}',
      'Change an SDN vnet; delete resets options.',
      {
        vnet: VNET,
        zone: opt(str('Zone the vnet belongs to.')),
        tag: opt(int('VLAN or VXLAN tag.', { minimum: 1, maximum: 16777215 })),
        alias: opt(str('Alias.', { maxLength: 256 })),
        vlanaware: opt(bool('Allow VLANs inside the vnet.')),
        delete: opt(str('Options to reset.', { format: 'pve-configid-list', maxLength: 4096 })),
        digest: DIGEST,
      },
      (ctx) => {
        updateIn(sdn().vnetKind, reqStr(ctx, 'vnet'), 'vnet', ctx, ['zone', 'tag', 'alias', 'vlanaware']);
        return null;
      },
    ),
    vnetChange('DELETE', '/cluster/sdn/vnets/{vnet}', 'Delete an SDN vnet without subnets.', { vnet: VNET }, (ctx) => {
      const vnet = reqStr(ctx, 'vnet');
      if (!sdn().vnetKind.config.has(vnet)) throw fail(`sdn vnet '${vnet}' does not exist`);
      if ([...sdn().subnets.config.values()].some((s) => s.vnet === vnet)) throw fail(`Can't delete vnet '${vnet}' with subnets`);
      sdn().vnetKind.config.delete(vnet);
      return null;
    }),
    // Subnets.
    {
      method: 'GET',
      path: '/cluster/sdn/vnets/{vnet}/subnets',
      description: 'Subnets of one vnet: network, gateway, SNAT and DHCP ranges.',
      parameters: { vnet: VNET, ...VIEW_PARAMS },
      returns: arr(obj({}), { links: [{ rel: 'child', href: '{subnet}' }] }),
      permissions: { user: 'all', description: 'SDN.Audit on the vnet.' },
      handler: (ctx) => {
        const vnet = reqStr(ctx, 'vnet');
        if (!sdn().vnetKind.config.has(vnet) && !sdn().vnetKind.running.has(vnet)) throw fail(`sdn vnet '${vnet}' does not exist`);
        return view(sdn().subnets, ctx, (s) => s.vnet === vnet);
      },
    },
    vnetChange(
      'POST',
      '/cluster/sdn/vnets/{vnet}/subnets',
      'Add a subnet to a vnet (pending until applied).',
      {
        vnet: str('SDN vnet ID.'),
        subnet: str('Network in CIDR notation.', { format: 'pve-sdn-subnet-id' }),
        type: str('Always subnet.', { enum: ['subnet'] }),
        gateway: opt(str('Gateway address.', { format: 'ip' })),
        snat: opt(bool('Masquerade outgoing traffic.')),
        'dhcp-range': opt(arr(str('start-address=…,end-address=…'))),
      },
      (ctx) => {
        const vnet = reqStr(ctx, 'vnet');
        const v = sdn().vnetKind.config.get(vnet);
        if (!v) throw fail(`sdn vnet '${vnet}' does not exist`);
        const cidr = reqStr(ctx, 'subnet');
        const [network, mask] = cidr.split('/');
        const id = `${String(v.zone)}-${network}-${mask}`;
        const rec: SdnRecord = { subnet: id, id, cidr, network: network as string, mask: mask as string, type: 'subnet', vnet, zone: String(v.zone) };
        if (ctx.params.gateway !== undefined) rec.gateway = String(ctx.params.gateway);
        if (ctx.params.snat !== undefined) rec.snat = Number(ctx.params.snat);
        const range = ctx.params['dhcp-range'];
        if (range !== undefined) rec['dhcp-range'] = Array.isArray(range) ? range.join(';') : String(range);
        createIn(sdn().subnets, id, 'subnet', rec);
        return null;
      },
    ),
    {
      method: 'GET',
      path: '/cluster/sdn/vnets/{vnet}/subnets/{subnet}',
      description: 'One subnet of a vnet.',
      parameters: { vnet: VNET, subnet: str('Subnet ID (zone-network-mask).', { format: 'pve-sdn-subnet-id' }), ...VIEW_PARAMS },
      returns: obj({}),
      permissions: { user: 'all', description: 'SDN.Audit on the vnet.' },
      handler: (ctx) => one(sdn().subnets, reqStr(ctx, 'subnet'), 'subnet', ctx),
    },
    vnetChange(
      'DELETE',
      '/cluster/sdn/vnets/{vnet}/subnets/{subnet}',
      'Remove a subnet from a vnet.',
      { vnet: VNET, subnet: str('Subnet ID (zone-network-mask).', { format: 'pve-sdn-subnet-id' }) },
      (ctx) => {
        const id = reqStr(ctx, 'subnet');
        if (!sdn().subnets.config.has(id)) throw fail(`sdn subnet '${id}' does not exist`);
        sdn().subnets.config.delete(id);
        return null;
      },
    ),
  ];
}
