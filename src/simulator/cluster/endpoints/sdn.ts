/**
 * SDN: zones, vnets, subnets, controllers, IPAMs, DNS servers and fabrics of the cluster, and the
 * view of each node (zone status, bridges, fabric routes and neighbours). Writes to zones, vnets
 * and subnets go to the pending configuration with PVE's checks (IDs that exist or not, zones
 * still used by vnets, vnets still holding subnets, digests); `PUT /cluster/sdn` applies them in a
 * `reloadnetworkall` task. Plugin secrets (DNS keys, IPAM tokens) are never shown.
 */
import type { SchemaNode } from '../../../schema/model.js';
import type { SimEndpoint, SimRequestContext } from '../../contract.js';
import { assertUnmodified, fail, permissionDenied } from '../errors.js';
import { applySdn, recordState, sdnOf, type SdnKind, type SdnRecord } from '../sdn.js';
import type { ClusterState } from '../state.js';
import { createHash } from 'node:crypto';
import { changeOperations } from './change.js';
import { flag, list, optStr, reqStr } from './params.js';
import { arr, bool, int, obj, opt, P, perm, str, UPID } from './schema.js';

type Json = Record<string, unknown>;

const INDEX = arr(obj({}), { links: [{ rel: 'child', href: '{name}' }] });
const SUBDIR_INDEX = arr(obj({ subdir: str('Sub-path.') }), { links: [{ rel: 'child', href: '{subdir}' }] });
const VIEW_PARAMS: Record<string, SchemaNode> = {
  pending: opt(bool('Show pending changes next to the running values.')),
  running: opt(bool('Show the running (applied) configuration.')),
};
const ZONE = str('SDN zone ID.', { format: 'pve-sdn-zone-id' });
const VNET = str('SDN vnet ID.', { format: 'pve-sdn-vnet-id' });
const DIGEST = opt(str('Refuse the change unless the configuration still has this digest.', { maxLength: 64 }));

const digestOf = (k: SdnKind): string => createHash('sha1').update(JSON.stringify([...k.config.values()])).digest('hex');

/** A listing of one SDN kind as PVE gives it: config, running, or running with pending changes. */
function view(k: SdnKind, ctx: SimRequestContext, keep: (r: SdnRecord) => boolean = () => true): Json[] {
  const digest = digestOf(k);
  if (flag(ctx, 'running')) return [...k.running.values()].filter(keep).map((r) => ({ ...r, digest }));
  if (!flag(ctx, 'pending')) return [...k.config.values()].filter(keep).map((r) => ({ ...r, digest }));
  const ids = new Set([...k.running.keys(), ...k.config.keys()]);
  const out: Json[] = [];
  for (const id of ids) {
    const st = recordState(k, id);
    const base = (k.running.get(id) ?? k.config.get(id)) as SdnRecord;
    if (!keep(base)) continue;
    const rec: Json = { ...base, digest };
    if (st) rec.state = st;
    if (st === 'new' || st === 'changed') rec.pending = { ...k.config.get(id) };
    out.push(rec);
  }
  return out;
}

function one(k: SdnKind, id: string, what: string, ctx: SimRequestContext): Json {
  const rec = flag(ctx, 'running') ? k.running.get(id) : k.config.get(id);
  if (!rec) throw fail(`sdn ${what} '${id}' does not exist`);
  return { ...rec, digest: digestOf(k) };
}

