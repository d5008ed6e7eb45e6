/**
 * Guest identity binding. VMIDs are reused within seconds, so a write aimed at "VMID 101" must
 * still hit the guest the script (or the approved plan) looked at. Before each write to a guest
 * the bridge reads the guest's current config and compares its name and config digest with what
 * was seen earlier: in the approved plan, or in this run's own reads. Endpoints that take PVE's
 * `digest` parameter get it, so a change between the check and the write fails on the node
 * instead of being overwritten.
 */
import type { PveClientLike } from '../client/client-like.js';
import { isPlainObject } from '../schema/schema-node.js';
import type { GuestDirectory } from '../policy/guests.js';

export interface GuestIdentity {
  vmid: number;
  exists: boolean;
  type?: 'qemu' | 'lxc';
  node?: string;
  name?: string;
  /** SHA-1 config digest as PVE reports it. */
  digest?: string;
}

interface Seen {
  identity: GuestIdentity;
  /** Our own write may have changed the digest since it was seen: compare names only. */
  stale: boolean;
}

/** `configs`: by VMID, the config each identity was read from (a dry-run shows the change against it). */
export type IdentityVerdict = { ok: true; current: GuestIdentity[]; configs: Map<number, Record<string, unknown>> } | { ok: false; message: string };

const GUEST_PATH = /^\/nodes\/\{node\}\/(qemu|lxc)\/\{vmid\}(\/|$)/;

export class IdentityGuard {
  private readonly seen = new Map<string, Seen>();
  /** Guests this run has written to (whatever was seen of them since). */
  private readonly written = new Set<string>();

  constructor(
    private readonly clientFor: (cluster: string) => PveClientLike,
    private readonly directory: GuestDirectory,
  ) {}

  /** Learn names and digests from a read result the script received. */
  observe(cluster: string, template: string, pathValues: Record<string, string>, data: unknown): void {
    const guestPath = GUEST_PATH.exec(template);
    if (guestPath && pathValues.vmid !== undefined && isPlainObject(data)) {
      const vmid = Number(pathValues.vmid);
      const type = guestPath[1] as 'qemu' | 'lxc';
      if (template.endsWith('/config') && !template.includes('/snapshot/')) {
        this.remember(cluster, { vmid, exists: true, type, node: pathValues.node, ...nameAndDigest(data, type) });
      } else if (template.endsWith('/status/current')) {
        const name = typeof data.name === 'string' ? data.name : undefined;
        if (name !== undefined) this.remember(cluster, { vmid, exists: true, type, node: pathValues.node, name });
      }
      return;
    }
    const listed = /^\/nodes\/\{node\}\/(qemu|lxc)$/.exec(template);
    if ((listed || template === '/cluster/resources') && Array.isArray(data)) {
      for (const item of data) {
        if (!isPlainObject(item) || typeof item.name !== 'string') continue;
        const vmid = Number(item.vmid);
        if (!Number.isSafeInteger(vmid)) continue;
        const type = listed ? (listed[1] as 'qemu' | 'lxc') : item.type === 'qemu' || item.type === 'lxc' ? item.type : undefined;
        if (!type) continue;
        this.remember(cluster, { vmid, exists: true, type, name: item.name });
      }
    }
  }

  /**
   * Check that each guest is still the one seen before (or in `expected`, the approved plan's
   * targets) and return the current identities (for the plan and for the `digest` parameter).
   */
  async check(cluster: string, vmids: readonly number[], hint: { node?: string; type?: 'qemu' | 'lxc' }, expected?: readonly GuestIdentity[], signal?: AbortSignal): Promise<IdentityVerdict> {
    const current: GuestIdentity[] = [];
    const configs = new Map<number, Record<string, unknown>>();
    for (const vmid of vmids) {
      let now: GuestIdentity;
      try {
        const read = await this.current(cluster, vmid, vmids.length === 1 ? hint : {}, signal);
        now = read.identity;
        if (read.config) configs.set(vmid, read.config);
      } catch (err) {
        // Proxmox refused the check itself: unverifiable means not sent, and the message names
        // the fault (a missing privilege is not the same fix as an offline node).
        if (!isPlainObject(err) || typeof err.status !== 'number') throw err;
        return { ok: false, message: uncheckedMessage(vmid, err.status, typeof err.message === 'string' ? err.message : `HTTP ${err.status}`, hint.node) };
      }
      const key = keyOf(cluster, vmid);
      const prior = this.seen.get(key);
      const planned = expected?.find((e) => e.vmid === vmid);
      // The plan is authoritative until this run has written to the guest itself.
      const reference = planned && !prior?.stale ? { identity: planned, stale: false } : prior;
      if (reference) {
        const problem = compare(reference.identity, now, reference.stale);
        if (problem) return { ok: false, message: `guest identity check failed for VMID ${vmid}: ${problem}; nothing was sent. Read the guest again and re-plan` };
      }
      this.seen.set(key, { identity: mergeKnown(now, prior?.identity), stale: false });
      current.push(now);
    }
    return { ok: true, current, configs };
  }

