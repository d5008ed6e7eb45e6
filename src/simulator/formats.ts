/**
 * Verifiers for PVE's named string formats (`pve-vmid`, `pve-node`, …) as a node applies them to
 * request parameters. Each returns `undefined` when the value is fine, or the reason PVE gives
 * (with its trailing newline), which the validator prefixes with `invalid format - `.
 *
 * Formats that are not listed here (mostly property-string formats such as `pve-qm-ide`, whose
 * definitions are not part of the apidoc) are accepted unchecked.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { isPrivilege } from './access/privileges.js';

type Verifier = (value: string) => string | undefined;

function cidr(value: string, ip: (s: string) => boolean, maxMask: number): boolean {
  const m = /^(.+)\/(\d{1,3})$/.exec(value);
  return m !== null && ip(m[1] as string) && Number(m[2]) <= maxMask;
}

const isIP = (v: string) => isIPv4(v) || isIPv6(v);
const DNS_NAME_RE = /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?\.)*[A-Za-z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?$/;

const USER_RE = /^[^\s:/]+@[A-Za-z][A-Za-z0-9.\-_]+$/;

const STORAGE_CONTENT = new Set(['images', 'rootdir', 'vztmpl', 'iso', 'backup', 'snippets', 'import', 'none']);
const WEEKDAYS = new Set(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']);

/** A firewall alias name, optionally scoped to the datacenter or the guest (`dc/name`, `guest/name`). */
export const FIREWALL_ALIAS_RE = /^(?:(?:dc|guest)\/)?[A-Za-z][A-Za-z0-9\-_]+$/;

const VERIFIERS: Record<string, Verifier> = {
  'pve-vmid': (v) => (/^[1-9][0-9]{2,8}$/.test(v) ? undefined : 'value does not look like a valid VM ID\n'),
  'pve-node': (v) => (/^[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?$/.test(v) ? undefined : 'value does not look like a valid node name\n'),
  'pve-configid': (v) => (/^[a-z][a-z0-9_-]+$/i.test(v) ? undefined : `invalid configuration ID '${v}'\n`),
  'pve-storage-id': (v) => (/^[a-z][a-z0-9\-_.]*[a-z0-9]$/i.test(v) ? undefined : `storage ID '${v}' contains illegal characters\n`),
  'pve-poolid': (v) => (/^[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_-]+){0,2}$/.test(v) ? undefined : `pool name '${v}' contains illegal characters\n`),
  'pve-userid': (v) => {
    if (v.length < 3) return `user name '${v}' is too short\n`;
    if (v.length > 64) return `user name '${v}' is too long (${v.length} > 64)\n`;
    return USER_RE.test(v) ? undefined : `value '${v}' does not look like a valid user name\n`;
  },
  'pve-tokenid': (v) => (/^[^\s:/]+@[A-Za-z][A-Za-z0-9.\-_]+![A-Za-z][A-Za-z0-9.\-_]+$/.test(v) ? undefined : `invalid token ID '${v}'\n`),
  'pve-realm': (v) => (/^[A-Za-z][A-Za-z0-9.\-_]+$/.test(v) ? undefined : `value '${v}' does not look like a valid realm\n`),
  'pve-groupid': (v) => (/^[A-Za-z0-9.\-_]+$/.test(v) ? undefined : `group name '${v}' contains illegal characters\n`),
  'pve-roleid': (v) => (/^[A-Za-z0-9.\-_]+$/.test(v) ? undefined : `role name '${v}' contains illegal characters\n`),
  'pve-priv': (v) => (isPrivilege(v) ? undefined : `invalid privilege '${v}'\n`),
  'pve-tag': (v) => (/^[a-z0-9_][a-z0-9_\-+.]*$/i.test(v) ? undefined : `invalid tag '${v}'\n`),
  'pve-storage-content': (v) => (STORAGE_CONTENT.has(v) ? undefined : `invalid content type '${v}'\n`),
  'pve-day-of-week': (v) => (WEEKDAYS.has(v) ? undefined : `invalid day of week '${v}'\n`),
  'pve-volume-id': (v) => (/^[^:\s]+:.+$/.test(v) ? undefined : `unable to parse volume ID '${v}'\n`),
  'pve-iface': (v) => (/^[a-zA-Z][a-zA-Z0-9_]{1,20}(?:[:.]\d+)?$/.test(v) ? undefined : `invalid network interface name '${v}'\n`),
  ip: (v) => (isIP(v) ? undefined : `value does not look like a valid IP address\n`),
  ipv4: (v) => (isIPv4(v) ? undefined : `value does not look like a valid IPv4 address\n`),
  ipv6: (v) => (isIPv6(v) ? undefined : `value does not look like a valid IPv6 address\n`),
  CIDR: (v) => (cidr(v, isIPv4, 32) || cidr(v, isIPv6, 128) ? undefined : `value does not look like a valid CIDR network\n`),
  CIDRv4: (v) => (cidr(v, isIPv4, 32) ? undefined : `value does not look like a valid IPv4 CIDR network\n`),
  CIDRv6: (v) => (cidr(v, isIPv6, 128) ? undefined : `value does not look like a valid IPv6 CIDR network\n`),
  IPorCIDR: (v) => (isIP(v) || cidr(v, isIPv4, 32) || cidr(v, isIPv6, 128) ? undefined : `value does not look like a valid IP address or CIDR network\n`),
  IPorCIDRorAlias: (v) => (isIP(v) || cidr(v, isIPv4, 32) || cidr(v, isIPv6, 128) || FIREWALL_ALIAS_RE.test(v) ? undefined : `value does not look like a valid IP address or CIDR network\n`),
  'dns-name': (v) => (DNS_NAME_RE.test(v) ? undefined : `value does not look like a valid DNS name\n`),
  'mac-addr': (v) => (/^[a-f0-9]{2}(?::[a-f0-9]{2}){5}$/i.test(v) ? undefined : `value does not look like a valid unicast MAC address\n`),
  email: (v) => (/^[^\s@]+@[^\s@]+$/.test(v) ? undefined : `value does not look like a valid email address\n`),
  'email-opt': (v) => (v === '' || /^[^\s@]+@[^\s@]+$/.test(v) ? undefined : `value does not look like a valid email address\n`),
};

/** Split a `-list` value the way PVE does: on commas, semicolons, whitespace and NUL. */
export function splitList(value: string): string[] {
  return value.split(/[,;\s\0]+/).filter((s) => s.length > 0);
}

/**
 * Check a string against a named format (`-list` and `-opt` variants included).
 * Returns the reason (without the `invalid format - ` prefix) or `undefined`.
 */
export function checkNamedFormat(format: string, value: string): string | undefined {
  const list = /^(.*)-a?list$/.exec(format);
  if (list) {
    const verify = VERIFIERS[list[1] as string];
    if (!verify) return undefined;
    for (const item of splitList(value)) {
      const problem = verify(item);
      if (problem) return problem;
    }
    return undefined;
  }
  const opt = /^(.*)-opt$/.exec(format);
  if (opt && !VERIFIERS[format]) {
    const verify = VERIFIERS[opt[1] as string];
    return verify && value !== '' ? verify(value) : undefined;
  }
  return VERIFIERS[format]?.(value);
}

export function isListFormat(format: unknown): boolean {
  return typeof format === 'string' && /-a?list$/.test(format);
}
