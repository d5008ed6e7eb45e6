/**
 * The firewall configuration of the cluster as PVE keeps it in /etc/pve/firewall: the datacenter
 * file (options, rules, aliases, security groups; IP sets stay in ClusterState), one file per
 * node, per guest and per SDN vnet. Built on first use from the rest of the state: rules follow
 * the guests' roles (web servers accept HTTP/HTTPS through the `webserver` group, databases their
 * port from the application network), guests whose NICs have `firewall=1` have it enabled.
 */
import { createHash } from 'node:crypto';
import { guestIpv4 } from './guest-net.js';
import type { ClusterState } from './state.js';
import type { Guest } from './types.js';

export interface FwRule {
  type: 'in' | 'out' | 'forward' | 'group';
  action: string;
  enable?: number;
  macro?: string;
  source?: string;
  dest?: string;
  proto?: string;
  dport?: string;
  sport?: string;
  iface?: string;
  log?: string;
  'icmp-type'?: string;
  comment?: string;
}

export interface FwAlias {
  name: string;
  cidr: string;
  comment?: string;
}

export interface FwScope {
  options: Record<string, string | number>;
  rules: FwRule[];
  aliases: Map<string, FwAlias>;
}

export interface FwGroup {
  group: string;
  comment?: string;
  rules: FwRule[];
}

export interface FirewallState {
  cluster: FwScope;
  groups: Map<string, FwGroup>;
  nodes: Map<string, FwScope>;
  guests: Map<number, FwScope>;
  vnets: Map<string, FwScope>;
}

/** Macros the firewall knows, with what each opens (ports as PVE's macro table has them). */
export const FW_MACROS: ReadonlyArray<{ macro: string; descr: string; proto: string; dport: string }> = [
  { macro: 'DNS', descr: 'Name service lookups (port 53, TCP and UDP)', proto: 'udp', dport: '53' },
  { macro: 'FTP', descr: 'File transfers over FTP (port 21)', proto: 'tcp', dport: '21' },
  { macro: 'HTTP', descr: 'Plain web traffic (port 80)', proto: 'tcp', dport: '80' },
  { macro: 'HTTPS', descr: 'Encrypted web traffic (port 443)', proto: 'tcp', dport: '443' },
  { macro: 'IMAP', descr: 'Mail access over IMAP (port 143)', proto: 'tcp', dport: '143' },
  { macro: 'IMAPS', descr: 'Mail access over IMAP with TLS (port 993)', proto: 'tcp', dport: '993' },
  { macro: 'LDAP', descr: 'Directory lookups (port 389)', proto: 'tcp', dport: '389' },
  { macro: 'MySQL', descr: 'MySQL and MariaDB clients (port 3306)', proto: 'tcp', dport: '3306' },
  { macro: 'NTP', descr: 'Time synchronisation (port 123, UDP)', proto: 'udp', dport: '123' },
  { macro: 'Ping', descr: 'ICMP echo requests', proto: 'icmp', dport: '' },
  { macro: 'PostgreSQL', descr: 'PostgreSQL clients (port 5432)', proto: 'tcp', dport: '5432' },
  { macro: 'RDP', descr: 'Windows remote desktop (port 3389)', proto: 'tcp', dport: '3389' },
  { macro: 'SMB', descr: 'Windows file sharing (ports 135, 139, 445)', proto: 'tcp', dport: '445' },
  { macro: 'SMTP', descr: 'Mail delivery (port 25)', proto: 'tcp', dport: '25' },
  { macro: 'SNMP', descr: 'Network management queries (ports 161 and 162, UDP)', proto: 'udp', dport: '161' },
  { macro: 'SSH', descr: 'Secure shell logins (port 22)', proto: 'tcp', dport: '22' },
  { macro: 'Syslog', descr: 'Remote system logging (port 514)', proto: 'udp', dport: '514' },
  { macro: 'Telnet', descr: 'Unencrypted terminal sessions (port 23)', proto: 'tcp', dport: '23' },
  { macro: 'Web', descr: 'Web traffic, plain and encrypted (ports 80 and 443)', proto: 'tcp', dport: '80,443' },
];

export const FW_PROTOCOLS = ['tcp', 'udp', 'icmp', 'ipv6-icmp', 'icmpv6', 'igmp', 'gre', 'esp', 'ah', 'sctp', 'udplite', 'vrrp', 'ospf'];

const emptyScope = (): FwScope => ({ options: {}, rules: [], aliases: new Map() });

function roleRules(g: Guest): FwRule[] {
  const tags = String(g.config.tags ?? '').split(';');
  const out: FwRule[] = [];
  if (tags.includes('web')) out.push({ type: 'group', action: 'webserver', comment: 'public web ports' });
  if (tags.includes('db')) out.push({ type: 'in', action: 'ACCEPT', macro: 'PostgreSQL', source: 'app_net', enable: 1, comment: 'application servers' });
  if (tags.includes('dns')) out.push({ type: 'in', action: 'ACCEPT', macro: 'DNS', enable: 1 });
  if (tags.includes('proxy')) out.push({ type: 'in', action: 'ACCEPT', macro: 'Web', enable: 1 });
  if (tags.includes('monitoring')) out.push({ type: 'in', action: 'ACCEPT', proto: 'tcp', dport: '3000', source: '+dc/management', enable: 1, comment: 'dashboards' });
  if (out.length > 0) out.push({ type: 'in', action: 'ACCEPT', macro: 'SSH', source: '+dc/management', enable: 1, log: 'info' });
  return out;
}

