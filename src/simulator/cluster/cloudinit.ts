/**
 * Cloud-init as qemu-server generates it from a VM's config: the user data (`#cloud-config` with
 * hostname, user, the stored password hash, SSH keys, chpasswd and upgrades), the network config
 * (nocloud v1 YAML, or ENI text for configdrive2) and the meta data (an instance ID derived from
 * both). Passwords are stored as SHA-256 crypt hashes, as PVE stores `cipassword`.
 */
import { createHash } from 'node:crypto';
import { sha256Crypt } from './sha-crypt.js';
import type { ClusterState } from './state.js';
import type { Guest, GuestConfig } from './types.js';

/** Options whose change makes the cloud-init drive out of date. */
export const CLOUDINIT_KEYS = ['cicustom', 'cipassword', 'citype', 'ciuser', 'ciupgrade', 'nameserver', 'searchdomain', 'sshkeys'];

export function isCloudinitKey(key: string): boolean {
  return CLOUDINIT_KEYS.includes(key) || /^ipconfig\d+$/.test(key);
}

export function isWindows(ostype: unknown): boolean {
  return /^(?:wxp|w2k|w2k3|w2k8|wvista|win7|win8|win10|win11)$/.test(String(ostype ?? ''));
}

/** The stored form of a cloud-init password: a crypt hash (kept when already one; Windows guests keep plain text). */
export function storedCipassword(state: ClusterState, g: Guest, value: string): string {
  if (isWindows(g.config.ostype) || /^\$(?:[156]|2[ay])(\$.+){2}/.test(value)) return value;
  const salt = Buffer.from(state.rng.hex(12), 'hex').toString('base64').slice(0, 8).replace(/\+/g, 'X');
  return sha256Crypt(value, salt);
}

export function cloudinitFormat(config: GuestConfig): string {
  if (config.citype !== undefined) return String(config.citype);
  return isWindows(config.ostype) ? 'configdrive2' : 'nocloud';
}

function hostnameFqdn(config: GuestConfig, vmid: number): [string, string] {
  let hostname = String(config.name ?? `VM${vmid}`);
  if (hostname.includes('.')) {
    const fqdn = hostname;
    hostname = hostname.replace(/\..*$/, '');
    return [hostname, fqdn];
  }
  const search = config.searchdomain;
  return [hostname, search ? `${hostname}.${String(search)}` : hostname];
}

export function userData(config: GuestConfig, vmid: number, maskPassword = false): string {
  const [hostname, fqdn] = hostnameFqdn(config, vmid);
  let out = `#cloud-config\nhostname: ${hostname}\nmanage_etc_hosts: true\nfqdn: ${fqdn}\n`;
  const user = config.ciuser === undefined ? undefined : String(config.ciuser);
  if (user !== undefined) out += `user: ${user}\n`;
  if (user === 'root') out += 'disable_root: False\n';
  if (config.cipassword !== undefined) out += `password: ${maskPassword ? '**********' : String(config.cipassword)}\n`;
  if (config.sshkeys !== undefined) {
    const keys = decodeURIComponent(String(config.sshkeys))
      .split('\n')
      .map((k) => k.replace(/\r$/, ''))
      .filter((k) => /\S/.test(k));
    out += 'ssh_authorized_keys:\n';
    for (const k of keys) out += `  - ${k}\n`;
  }
  out += 'chpasswd:\n  expire: False\n';
  if (user !== 'root') out += 'users:\n  - default\n';
  if (config.ciupgrade === undefined || Number(config.ciupgrade)) out += 'package_upgrade: true\n';
  return out;
}

/** The node's resolver settings stand in for the guest's when the config sets none. */
interface Resolver {
  search: string[];
  nameservers: string[];
}

function dnsConf(config: GuestConfig, host: Resolver): Resolver {
  const search = config.searchdomain !== undefined ? String(config.searchdomain).split(/\s+/).filter(Boolean) : host.search;
  const nameservers = config.nameserver !== undefined ? String(config.nameserver).split(/\s+/).filter(Boolean) : host.nameservers;
  return { search, nameservers };
}

function parseIpconfig(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(',')) {
    const [k, v] = part.split('=');
    if (k && v !== undefined) out[k] = v;
  }
  return out;
}

function v4mask(bits: number): string {
  const m = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return [24, 16, 8, 0].map((s) => (m >>> s) & 255).join('.');
}

