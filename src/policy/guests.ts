/**
 * Guest lookups for scopes and identity: which node, type, name, pool and tags a VMID has.
 * Backed by `GET /cluster/resources?type=vm` through the client, cached once per run and cluster
 * (pool and tag membership does not change under a single script's feet; identity checks that
 * need the current truth ask for a fresh listing).
 */
import type { PveClientLike } from '../client/client-like.js';
import { listOf } from '../pve/list-value.js';

export interface GuestInfo {
  vmid: number;
  type: 'qemu' | 'lxc';
  node: string;
  name?: string;
  pool?: string;
  /** Lower-cased tags. */
  tags: string[];
  template: boolean;
  /** The HA manager's requested state when the guest is an HA resource (`started`, `stopped`…; `hastate`). */
  ha?: string;
}

export class GuestDirectory {
  private readonly cache = new Map<string, Promise<Map<number, GuestInfo>>>();
  private readonly local = new Map<string, Promise<string | undefined>>();

  constructor(private readonly clientFor: (cluster: string) => PveClientLike) {}

  /** The guest as of the first lookup in this run (undefined when no such VMID exists). */
  async lookup(cluster: string, vmid: number, signal?: AbortSignal): Promise<GuestInfo | undefined> {
    return (await (this.cache.get(cluster) ?? this.refresh(cluster, signal))).get(vmid);
  }

  /** Every guest of the cluster as of the first lookup in this run. */
  async all(cluster: string, signal?: AbortSignal): Promise<GuestInfo[]> {
    return [...(await (this.cache.get(cluster) ?? this.refresh(cluster, signal))).values()];
  }

  /**
   * The node the API connection lands on: what PVE means by `localhost` in a path
   * (`GET /cluster/status`, the node entry with `local: 1`). Undefined when the cluster does not say.
   */
  localNode(cluster: string, signal?: AbortSignal): Promise<string | undefined> {
    let found = this.local.get(cluster);
    if (!found) {
      found = this.clientFor(cluster)
        .request('GET', '/cluster/status', {}, { signal })
        .then((data) => {
          if (!Array.isArray(data)) return undefined;
          const entry = data.find((e: unknown) => {
            const r = e as Record<string, unknown> | null;
            return r !== null && typeof r === 'object' && r.type === 'node' && (r.local === 1 || r.local === true);
          }) as Record<string, unknown> | undefined;
          return typeof entry?.name === 'string' ? entry.name : undefined;
        });
      this.local.set(cluster, found);
      found.catch(() => this.local.delete(cluster));
    }
    return found;
  }

  /**
   * Whether a container is privileged (its config has no `unprivileged: 1`): what PVE's permission
   * checks of a feature flag go by. Read each time it is asked (a feature-flag write is rare, and a
   * container destroyed and restored under the same VMID in one run must not be judged by the first
   * answer).
   */
  async containerPrivileged(cluster: string, node: string, vmid: number, signal?: AbortSignal): Promise<boolean> {
    const data = await this.clientFor(cluster).request('GET', `/nodes/${encodeURIComponent(node)}/lxc/${vmid}/config`, {}, { signal });
    const unprivileged = data !== null && typeof data === 'object' ? (data as Record<string, unknown>).unprivileged : undefined;
    return !(unprivileged === 1 || unprivileged === '1' || unprivileged === true);
  }

  /** The guest as the cluster sees it right now (refreshes the cache). */
  async lookupFresh(cluster: string, vmid: number, signal?: AbortSignal): Promise<GuestInfo | undefined> {
    return (await this.refresh(cluster, signal)).get(vmid);
  }

  private refresh(cluster: string, signal?: AbortSignal): Promise<Map<number, GuestInfo>> {
    const listing = this.load(cluster, signal);
    this.cache.set(cluster, listing);
    // A failed lookup must not poison the cache for the rest of the run.
    listing.catch(() => {
      if (this.cache.get(cluster) === listing) this.cache.delete(cluster);
    });
    return listing;
  }

  private async load(cluster: string, signal?: AbortSignal): Promise<Map<number, GuestInfo>> {
    const data = await this.clientFor(cluster).request('GET', '/cluster/resources', { type: 'vm' }, { signal });
    const out = new Map<number, GuestInfo>();
    if (!Array.isArray(data)) return out;
    for (const item of data) {
      const info = parseResource(item);
      if (info) out.set(info.vmid, info);
    }
    return out;
  }
}

export function parseResource(item: unknown): GuestInfo | undefined {
  if (item === null || typeof item !== 'object') return undefined;
  const r = item as Record<string, unknown>;
  if (r.type !== 'qemu' && r.type !== 'lxc') return undefined;
  const vmid = typeof r.vmid === 'number' ? r.vmid : Number(r.vmid);
  if (!Number.isSafeInteger(vmid) || typeof r.node !== 'string') return undefined;
  return {
    vmid,
    type: r.type,
    node: r.node,
    ...(typeof r.name === 'string' ? { name: r.name } : {}),
    ...(typeof r.pool === 'string' && r.pool !== '' ? { pool: r.pool } : {}),
    tags: listOf(r.tags).map((t) => t.toLowerCase()),
    template: r.template === 1 || r.template === true,
    ...(typeof r.hastate === 'string' && r.hastate !== '' ? { ha: r.hastate } : {}),
  };
}
