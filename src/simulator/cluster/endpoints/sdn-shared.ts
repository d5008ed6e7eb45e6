/**
 * What the SDN endpoint families share: the listing views PVE gives (config, running, pending),
 * the digest every change checks, and the per-cluster helpers their handlers use.
 */
import type { SchemaNode } from '../../../schema/model.js';
import type { SimRequestContext } from '../../contract.js';
import { assertUnmodified, fail } from '../errors.js';
import { recordState, type SdnKind, sdnOf, type SdnRecord } from '../sdn.js';
import type { ClusterState } from '../state.js';
import { changeOperations } from './change.js';
import { flag, list, optStr, reqStr } from './params.js';
import { arr, bool, int, obj, opt, P, perm, str } from './schema.js';
import { createHash } from 'node:crypto';

export type Json = Record<string, unknown>;

export const INDEX = arr(obj({}), { links: [{ rel: 'child', href: '{name}' }] });
export const SUBDIR_INDEX = arr(obj({ subdir: str('Sub-path.') }), { links: [{ rel: 'child', href: '{subdir}' }] });
export const VIEW_PARAMS: Record<string, SchemaNode> = {
  pending: opt(bool('Show pending changes next to the running values.')),
  running: opt(bool('Show the running (applied) configuration.')),
};
export const ZONE = str('SDN zone ID.', { format: 'pve-sdn-zone-id' });
export const VNET = str('SDN vnet ID.', { format: 'pve-sdn-vnet-id' });
export const DIGEST = opt(str('Refuse the change unless the configuration still has this digest.', { maxLength: 64 }));

export const digestOf = (k: SdnKind): string =>
  createHash('sha1')
    .update(JSON.stringify([...k.config.values()]))
    .digest('hex');

/** A listing of one SDN kind as PVE gives it: config, running, or running with pending changes. */
export function view(k: SdnKind, ctx: SimRequestContext, keep: (r: SdnRecord) => boolean = () => true): Json[] {
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

export function one(k: SdnKind, id: string, what: string, ctx: SimRequestContext): Json {
  const rec = flag(ctx, 'running') ? k.running.get(id) : k.config.get(id);
  if (!rec) throw fail(`sdn ${what} '${id}' does not exist`);
  return { ...rec, digest: digestOf(k) };
}

/** The helpers the SDN handlers share, bound to one cluster. */
export function sdnContext(state: ClusterState) {
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

  return { sdn, audit, zoneChange, zoneItemChange, vnetChange, nodeParam, nodeZone, vnetsOf, fabric, fabricNodes, createIn, updateIn, ZONE_FIELDS, zoneProps };
}

export function num0(description: string): SchemaNode {
  return { type: 'number', description };
}
