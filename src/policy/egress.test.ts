/**
 * Egress kept complete: a walk of every operation and parameter of the PVE 9.1 schema finds those
 * that look like they make the cluster contact a host (names, formats, property-string keys and
 * descriptions of URLs, servers, hosts, ports, addresses, mail recipients, peers) and requires each
 * to be classified: raised as an egress operation (schema/risk-egress.ts) or an egress escalation
 * (escalations.ts, class `data-egress`), already privileged for another reason, or reviewed as not
 * egress below with its reason. A new release that adds such a parameter fails here until someone
 * decides which it is. docs/risk-classes.md lists the reviewed non-egress hits (checked below).
 */
import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSchemaFromFile } from '../schema/loader.js';
import type { ApiModel, Operation, ParamSpec } from '../schema/model.js';
import { OFFICIAL_SCHEMA_SKIP_MESSAGE, hasOfficialSchema, officialSchemaFile } from '../schema/official-schemas.js';
import { EGRESS_OPERATIONS } from '../schema/risk-egress.js';
import { explainRisk } from '../schema/risk.js';
import { callRisk, escalatingParams, paramMatches } from './escalations.js';

const NAME_TOKEN =
  /^(?:url|uri|server|servers|host|hostname|port|mailto|mail|email|endpoint|address|addr|peer|peers|webhook|smtp|proxy|registry|remote|portal|monhost|target|domain|dns|nameserver|gateway|gw|ip|fingerprint|directory)$/i;
const FORMAT = /email|address|dns-name|^ip|url|host|cidr/i;
const DESCRIPTION = /\b(?:url|uri|server|endpoint|e-?mail|peers?|ip address|hostname|dns name|remote)\b/i;

const tokens = (name: string) => name.split(/[-_[\]]/);

/** Why a parameter looks like egress, or undefined. */
function looksLikeEgress(p: ParamSpec): string | undefined {
  if (tokens(p.name).some((t) => NAME_TOKEN.test(t))) return 'name';
  const format = typeof p.format === 'string' ? p.format : typeof p.items?.format === 'string' ? p.items.format : undefined;
  if (format && FORMAT.test(format)) return `format ${format}`;
  if (p.format && typeof p.format === 'object') {
    const keys = Object.keys(p.format).filter((k) => tokens(k).some((t) => NAME_TOKEN.test(t)));
    if (keys.length > 0) return `keys ${keys.join(',')}`;
  }
  if (DESCRIPTION.test(p.description ?? '')) return 'description';
  return undefined;
}

interface NotEgress {
  id: string;
  /** The parameter, an indexed family folded to `name[n]`. */
  params: RegExp;
  path?: RegExp;
  reason: string;
}

const GUEST_OPS = /^\/nodes\/\{node\}\/(?:qemu|lxc)(?:\/|$)/;