export function sdnEndpoints(state: ClusterState): SimEndpoint[] {
  const sdn = () => sdnOf(state);
  const audit = (ctx: SimRequestContext, path: string): boolean => ctx.hasPriv(path, 'SDN.Audit') || ctx.hasPriv(path, 'SDN.Allocate');
  const zoneChange = changeOperations({ check: perm('/sdn/zones', ['SDN.Allocate']) });
  const zoneItemChange = changeOperations({ check: perm('/sdn/zones/{zone}', ['SDN.Allocate']) });
  const vnetChange = changeOperations({ user: 'all', description: 'SDN.Allocate on the vnet (checked by the handler).' });
  const nodeParam = { node: P.node };
  const nodeZone = (ctx: SimRequestContext) => {
    const node = reqStr(ctx, 'node');
    state.node(node);
    const zone = reqStr(ctx, 'zone');
    if (!sdn().zones.running.has(zone) && zone !== 'localnetwork') throw fail(`zone '${zone}' not found`);
    return { node, zone };
  };
  const vnetsOf = (zone: string) => [...sdn().vnetKind.running.values()].filter((v) => v.zone === zone);
  const fabric = (ctx: SimRequestContext, param = 'fabric') => {
    const id = reqStr(ctx, param);
    const f = sdn().fabrics.config.get(id);
    if (!f) throw fail(`fabric '${id}' does not exist`);
    return f;
  };
  const fabricNodes = (id: string, kind: SdnKind = sdn().fabricNodes): Json[] =>
    [...kind.config.values()].filter((n) => n.fabric_id === id).map(({ key: _key, interfaces, ...n }) => ({ ...n, interfaces: [interfaces] }));

  const createIn = (k: SdnKind, id: string, what: string, rec: SdnRecord) => {
    if (k.config.has(id)) throw fail(`sdn ${what} object ID '${id}' already defined`);
    k.config.set(id, rec);
  };
  const updateIn = (k: SdnKind, id: string, what: string, ctx: SimRequestContext, fields: string[]) => {
    const rec = k.config.get(id);
    if (!rec) throw fail(`sdn ${what} '${id}' does not exist`);
    assertUnmodified(digestOf(k), optStr(ctx, 'digest'));
    for (const key of list(ctx.params.delete)) delete rec[key];
    for (const f of fields) {
      const v = ctx.params[f];
      if (v !== undefined) rec[f] = typeof v === 'number' ? v : String(v);
    }
  };
  const ZONE_FIELDS = ['bridge', 'tag', 'ipam', 'dhcp', 'dns', 'dnszone', 'reversedns', 'mtu', 'nodes', 'peers', 'controller', 'vrf-vxlan', 'mac', 'exitnodes'];
  const zoneProps: Record<string, SchemaNode> = {
    bridge: opt(str('Bridge the zone runs on (vlan, qinq).')),
    tag: opt(int('Service VLAN tag (qinq).', { minimum: 0 })),
    ipam: opt(str('IPAM that hands out addresses.')),
    dhcp: opt(str('DHCP server for the zone.', { enum: ['dnsmasq'] })),
    dns: opt(str('DNS server plugin.')),
    dnszone: opt(str('DNS zone for the guests.', { format: 'dns-name' })),
    reversedns: opt(str('Reverse DNS plugin.')),
    mtu: opt(int('MTU of the zone.')),
    nodes: opt(str('Nodes the zone is deployed on.', { format: 'pve-node-list' })),
    peers: opt(str('VXLAN peer addresses.', { format: 'ip-list' })),
    controller: opt(str('EVPN controller.')),
    'vrf-vxlan': opt(int('VXLAN ID of the VRF (evpn).', { minimum: 1, maximum: 16777215 })),
    mac: opt(str('Anycast MAC of the gateway (evpn).', { format: 'mac-addr' })),
    exitnodes: opt(str('Exit nodes (evpn).', { format: 'pve-node-list' })),
  };

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
      returns: arr(obj({ zone: str('Zone ID.'), type: str('Zone type.', { enum: ['evpn', 'faucet', 'qinq', 'simple', 'vlan', 'vxlan'] }), digest: opt(str('Digest.')), state: opt(str('Pending change.', { enum: ['new', 'changed', 'deleted'] })), pending: opt(obj({})) }), { links: [{ rel: 'child', href: '{zone}' }] }),
      permissions: { user: 'all', description: 'Only zones with SDN.Audit or SDN.Allocate on /sdn/zones/<zone>.' },
      handler: (ctx) => {
        const type = optStr(ctx, 'type');
        return view(sdn().zones, ctx, (z) => (!type || z.type === type) && audit(ctx, `/sdn/zones/${z.zone}`));
      },
    },
    zoneChange('POST', '/cluster/sdn/zones', 'Create an SDN zone (pending until applied).', { zone: ZONE, type: str('Zone type.', { enum: ['evpn', 'faucet', 'qinq', 'simple', 'vlan', 'vxlan'], format: 'pve-configid' }), ...zoneProps }, (ctx) => {
      const zone = reqStr(ctx, 'zone');
      const type = reqStr(ctx, 'type');
      if ((type === 'vlan' || type === 'qinq') && ctx.params.bridge === undefined) throw fail("missing property - 'bridge' is required for this zone type");
      if (type === 'evpn' && ctx.params.controller !== undefined && !sdn().controllers.config.has(String(ctx.params.controller))) throw fail(`controller '${String(ctx.params.controller)}' does not exist`);
      const rec: SdnRecord = { zone, type };
      for (const f of ZONE_FIELDS) if (ctx.params[f] !== undefined) rec[f] = ctx.params[f] as string | number;
      createIn(sdn().zones, zone, 'zone', rec);
      return null;
    }),
    {
      method: 'GET',
      path: '/cluster/sdn/zones/{zone}',
      description: 'One SDN zone.',
      parameters: { zone: ZONE, ...VIEW_PARAMS },
      returns: {},
      permissions: { check: perm('/sdn/zones/{zone}', ['SDN.Allocate']) },
      handler: (ctx) => one(sdn().zones, reqStr(ctx, 'zone'), 'zone', ctx),
    },
    zoneItemChange('PUT', '/cluster/sdn/zones/{zone}', 'Change an SDN zone; delete resets options.', { zone: ZONE, ...zoneProps, delete: opt(str('Options to reset.', { format: 'pve-configid-list', maxLength: 4096 })), digest: DIGEST }, (ctx) => {
      updateIn(sdn().zones, reqStr(ctx, 'zone'), 'zone', ctx, ZONE_FIELDS);
      return null;
    }),
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
      returns: arr(obj({ vnet: str('Vnet ID.'), type: str('Always vnet.', { enum: ['vnet'] }), zone: opt(str('Zone.')), tag: opt(int('VLAN or VXLAN tag.')), alias: opt(str('Alias.')), state: opt(str('Pending change.', { enum: ['new', 'changed', 'deleted'] })), pending: opt(obj({})), digest: opt(str('Digest.')) }), { links: [{ rel: 'child', href: '{vnet}' }] }),
      permissions: { user: 'all', description: 'Only vnets with SDN.Audit or SDN.Allocate on their zone.' },
      handler: (ctx) => view(sdn().vnetKind, ctx, (v) => audit(ctx, `/sdn/zones/${v.zone}/${v.vnet}`)),
    },
    changeOperations({ check: perm('/sdn/zones/{zone}', ['SDN.Allocate']) })('POST', '/cluster/sdn/vnets', 'Create an SDN vnet in a zone (pending until applied).', { vnet: VNET, zone: str('Zone the vnet belongs to.'), tag: opt(int('VLAN or VXLAN tag.', { minimum: 1, maximum: 16777215 })), alias: opt(str('Alias.', { maxLength: 256 })), vlanaware: opt(bool('Allow VLANs inside the vnet.')), type: opt(str('Always vnet.', { enum: ['vnet'] })) }, (ctx) => {
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
    }),
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
    vnetChange('PUT', '/cluster/sdn/vnets/{vnet}', 'Change an SDN vnet; delete resets options.', { vnet: VNET, zone: opt(str('Zone the vnet belongs to.')), tag: opt(int('VLAN or VXLAN tag.', { minimum: 1, maximum: 16777215 })), alias: opt(str('Alias.', { maxLength: 256 })), vlanaware: opt(bool('Allow VLANs inside the vnet.')), delete: opt(str('Options to reset.', { format: 'pve-configid-list', maxLength: 4096 })), digest: DIGEST }, (ctx) => {
      updateIn(sdn().vnetKind, reqStr(ctx, 'vnet'), 'vnet', ctx, ['zone', 'tag', 'alias', 'vlanaware']);
      return null;
    }),
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
    vnetChange('POST', '/cluster/sdn/vnets/{vnet}/subnets', 'Add a subnet to a vnet (pending until applied).', { vnet: str('SDN vnet ID.'), subnet: str('Network in CIDR notation.', { format: 'pve-sdn-subnet-id' }), type: str('Always subnet.', { enum: ['subnet'] }), gateway: opt(str('Gateway address.', { format: 'ip' })), snat: opt(bool('Masquerade outgoing traffic.')), 'dhcp-range': opt(arr(str('start-address=…,end-address=…'))) }, (ctx) => {
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
    }),
    {
      method: 'GET',
      path: '/cluster/sdn/vnets/{vnet}/subnets/{subnet}',
      description: 'One subnet of a vnet.',
      parameters: { vnet: VNET, subnet: str('Subnet ID (zone-network-mask).', { format: 'pve-sdn-subnet-id' }), ...VIEW_PARAMS },
      returns: obj({}),
      permissions: { user: 'all', description: 'SDN.Audit on the vnet.' },
      handler: (ctx) => one(sdn().subnets, reqStr(ctx, 'subnet'), 'subnet', ctx),
    },
    vnetChange('DELETE', '/cluster/sdn/vnets/{vnet}/subnets/{subnet}', 'Remove a subnet from a vnet.', { vnet: VNET, subnet: str('Subnet ID (zone-network-mask).', { format: 'pve-sdn-subnet-id' }) }, (ctx) => {
      const id = reqStr(ctx, 'subnet');
      if (!sdn().subnets.config.has(id)) throw fail(`sdn subnet '${id}' does not exist`);
      sdn().subnets.config.delete(id);
      return null;
    }),
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
            out.push({ zone: s.zone, vnet: s.vnet, subnet: s.cidr, ip: `${String(s.network).replace(/\.0$/, '')}.${n++}`, vmid: g.vmid, hostname: String(g.config.name ?? g.config.hostname ?? ''), ...(mac ? { mac } : {}) });
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
      returns: arr(obj({ fabric_id: str('Fabric.', { format: 'pve-sdn-fabric-id' }), node_id: str('Node.', { format: 'pve-node' }), protocol: str('Protocol.', { enum: ['openfabric', 'ospf'] }), interfaces: arr(str('Interface.')) })),
      permissions: { user: 'all', description: 'Only fabrics with SDN.Audit.' },
      handler: (ctx) => [...sdn().fabrics.config.keys()].filter((id) => audit(ctx, `/sdn/fabrics/${id}`)).flatMap((id) => fabricNodes(id)),
    },
    {
      method: 'GET',
      path: '/cluster/sdn/fabrics/node/{fabric_id}',
      description: 'The nodes of one fabric.',
      parameters: { fabric_id: str('Fabric ID.', { format: 'pve-sdn-fabric-id' }), ...VIEW_PARAMS },
      returns: arr(obj({ fabric_id: str('Fabric.', { format: 'pve-sdn-fabric-id' }), node_id: str('Node.', { format: 'pve-node' }), protocol: str('Protocol.', { enum: ['openfabric', 'ospf'] }), interfaces: arr(str('Interface.')) }), { links: [{ rel: 'child', href: '{node_id}' }] }),
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
      returns: obj({ fabrics: arr(obj({ id: str('Fabric ID.', { format: 'pve-sdn-fabric-id' }), protocol: str('Protocol.', { enum: ['openfabric', 'ospf'] }) })), nodes: arr(obj({ fabric_id: str('Fabric.', { format: 'pve-sdn-fabric-id' }), node_id: str('Node.', { format: 'pve-node' }), protocol: str('Protocol.', { enum: ['openfabric', 'ospf'] }), interfaces: arr(str('Interface.')) })) }),
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
        return { 'interfaces-diff': lines.length ? `--- /etc/network/interfaces.d/sdn\n+++ /etc/network/interfaces.d/sdn.new\n${lines.join('\n')}\n` : '' , 'frr-diff': '' };
      },
    },
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
      returns: arr(obj({ zone: str('Zone.', { format: 'pve-sdn-zone-id' }), status: str('Deployment state.', { enum: ['available', 'pending', 'error'] }) }), { links: [{ rel: 'child', href: '{zone}' }] }),
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
      description: "Views of a zone on a node (directory index).",
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
        if (zone === 'localnetwork') return state.node(node).interfaces.filter((i) => i.type === 'bridge').map((i) => ({ vnet: i.iface, status: 'available' }));
        return vnetsOf(zone).map((v) => ({ vnet: String(v.vnet), status: 'available' }));
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/sdn/zones/{zone}/bridges',
      description: 'The bridges of a zone on a node with the guest ports attached to each.',
      parameters: { node: P.node, zone: str('Zone ID.') },
      returns: arr(obj({ name: str('Bridge.'), vlan_filtering: str('0 or 1.'), ports: arr(obj({ name: str('Port.'), vmid: opt(num0('Guest.')), index: opt(str('NIC index.')), primary_vlan: opt(num0('Untagged VLAN.')) })) })),
      permissions: { check: perm('/sdn/zones/{zone}', ['SDN.Audit']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const { node, zone } = nodeZone(ctx);
        const bridges = zone === 'localnetwork' ? state.node(node).interfaces.filter((i) => i.type === 'bridge').map((i) => i.iface) : vnetsOf(zone).map((v) => String(v.vnet));
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
    ...(['routes', 'neighbors', 'interfaces'] as const).map((what): SimEndpoint => ({
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
    })),
    {
      method: 'GET',
      path: '/nodes/{node}/sdn/fabrics/{fabric}',
      description: "Views of a fabric on a node (directory index).",
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

function num0(description: string): SchemaNode {
  return { type: 'number', description };
}