function guestScope(g: Guest | undefined): FwScope {
  const scope = emptyScope();
  if (!g) return scope;
  const nics = Object.entries(g.config).filter(([k]) => /^net\d+$/.test(k));
  if (nics.some(([, v]) => /(^|,)firewall=1/.test(String(v)))) {
    scope.rules = roleRules(g);
    scope.options = { enable: 1, policy_in: 'DROP', log_level_in: 'nolog', ipfilter: 0, macfilter: 1 };
    // A guest with rules of its own names its address once, as operators write such files.
    if (scope.rules.length > 0) scope.aliases.set('self', { name: 'self', cidr: guestIpv4(g.vmid), comment: "this guest's address" });
  }
  return scope;
}

/** Whether the guest's firewall file has rules of its own (its role's), as the generated cluster seeds it. */
export function hasRoleRules(g: Guest): boolean {
  return roleRules(g).length > 0;
}

export function firewallOf(state: ClusterState): FirewallState {
  return state.area('firewall', () => {
    const fw: FirewallState = {
      cluster: {
        options: { enable: 1, policy_in: 'DROP', policy_out: 'ACCEPT', log_ratelimit: 'enable=1,rate=1/second,burst=5', ebtables: 1 },
        rules: [
          { type: 'in', action: 'ACCEPT', macro: 'SSH', source: '+dc/management', enable: 1, comment: 'admin access' },
          { type: 'in', action: 'ACCEPT', proto: 'tcp', dport: '8006', source: '+dc/management', enable: 1, comment: 'web interface' },
          { type: 'in', action: 'DROP', source: '+dc/blocklist', enable: 1, log: 'warning' },
          { type: 'in', action: 'ACCEPT', macro: 'Ping', enable: 0 },
        ],
        aliases: new Map([
          ['gateway', { name: 'gateway', cidr: '10.0.0.1', comment: 'default router' }],
          ['app_net', { name: 'app_net', cidr: '10.0.0.0/16', comment: 'guest network' }],
          ['backup_server', { name: 'backup_server', cidr: '10.0.0.50' }],
        ]),
      },
      groups: new Map([
        [
          'webserver',
          {
            group: 'webserver',
            comment: 'Public web servers',
            rules: [
              { type: 'in', action: 'ACCEPT', macro: 'HTTP', enable: 1 },
              { type: 'in', action: 'ACCEPT', macro: 'HTTPS', enable: 1 },
            ],
          },
        ],
        [
          'monitoring',
          { group: 'monitoring', comment: 'Metrics scraping from the monitoring host', rules: [{ type: 'in', action: 'ACCEPT', proto: 'tcp', dport: '9100', source: '+dc/management', enable: 1 }] },
        ],
      ]),
      nodes: new Map(),
      guests: new Map(),
      vnets: new Map(),
    };
    state.onGuestRemoved.push((vmid) => fw.guests.delete(vmid));
    return fw;
  });
}

export function nodeFirewall(state: ClusterState, node: string): FwScope {
  const fw = firewallOf(state);
  let s = fw.nodes.get(node);
  if (!s) {
    s = {
      options: { enable: 1, log_level_in: 'nolog', nosmurfs: 1, tcpflags: 0, nf_conntrack_max: 262144 },
      rules: [{ type: 'in', action: 'ACCEPT', proto: 'tcp', dport: '5405:5412', source: 'app_net', enable: 1, comment: 'corosync' }],
      aliases: new Map(),
    };
    fw.nodes.set(node, s);
  }
  return s;
}

/** A guest's firewall file; PVE reads it by VMID alone, so any VMID has one (empty without a file). */
export function guestFirewall(state: ClusterState, vmid: number): FwScope {
  const fw = firewallOf(state);
  let s = fw.guests.get(vmid);
  if (!s) {
    s = guestScope(state.guests.get(vmid));
    fw.guests.set(vmid, s);
  }
  return s;
}

export function vnetFirewall(state: ClusterState, vnet: string): FwScope {
  const fw = firewallOf(state);
  let s = fw.vnets.get(vnet);
  if (!s) {
    s = emptyScope();
    fw.vnets.set(vnet, s);
  }
  return s;
}

/** A clone gets a copy of its source's firewall file. */
export function copyGuestFirewall(state: ClusterState, from: number, to: number): void {
  const src = guestFirewall(state, from);
  firewallOf(state).guests.set(to, { options: { ...src.options }, rules: src.rules.map((r) => ({ ...r })), aliases: new Map([...src.aliases].map(([k, v]) => [k, { ...v }])) });
}

/** The SHA1 over a firewall file's content, as PVE's digest of the parsed file. */
export function scopeDigest(scope: FwScope | FwGroup): string {
  const content = 'options' in scope ? [scope.options, scope.rules, [...scope.aliases.values()]] : [scope.comment, scope.rules];
  return createHash('sha1').update(JSON.stringify(content)).digest('hex');
}

export function groupsDigest(fw: FirewallState): string {
  return createHash('sha1')
    .update(JSON.stringify([...fw.groups.values()]))
    .digest('hex');
}