function macOf(net: string): string | undefined {
  return /(?:^|,)(?:[a-z0-9]+=)?((?:[0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2})(?:,|$)/.exec(net)?.[1]?.toLowerCase() ?? /macaddr=([0-9A-Fa-f:]{17})/.exec(net)?.[1]?.toLowerCase();
}

function nicIds(config: GuestConfig): string[] {
  return Object.keys(config)
    .filter((k) => /^net\d+$/.test(k))
    .sort()
    .map((k) => k.slice(3))
    .filter((id) => config[`ipconfig${id}`] !== undefined);
}

export function nocloudNetwork(config: GuestConfig, host: Resolver): string {
  let out = 'version: 1\nconfig:\n';
  for (const id of nicIds(config)) {
    let i = '    ';
    const ip = parseIpconfig(String(config[`ipconfig${id}`]));
    const mac = macOf(String(config[`net${id}`]));
    if (!mac) throw new Error(`network interface 'net${id}' has no mac address`);
    out += `${i}- type: physical\n${i}  name: eth${id}\n${i}  mac_address: '${mac}'\n${i}  subnets:\n`;
    i += '  ';
    if (ip.ip !== undefined) {
      if (ip.ip === 'dhcp') out += `${i}- type: dhcp4\n`;
      else {
        const [addr, bits] = ip.ip.split('/');
        out += `${i}- type: static\n${i}  address: '${addr}'\n${i}  netmask: '${v4mask(Number(bits))}'\n`;
        if (ip.gw !== undefined) out += `${i}  gateway: '${ip.gw}'\n`;
      }
    }
    if (ip.ip6 !== undefined) {
      if (ip.ip6 === 'dhcp') out += `${i}- type: dhcp6\n`;
      else if (ip.ip6 === 'auto') out += `${i}- type: ipv6_slaac\n`;
      else {
        out += `${i}- type: static6\n${i}  address: '${ip.ip6}'\n`;
        if (ip.gw6 !== undefined) out += `${i}  gateway: '${ip.gw6}'\n`;
      }
    }
  }
  const i = '    ';
  const dns = dnsConf(config, host);
  out += `${i}- type: nameserver\n`;
  if (dns.nameservers.length > 0) out += `${i}  address:\n${dns.nameservers.map((n) => `${i}  - '${n}'\n`).join('')}`;
  if (dns.search.length > 0) out += `${i}  search:\n${dns.search.map((s) => `${i}  - '${s}'\n`).join('')}`;
  return out;
}

export function configdrive2Network(config: GuestConfig, host: Resolver): string {
  let out = 'auto lo\niface lo inet loopback\n\n';
  const dns = dnsConf(config, host);
  if (dns.nameservers.length > 0) out += `        dns_nameservers ${dns.nameservers.join(' ')}\n`;
  if (dns.search.length > 0) out += `        dns_search ${dns.search.join(' ')}\n`;
  for (const n of nicIds(config)) {
    const ip = parseIpconfig(String(config[`ipconfig${n}`]));
    const id = `eth${n}`;
    out += `auto ${id}\n`;
    if (ip.ip) {
      if (ip.ip === 'dhcp') out += `iface ${id} inet dhcp\n`;
      else {
        const [addr, bits] = ip.ip.split('/');
        out += `iface ${id} inet static\n        address ${addr}\n        netmask ${v4mask(Number(bits))}\n`;
        if (ip.gw) out += `        gateway ${ip.gw}\n`;
      }
    }
    if (ip.ip6) {
      if (ip.ip6 === 'auto' || ip.ip6 === 'dhcp') out += `iface ${id} inet6 ${ip.ip6}\n`;
      else {
        const [addr, mask] = ip.ip6.split('/');
        out += `iface ${id} inet6 static\n        address ${addr}\n        netmask ${mask}\n`;
        if (ip.gw6) out += `        gateway ${ip.gw6}\n`;
      }
    }
  }
  return out;
}

/** The node's resolver: its bridge gateway as name server, no search domain. */
export function hostResolver(state: ClusterState, node: string): Resolver {
  const gw = state.node(node).interfaces.find((i) => i.gateway !== undefined)?.gateway;
  return { search: [], nameservers: gw ? [gw] : [] };
}

export function cloudinitDump(state: ClusterState, g: Guest, type: string, maskPassword: boolean): string {
  const host = hostResolver(state, g.node);
  const config = g.config;
  const nocloud = cloudinitFormat(config) === 'nocloud';
  if (type === 'user') return userData(config, g.vmid, maskPassword);
  const network = nocloud ? nocloudNetwork(config, host) : configdrive2Network(config, host);
  if (type === 'network') return network;
  const id = createHash('sha1')
    .update(userData(config, g.vmid) + network)
    .digest('hex');
  if (nocloud) return `instance-id: ${id}\n`;
  return `{\n     "uuid": "${id}",\n     "network_config": { "content_path": "/content/0000" }\n}\n`;
}
