/**
 * Requests a node would make to the outside (URL metadata, downloads, remote migration). The
 * simulator never contacts anything: each attempt is recorded here (tests see that the node was
 * asked to reach an address) and answered from the host name alone. Hosts under the reserved
 * top-level names `invalid`, `test`, `example`, `local`, `localdomain`, `lan`, `internal`,
 * `home` and `corp`, and single-label names other than `localhost`, do not resolve; every other
 * host resolves, serves metadata derived from the URL (HTTP), and refuses API connections
 * (remote migration).
 */
import { createHash } from 'node:crypto';
import type { ClusterState } from './state.js';
import type { OutboundRequest } from './types.js';

const UNRESOLVABLE_TLDS = new Set(['invalid', 'test', 'example', 'local', 'localdomain', 'lan', 'internal', 'home', 'corp']);

export function recordOutbound(state: ClusterState, req: Omit<OutboundRequest, 'at'>): void {
  state.outbound.push({ at: state.now(), ...req });
}

export function isIpLiteral(host: string): boolean {
  return /^\d{1,3}(?:\.\d{1,3}){3}$/.test(host) || host.includes(':');
}

export function resolves(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (isIpLiteral(h) || h === 'localhost') return true;
  const labels = h.split('.').filter(Boolean);
  if (labels.length < 2) return false;
  return !UNRESOLVABLE_TLDS.has(labels[labels.length - 1] as string);
}

export function urlParts(url: string): { host: string; port: number; path: string } {
  const m = /^(https?):\/\/(\[[^\]]+\]|[^/:?#]+)(?::(\d+))?([^?#]*)/i.exec(url);
  const scheme = (m?.[1] ?? 'http').toLowerCase();
  return { host: m?.[2] ?? '', port: m?.[3] ? Number(m[3]) : scheme === 'https' ? 443 : 80, path: m?.[4] ?? '' };
}

/** What an HTTP HEAD on the URL would answer: a size fixed by the URL and a type by its extension. */
export function urlMetadata(url: string): { size: number; mimetype: string } {
  const digest = createHash('sha256').update(url).digest();
  const size = (64 + (digest.readUInt32BE(0) % 4032)) * 1024 * 1024 + (digest.readUInt16BE(4) % 1024) * 512;
  const path = urlParts(url).path.toLowerCase();
  const mimetype = path.endsWith('.iso')
    ? 'application/x-iso9660-image'
    : /\.(?:zst|zstd)$/.test(path)
      ? 'application/zstd'
      : /\.(?:gz|tgz)$/.test(path)
        ? 'application/gzip'
        : path.endsWith('.xz')
          ? 'application/x-xz'
          : 'application/octet-stream';
  return { size, mimetype };
}
