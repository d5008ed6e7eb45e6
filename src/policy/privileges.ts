/**
 * The token's effective privileges as PVE reports them (`GET /access/permissions`: ACL path →
 * privilege → 1), cached per cluster and auth ID, and a `hasPriv` over them for the permission
 * evaluator.
 *
 * PVE lists every ACL path (and pool member path) where the caller has something, with the
 * privileges computed for that path; a path that is not listed inherits from its nearest listed
 * ancestor (ACLs propagate by default). A path segment unknown before the run (`/vms/<?>`) is a
 * wildcard: the privilege counts as present if any matching listed path, or the nearest ancestor
 * of the known prefix, grants it, so only certain failures are reported before the run.
 */
import type { PveClientLike } from '../client/client-like.js';
import { normalizeAclPath } from '../permissions/acl-path.js';

/** Stands for a path value only known at run time. */
export const UNKNOWN_SEGMENT = '\u0000?';

export type PrivilegeMap = Record<string, Record<string, unknown>>;

export class TokenPrivileges {
  private readonly paths: Map<string, Set<string>>;

  constructor(map: PrivilegeMap) {
    this.paths = new Map();
    for (const [path, privs] of Object.entries(map)) {
      if (privs === null || typeof privs !== 'object') continue;
      const granted = Object.entries(privs)
        .filter(([, v]) => v === 1 || v === true || v === '1')
        .map(([k]) => k);
      this.paths.set(normalizeAclPath(path), new Set(granted));
    }
  }

  /** Privileges in effect at a concrete path (nearest listed ancestor). */
  privsAt(path: string): string[] {
    let p = normalizeAclPath(path);
    for (;;) {
      const found = this.paths.get(p);
      if (found) return [...found].sort();
      if (p === '/') return [];
      p = p.slice(0, p.lastIndexOf('/')) || '/';
    }
  }

  hasPriv = (path: string, priv: string): boolean => {
    const normalized = normalizeAclPath(path);
    const wild = normalized.indexOf(UNKNOWN_SEGMENT);
    if (wild < 0) return this.privsAt(normalized).includes(priv);
    const prefix = normalized.slice(0, wild).replace(/\/$/, '') || '/';
    if (this.privsAt(prefix).includes(priv)) return true;
    const pattern = new RegExp(`^${normalized.split(UNKNOWN_SEGMENT).map(escapeRegex).join('[^/]+')}$`);
    for (const [p, privs] of this.paths) if (pattern.test(p) && privs.has(priv)) return true;
    return false;
  };
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Long-lived cache (hold one per server): `/access/permissions` per cluster and auth ID, for
 * `ttlMs` (default 60 s), so repeated preflights cost no round trip.
 */
export class PermissionCache {
  private readonly entries = new Map<string, { at: number; value: Promise<TokenPrivileges> }>();

  constructor(private readonly ttlMs = 60_000) {}

  get(cluster: string, client: PveClientLike, signal?: AbortSignal): Promise<TokenPrivileges> {
    const key = `${cluster}\u0000${client.authId ?? ''}`;
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && now - hit.at < this.ttlMs) return hit.value;
    const value = client.request('GET', '/access/permissions', {}, { signal }).then((data) => {
      if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new Error('GET /access/permissions did not return a map of paths');
      return new TokenPrivileges(data as PrivilegeMap);
    });
    this.entries.set(key, { at: now, value });
    value.catch(() => {
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
    });
    return value;
  }

  clear(): void {
    this.entries.clear();
  }
}
