/**
 * DNS-rebinding protection and the URL the server is reached at. A browser page on evil.example
 * that resolves its name to this server still sends `Host: evil.example`, so only names the
 * operator listed (and this machine's own addresses) are answered.
 */
import { hostname, networkInterfaces } from 'node:os';
import { HttpConfigError } from './errors.js';

const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

export function isWildcard(host: string): boolean {
  return WILDCARDS.has(host);
}

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host);
}

/** `name`, `name:port`, `[v6]`, `[v6]:port` → lowercase name (v6 bracketed) and port. */
export function splitHost(value: string): { name: string; port?: string } | undefined {
  const v = value.trim().toLowerCase();
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?|[0-9a-f:]+:[0-9a-f:.]*)(?::(\d{1,5}))?$/.exec(v);
  if (!m?.[1]) return undefined;
  // A bare IPv6 address without brackets (`::1`) has no port part.
  if (!m[1].startsWith('[') && m[1].includes(':')) return { name: `[${v}]` };
  return { name: m[1], ...(m[2] ? { port: m[2] } : {}) };
}

/** Accepts a Host header whose name is listed (an entry with a port needs that port too). */
export function hostMatcher(entries: string[]): (hostHeader: string | undefined) => boolean {
  const names = new Set<string>();
  const exact = new Set<string>();
  for (const entry of entries) {
    const h = splitHost(entry);
    if (!h) continue;
    if (h.port) exact.add(`${h.name}:${h.port}`);
    else names.add(h.name);
  }
  return (hostHeader) => {
    if (!hostHeader) return false;
    const h = splitHost(hostHeader);
    if (!h) return false;
    return names.has(h.name) || (h.port !== undefined && exact.has(`${h.name}:${h.port}`));
  };
}

/** Checks an allowedHosts entry from the CLI or config. */
export function checkHostEntry(entry: string, key: string): string {
  if (!splitHost(entry)) throw new HttpConfigError(key, `'${entry}' is not a host name or address (e.g. mcp.example.lan, mcp.example.lan:8765, 10.0.0.5, [fd00::5])`);
  return entry.trim().toLowerCase();
}

/** Checks an allowedOrigins entry: scheme, host and port as a browser sends it (`https://app.example`). */
export function checkOrigin(entry: string, key: string): string {
  let u: URL;
  try {
    u = new URL(entry);
  } catch {
    throw new HttpConfigError(key, `'${entry}' is not an origin (scheme://host[:port], e.g. https://inspector.example:6274)`);
  }
  if (u.origin === 'null' || u.pathname !== '/' || u.search || u.hash || entry.replace(/\/$/, '') !== u.origin) {
    throw new HttpConfigError(key, `'${entry}' is not an origin: give scheme://host[:port] only, without a path (did you mean '${u.origin}'?)`);
  }
  return u.origin;
}

/** This machine's addresses and name: what clients on the network may send as Host when the server listens on all interfaces. */
export function machineHosts(): string[] {
  const out = new Set<string>([hostname().toLowerCase()]);
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) out.add(a.family === 'IPv6' ? `[${a.address.split('%')[0]}]` : a.address);
  }
  return [...out];
}

/** The address to print for a wildcard listener: the first external IPv4 address, else the host name. */
export function primaryAddress(): string {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return hostname();
}
