/**
 * Software-defined networking as PVE keeps it in /etc/pve/sdn: zones, vnets, subnets,
 * controllers, IPAMs, DNS plugins and fabrics. Changes go to the pending configuration; applying
 * (`PUT /cluster/sdn`) makes it the running one, as on PVE. Built on first use: a cluster has a
 * VLAN zone on the guest bridge with two VLANs, an isolated simple zone with DHCP and a subnet,
 * an EVPN controller, the built-in IPAM, a PowerDNS server and an OpenFabric underlay.
 */
import type { ClusterState } from './state.js';

export type SdnRecord = Record<string, string | number>;

export interface SdnKind {
  /** The pending (edited) configuration, by ID. */
  config: Map<string, SdnRecord>;
  /** What was applied last. */
  running: Map<string, SdnRecord>;
}

export interface SdnState {
  zones: SdnKind;
  vnets: Map<string, SdnRecord>;
  vnetKind: SdnKind;
  subnets: SdnKind;
  controllers: SdnKind;
  ipams: Map<string, SdnRecord>;
  dns: Map<string, SdnRecord>;
  fabrics: SdnKind;
  fabricNodes: SdnKind;
}

const kind = (records: SdnRecord[], key: string): SdnKind => {
  const config = new Map(records.map((r) => [String(r[key]), r]));
  return { config, running: new Map([...config].map(([k, v]) => [k, { ...v }])) };
};

export function sdnOf(state: ClusterState): SdnState {
  return state.area('sdn', () => {
    const nodes = [...state.nodes.values()];
    const clustered = nodes.length > 1;
    const zones: SdnRecord[] = clustered
      ? [
          { zone: 'lan', type: 'vlan', bridge: 'vmbr1', ipam: 'pve' },
          { zone: 'isolated', type: 'simple', ipam: 'pve', dhcp: 'dnsmasq', dns: 'pdns', dnszone: 'lab.example.org' },
        ]
      : [];
    const vnets: SdnRecord[] = clustered
      ? [
          { vnet: 'vlan20', type: 'vnet', zone: 'lan', tag: 20, alias: 'Office clients' },
          { vnet: 'vlan30', type: 'vnet', zone: 'lan', tag: 30, alias: 'Storage traffic' },
          { vnet: 'lab', type: 'vnet', zone: 'isolated', alias: 'Isolated lab' },
        ]
      : [];
    const subnets: SdnRecord[] = clustered
      ? [
          {
            subnet: 'isolated-10.20.0.0-24',
            id: 'isolated-10.20.0.0-24',
            cidr: '10.20.0.0/24',
            network: '10.20.0.0',
            mask: '24',
            type: 'subnet',
            vnet: 'lab',
            zone: 'isolated',
            gateway: '10.20.0.1',
            snat: 1,
            'dhcp-range': 'start-address=10.20.0.100,end-address=10.20.0.200',
          },
        ]
      : [];
    const vnetKind = kind(vnets, 'vnet');
    const sdn: SdnState = {
      zones: kind(zones, 'zone'),
      vnets: vnetKind.config,
      vnetKind,
      subnets: kind(subnets, 'id'),
      controllers: kind(clustered ? [{ controller: 'evpn1', type: 'evpn', asn: 65000, peers: nodes.map((n) => n.ip).join(',') }] : [], 'controller'),
      ipams: new Map([['pve', { ipam: 'pve', type: 'pve' }]]),
      dns: new Map(clustered ? [['pdns', { dns: 'pdns', type: 'powerdns', url: 'http://10.0.0.53:8081/api/v1/servers/localhost', ttl: 300 }]] : []),
      fabrics: kind(clustered ? [{ id: 'underlay', protocol: 'openfabric', ip_prefix: '10.255.0.0/24', hello_interval: 3, csnp_interval: 10 }] : [], 'id'),
      fabricNodes: kind(
        clustered ? nodes.map((n, i) => ({ key: `underlay/${n.name}`, fabric_id: 'underlay', node_id: n.name, protocol: 'openfabric', ip: `10.255.0.${i + 1}`, interfaces: 'name=eno2' })) : [],
        'key',
      ),
    };
    return sdn;
  });
}

/** Whether any SDN kind has changes not applied yet (`state` of each record otherwise). */
export function recordState(k: SdnKind, id: string): 'new' | 'changed' | 'deleted' | undefined {
  const c = k.config.get(id);
  const r = k.running.get(id);
  if (c && !r) return 'new';
  if (!c && r) return 'deleted';
  if (c && r && JSON.stringify(c) !== JSON.stringify(r)) return 'changed';
  return undefined;
}

export function applySdn(s: SdnState): void {
  for (const k of [s.zones, s.vnetKind, s.subnets, s.controllers, s.fabrics, s.fabricNodes]) {
    k.running = new Map([...k.config].map(([id, v]) => [id, { ...v }]));
  }
}