/** Reviewed hits of the walk that make the cluster contact no host the caller names. Listed in docs/risk-classes.md. */
const NOT_EGRESS: readonly NotEgress[] = [
  { id: 'guest-names', params: /^(?:name|hostname)$/, path: GUEST_OPS, reason: 'the name of a guest; nothing connects to it' },
  {
    id: 'guest-network',
    params: /^(?:nameserver|searchdomain|ipconfig\[n\]|net\[n\])$/,
    path: GUEST_OPS,
    reason: "the guest's own addresses, gateway and DNS servers: the guest could set them itself, and the node sends nothing there",
  },
  { id: 'guest-firewall', params: /^(?:cidr|source|dest|dport)$/, path: /\/firewall\//, reason: 'guest and VNet firewall rules, aliases and IP sets filter traffic; they make nothing connect' },
  {
    id: 'cluster-targets',
    params: /^(?:target|target_node|target-storage|target-vmid|target-disk|target-volume|target-digest|source)$/,
    reason: 'a node, storage, guest, volume or digest of this cluster (migration, clone, replication, task filters, notification matchers are raised as a whole)',
  },
  { id: 'sizes', params: /^(?:target_size|target_size_ratio|ballooning-target|nets-host-mtu)$/, reason: 'a size, ratio or MTU' },
  { id: 'migration-network', params: /^migration_network$/, reason: 'a network of the cluster itself: migration traffic stays between its nodes' },
  {
    id: 'sdn-subnet-guest-settings',
    params: /^(?:gateway|dhcp-dns-server|dnszoneprefix)$/,
    path: /^\/cluster\/sdn\/vnets\/\{vnet\}\/subnets/,
    reason: "what DHCP tells the subnet's guests; the node sends nothing there",
  },
  { id: 'sdn-dns-zone-name', params: /^dnszone$/, reason: 'the domain records are created under; the DNS server itself is chosen by `dns` (sdn-zone-dns)' },
  { id: 'sdn-peer-settings', params: /^(?:vxlan-port|ebgp|ebgp-multihop)$/, reason: 'how the node talks to the peers, which are raised by sdn-peers; no host of its own' },
  { id: 'sdn-fabric-addresses', params: /^(?:ip|ip6|ip_prefix|ip6_prefix)$/, path: /^\/cluster\/sdn\/fabrics\//, reason: "the node's own addresses in the fabric" },
  { id: 'sdn-isis-domain', params: /^isis-domain$/, reason: 'the name of an IS-IS domain' },
  {
    id: 'sdn-ipam-entries',
    params: /^ip$/,
    path: /^\/cluster\/sdn\/vnets\/\{vnet\}\/ips$/,
    reason: 'one address mapping kept in the IPAM the zone already uses; which IPAM that is was chosen by a privileged plugin and sdn-zone-ipam',
  },
  { id: 'acme-domains', params: /^acmedomain\[n\]$/, reason: 'a domain a certificate is ordered for; ordering it is privileged (host-system)' },
  { id: 'host-devices', params: /^(?:hostpci\[n\]|usb\[n\])$/, reason: 'host device IDs (raised by qemu-host-pci, qemu-host-usb)' },
  { id: 'ssh-keys', params: /^sshkeys$/, reason: 'URL-encoded SSH keys, not a URL (raised by cloudinit-sshkeys)' },
  { id: 'ceph-failure-domain', params: /^erasure-coding$/, reason: 'the CRUSH failure domain of a pool' },
  { id: 'vnc-keyboard', params: /^keyboard$/, reason: 'the keyboard layout of the VNC console' },
  {
    id: 'backup-notification-mode',
    params: /^notification-mode$/,
    reason: 'which notification system reports the backup; its recipients are `mailto` (backup-mailto) or the notification targets (privileged)',
  },
];

type Verdict = 'egress operation' | 'egress parameter' | 'already privileged' | `not egress: ${string}` | 'unclassified';

function fold(p: ParamSpec): string {
  return p.family ? `${p.family.base}[n]` : p.name;
}

function classify(op: Operation, p: ParamSpec): Verdict {
  const decided = explainRisk(op).source;
  if (EGRESS_OPERATIONS.some((e) => decided === `rule:${e.id}`)) return 'egress operation';
  if (op.risk === 'privileged') return 'already privileged';
  if (escalatingParams(op).some((e) => e.rule.class === 'data-egress' && paramMatches(e.param, p.name))) return 'egress parameter';
  const reviewed = NOT_EGRESS.find((n) => n.params.test(fold(p)) && (n.path?.test(op.path) ?? true));
  return reviewed ? `not egress: ${reviewed.id}` : 'unclassified';
}

describe.skipIf(!hasOfficialSchema('9.1'))(`every egress-looking parameter of PVE 9.1 is classified (skipped when absent: ${OFFICIAL_SCHEMA_SKIP_MESSAGE})`, () => {
  let model: ApiModel;
  const hits: Array<{ key: string; param: string; why: string; verdict: Verdict }> = [];
  beforeAll(async () => {
    model = await loadSchemaFromFile(officialSchemaFile('9.1'));
    for (const op of model.operations) {
      for (const p of op.params) {
        if (p.inPath) continue;
        const why = looksLikeEgress(p);
        if (why) hits.push({ key: op.key, param: fold(p), why, verdict: classify(op, p) });
      }
    }
  });

  it('finds the parameters it is meant to find', () => {
    const found = (key: string, param: string) => hits.find((h) => h.key === key && h.param === param)?.verdict;
    expect(found('POST /cluster/notifications/endpoints/webhook', 'url')).toBe('egress operation');
    expect(found('POST /nodes/{node}/vzdump', 'mailto')).toBe('egress parameter');
    expect(found('PUT /cluster/sdn/zones/{zone}', 'peers')).toBe('egress parameter');
    expect(found('GET /cluster/acme/tos', 'directory')).toBe('egress parameter');
    expect(found('POST /access/domains', 'server1')).toBe('already privileged');
    expect(found('PUT /nodes/{node}/qemu/{vmid}/config', 'nameserver')).toBe('not egress: guest-network');
  });

  it('leaves none unclassified', () => {
    expect(hits.filter((h) => h.verdict === 'unclassified').map((h) => `${h.key} ${h.param} (${h.why})`)).toEqual([]);
  });

  it('keeps every reviewed non-egress entry live', () => {
    const used = new Set(hits.map((h) => h.verdict));
    expect(
      NOT_EGRESS.filter((n) => !used.has(`not egress: ${n.id}`)).map((n) => n.id),
      'entries that match no parameter of 9.1',
    ).toEqual([]);
  });
});

describe('the egress parameters raise only when they name a host', () => {
  const op = (method: Operation['method'], path: string, risk: Operation['risk']) => ({ method, path, risk });
  it('raises each to privileged and keeps the harmless twin', () => {
    const vzdump = op('POST', '/nodes/{node}/vzdump', 'write');
    expect(callRisk(vzdump, { vmid: '100', mailto: 'exfil@example.net' }).risk).toBe('privileged');
    expect(callRisk(vzdump, { vmid: '100', mailto: '' }).risk).toBe('write');
    expect(callRisk(op('PUT', '/cluster/backup/{id}', 'write'), { mailto: 'root@pam' }).escalations).toEqual([expect.objectContaining({ rule: 'backup-mailto', class: 'data-egress' })]);
    const zone = op('POST', '/cluster/sdn/zones', 'write');
    expect(callRisk(zone, { zone: 'x', type: 'vxlan', peers: '203.0.113.1' }).risk).toBe('privileged');
    expect(callRisk(zone, { zone: 'x', type: 'simple', ipam: 'pve' }).risk).toBe('write');
    expect(callRisk(zone, { zone: 'x', type: 'simple', ipam: 'netbox1' }).risk).toBe('privileged');
    expect(callRisk(op('PUT', '/cluster/sdn/zones/{zone}', 'write'), { reversedns: 'pdns' }).risk).toBe('privileged');
    expect(callRisk(op('PUT', '/cluster/sdn/controllers/{controller}', 'write'), { peers: '203.0.113.1,203.0.113.2' }).risk).toBe('privileged');
    const tos = op('GET', '/cluster/acme/tos', 'read');
    expect(callRisk(tos, { directory: 'http://169.254.169.254/' }).risk).toBe('privileged');
    expect(callRisk(tos, {}).risk).toBe('read');
    const nodeConfig = op('PUT', '/nodes/{node}/config', 'write');
    expect(callRisk(nodeConfig, { wakeonlan: 'aa:bb:cc:dd:ee:ff,broadcast-address=203.0.113.9' }).risk).toBe('privileged');
    expect(callRisk(nodeConfig, { wakeonlan: 'aa:bb:cc:dd:ee:ff' }).risk).toBe('write');
  });
});

describe('docs/risk-classes.md', () => {
  it('lists every reviewed non-egress hit', async () => {
    const doc = await readFile(new URL('../../docs/risk-classes.md', import.meta.url), 'utf8');
    for (const n of NOT_EGRESS) expect(doc, n.id).toContain(`| \`${n.id}\` |`);
  });
});