  /** A write to these guests succeeded: their config digests may have changed. */
  noteWrite(cluster: string, vmids: readonly number[]): void {
    for (const vmid of vmids) {
      this.written.add(keyOf(cluster, vmid));
      const s = this.seen.get(keyOf(cluster, vmid));
      if (s) s.stale = true;
    }
  }

  /** Whether this run has written to the guest: what a plan showed of it may differ by its own doing. */
  wroteTo(cluster: string, vmid: number): boolean {
    return this.written.has(keyOf(cluster, vmid));
  }

  private remember(cluster: string, identity: GuestIdentity): void {
    const key = keyOf(cluster, identity.vmid);
    const prior = this.seen.get(key);
    this.seen.set(key, { identity: mergeKnown(identity, prior?.identity), stale: identity.digest === undefined && (prior?.stale ?? false) });
  }

  private async current(cluster: string, vmid: number, hint: { node?: string; type?: 'qemu' | 'lxc' }, signal?: AbortSignal): Promise<{ identity: GuestIdentity; config?: Record<string, unknown> }> {
    let node = hint.node;
    let type = hint.type;
    if (!node || !type) {
      const info = await this.directory.lookupFresh(cluster, vmid, signal);
      if (!info) return { identity: { vmid, exists: false } };
      node = info.node;
      type = info.type;
    }
    try {
      const path = `/nodes/${encodeURIComponent(node)}/${type}/${vmid}/config`;
      const data = await this.clientFor(cluster).request('GET', path, {}, { signal });
      const config = isPlainObject(data) ? data : {};
      return { identity: { vmid, exists: true, type, node, ...nameAndDigest(config, type) }, config };
    } catch (err) {
      if (isMissingGuest(err)) return { identity: { vmid, exists: false } };
      throw err;
    }
  }
}

function compare(before: GuestIdentity, now: GuestIdentity, digestMayDiffer: boolean): string | undefined {
  if (before.exists && !now.exists) return `it existed${before.name ? ` as '${before.name}'` : ''} but is gone now`;
  if (!before.exists && now.exists) return `it did not exist when planned but now exists${now.name ? ` as '${now.name}'` : ''}`;
  if (before.name !== undefined && now.name !== undefined && before.name !== now.name) {
    return `its name was '${before.name}' and is now '${now.name}'`;
  }
  if (before.type !== undefined && now.type !== undefined && before.type !== now.type) {
    return `it was a ${before.type} guest and is now a ${now.type} guest`;
  }
  if (!digestMayDiffer && before.digest !== undefined && now.digest !== undefined && before.digest !== now.digest) {
    return `its configuration changed since it was read (digest ${before.digest.slice(0, 12)}… → ${now.digest.slice(0, 12)}…)`;
  }
  return undefined;
}

function mergeKnown(now: GuestIdentity, prior?: GuestIdentity): GuestIdentity {
  if (!prior || !now.exists) return now;
  return { ...prior, ...Object.fromEntries(Object.entries(now).filter(([, v]) => v !== undefined)) } as GuestIdentity;
}

function nameAndDigest(config: Record<string, unknown>, type: 'qemu' | 'lxc'): { name?: string; digest?: string } {
  const name = type === 'lxc' ? config.hostname : config.name;
  return {
    ...(typeof name === 'string' ? { name } : {}),
    ...(typeof config.digest === 'string' ? { digest: config.digest } : {}),
  };
}

function uncheckedMessage(vmid: number, status: number, reason: string, node: string | undefined): string {
  const head = `could not verify the identity of VMID ${vmid} before writing (${reason}); nothing was sent.`;
  if (status === 595 || status === 596) {
    const which = node ? `node '${node}'` : 'the node holding it';
    return `${head} ${which} is offline or unreachable from the API node: check /cluster/status, and write again once it is back`;
  }
  if (status === 401 || status === 403) return `${head} The token needs VM.Audit on /vms/${vmid} to read the guest's config`;
  return `${head} Read the guest again, then retry`;
}

function isMissingGuest(err: unknown): boolean {
  if (!isPlainObject(err)) return false;
  const status = err.status;
  const message = typeof err.message === 'string' ? err.message : '';
  return status === 500 && /does not exist/.test(message);
}

function keyOf(cluster: string, vmid: number): string {
  return `${cluster}\u0000${vmid}`;
}

/** True for guest endpoints whose `digest` parameter is the guest's config digest (config, resize, move disk). */
export function takesGuestDigest(template: string, paramNames: readonly string[]): boolean {
  return GUEST_PATH.test(template) && !template.includes('/firewall/') && !template.includes('/snapshot/') && paramNames.includes('digest');
}
