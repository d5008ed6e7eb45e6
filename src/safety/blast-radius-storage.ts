/**
 * Blast radius of storage and disk operations, and of destroying a guest: who loses a disk, who
 * will not boot, which jobs and clones depend on what goes. The reads of each are listed in
 * docs/plans.md.
 */
import { type BlastItem, type BlastRadius, type BlastReads, plural } from './blast-radius.js';
import { bootKey, bytes, disksOf, type GuestEntry, guestConfig, guestDirectory, guestLabel, MAX_CONFIG_READS, nodeDirectory, vmidList } from './blast-radius-guests.js';
import { listOf } from '../pve/list-value.js';

/**
 * Removing (`DELETE /storage/{storage}`) or disabling (`PUT … disable=1`) a storage: every guest
 * with a disk on it loses that disk, and one whose boot disk is there will not boot; backups on it
 * can no longer be restored from it; backup jobs writing to it fail.
 */
export async function storageRadius(
  r: BlastReads,
  storage: string,
  family: 'storage-remove' | 'storage-disable',
  keepNodes?: ReadonlySet<string>,
  newContent?: readonly string[],
): Promise<BlastRadius> {
  const enc = encodeURIComponent(storage);
  const def = await r.object(`/storage/${enc}`);
  // Taking `images` (VM disks) or `rootdir` (container volumes) off a storage disables it for
  // those guests; `backup`, for its backups and jobs. Unread definition: every type counts as lost.
  const had = typeof def?.content === 'string' ? def.content.split(',').map((c) => c.trim()) : undefined;
  const lost = newContent === undefined ? undefined : had ? had.filter((c) => !newContent.includes(c)) : ['images', 'rootdir', 'backup'];
  // A node left out of `nodes` loses every type; without `nodes` or `content` (remove, disable) every node does.
  const nodeLost = (node: string): boolean => (keepNodes ? !keepNodes.has(node) : newContent === undefined);
  const typeLost = (content: string): boolean => lost?.includes(content) ?? false;
  const typesLost = ['images', 'rootdir', 'backup'].some(typeLost);
  const nodes = await nodeDirectory(r);
  const items: BlastItem[] = [];
  let owners = new Set<number>();
  let backups = 0;
  if (def && nodes) {
    const allowed = typeof def.nodes === 'string' ? new Set(def.nodes.split(',')) : undefined;
    // Narrowing `nodes` only takes the storage from the nodes left out.
    const onNodes = nodes.filter((n) => (!allowed || allowed.has(n.node)) && (nodeLost(n.node) || typesLost));
    // A shared storage holds the same volumes everywhere: one online node's view is enough.
    const readFrom = def.shared === 1 || def.shared === true ? onNodes.filter((n) => n.online).slice(0, 1) : onNodes;
    for (const n of onNodes) if (!n.online && readFrom.includes(n)) r.incomplete(`node ${n.node} is offline: what ${storage} holds there is not known`);
    for (const n of readFrom) {
      if (!n.online) continue;
      const content = await r.list(`/nodes/${encodeURIComponent(n.node)}/storage/${enc}/content`);
      for (const v of content ?? []) {
        if (v.content === 'backup') backups += nodeLost(n.node) || typeLost('backup') ? 1 : 0;
        else if ((v.content === 'images' || v.content === 'rootdir') && typeof v.vmid === 'number') owners.add(v.vmid);
      }
    }
  }
  const guests = await guestDirectory(r);
  owners = new Set([...owners].sort((a, b) => a - b));
  let wontBoot = 0;
  let losing = 0;
  let configReads = 0;
  for (const vmid of owners) {
    const g = guests?.find((x) => x.vmid === vmid);
    if (!g) {
      items.push({ kind: 'disk', what: `volumes of VMID ${vmid}`, effect: 'become unreachable (no such guest: orphaned volumes)', vmid });
      continue;
    }
    if (++configReads > MAX_CONFIG_READS) {
      r.incomplete(`more than ${MAX_CONFIG_READS} guests have disks on ${storage}: the rest were not read`);
      break;
    }
    const config = await guestConfig(r, g);
    if (!config) {
      items.push({ kind: 'guest', what: guestLabel(g), effect: 'has volumes on it (its config could not be read: counts as not booting)', vmid, severe: true });
      continue;
    }
    const disks = disksOf(g.type, config).filter((d) => d.storage === storage);
    if (disks.length === 0 || !(nodeLost(g.node) || typeLost(g.type === 'qemu' ? 'images' : 'rootdir'))) continue;
    losing++;
    const boot = bootKey(g.type, config);
    const onBoot = disks.some((d) => d.key === boot);
    if (onBoot) wontBoot++;
    const list = disks.map((d) => `${d.key} (${bytes(d.size)})`).join(', ');
    items.push({
      kind: 'guest',
      what: guestLabel(g),
      effect: `loses ${disks.length === 1 ? 'disk' : 'disks'} ${list}${onBoot ? ` — its boot disk: it will not boot` : '; PVE will not start it while a disk points at a missing storage'}${g.status === 'running' ? ' (running now)' : ''}`,
      vmid,
      severe: onBoot,
    });
  }
  if (backups > 0) items.push({ kind: 'backup', what: plural(backups, 'backup'), effect: 'can no longer be listed or restored from this storage' });
  const jobs = newContent === undefined || keepNodes !== undefined || typeLost('backup') ? await r.list('/cluster/backup') : [];
  for (const j of jobs ?? []) {
    if (j.storage === storage && j.enabled !== 0 && j.enabled !== '0')
      items.push({ kind: 'job', what: `backup job '${String(j.id)}'`, effect: 'writes to this storage: its next run fails', severe: true });
  }
  const verb = family === 'storage-remove' ? 'removing' : lost ? `taking content ${lost.length > 0 ? lost.join(', ') : '(none)'} off` : 'disabling';
  const prefix = lost ? `${verb} '${storage}': ` : '';
  const summary =
    losing === 0 && items.length === 0
      ? `${verb} '${storage}' reaches no guest disk, backup or job`
      : `${prefix}${plural(losing, 'guest')} ${losing === 1 ? 'loses' : 'lose'} a disk${wontBoot > 0 ? `; ${wontBoot} of them will not boot` : ''}${backups > 0 ? `; ${plural(backups, 'backup')} out of reach` : ''}`;
  return r.finish(family, summary, items);
}

/** Disks a config write deletes or replaces (`delete=scsi1`, `scsi0=<other volume>`). */
export function configDiskRadius(r: BlastReads, g: GuestEntry, config: Record<string, unknown>, params: Record<string, unknown>): BlastRadius | undefined {
  const disks = disksOf(g.type, config);
  const deleted = listOf(params.delete);
  const force = params.force === 1 || params.force === true || params.force === '1';
  const items: BlastItem[] = [];
  const boot = bootKey(g.type, config);
  for (const d of disks) {
    const replaced = typeof params[d.key] === 'string' && !String(params[d.key]).startsWith(`${d.volid},`) && String(params[d.key]) !== d.volid;
    if (!deleted.includes(d.key) && !replaced) continue;
    const destroyed = d.key.startsWith('unused') || (force && g.type === 'qemu');
    const fate = destroyed ? `volume ${d.volid} (${bytes(d.size)}) is destroyed` : `volume ${d.volid} (${bytes(d.size)}) is detached and kept as an unused disk`;
    const onBoot = d.key === boot;
    items.push({ kind: 'disk', what: `${guestLabel(g)} ${d.key}`, effect: `${fate}${onBoot ? ' — its boot disk: the guest will not boot' : ''}`, vmid: g.vmid, severe: destroyed || onBoot });
  }
  if (items.length === 0) return undefined;
  const destroyed = items.filter((i) => i.effect.includes('destroyed')).length;
  return r.finish(
    'disk-delete',
    `${plural(items.length, 'disk')} of ${guestLabel(g)} ${items.length === 1 ? 'goes' : 'go'}${destroyed > 0 ? ` (${destroyed} destroyed for good)` : ''}${items.some((i) => i.effect.includes('will not boot')) ? '; it will not boot' : ''}`,
    items,
  );
}

/** `DELETE /nodes/{node}/storage/{storage}/content/{volume}`: the guest that uses the volume, and clones based on it. */
export async function volumeRadius(r: BlastReads, node: string, storage: string, volume: string): Promise<BlastRadius> {
  const volid = volume.includes(':') ? volume : `${storage}:${volume}`;
  const content = await r.list(`/nodes/${encodeURIComponent(node)}/storage/${encodeURIComponent(storage)}/content`);
  const vol = content?.find((v) => v.volid === volid);
  const items: BlastItem[] = [];
  const base = /:(base-\d+-disk-\d+)$/.exec(volid)?.[1];
  if (base) {
    for (const v of content ?? []) {
      if (typeof v.volid === 'string' && v.volid.includes(`:${base}/`))
        items.push({
          kind: 'clone',
          what: `volume ${v.volid}${typeof v.vmid === 'number' ? ` of VMID ${v.vmid}` : ''}`,
          effect: 'is a linked clone of it: PVE refuses the delete while it exists',
          severe: true,
        });
    }
  }
  const owner = typeof vol?.vmid === 'number' ? vol.vmid : Number(/(?:vm|base|subvol)-(\d+)-disk/.exec(volid)?.[1] ?? Number.NaN);
  if (Number.isInteger(owner) && vol?.content !== 'backup') {
    const guests = await guestDirectory(r);
    const g = guests?.find((x) => x.vmid === owner);
    if (g) {
      const config = await guestConfig(r, g);
      const d = config ? disksOf(g.type, config).find((x) => x.volid === volid) : undefined;
      if (!config) items.push({ kind: 'guest', what: guestLabel(g), effect: 'owns it (its config could not be read: counts as its boot disk)', vmid: owner, severe: true });
      else if (d)
        items.push({
          kind: 'disk',
          what: `${guestLabel(g)} ${d.key}`,
          effect:
            d.key === bootKey(g.type, config)
              ? 'is this guest’s boot disk: PVE refuses while it is attached; once detached, the guest will not boot'
              : d.key.startsWith('unused')
                ? 'is an unused disk of the guest: its data is gone for good'
                : 'is attached to the guest: PVE refuses while it is in use',
          vmid: owner,
          severe: !d.key.startsWith('unused'),
        });
    }
  }
  const summary = items.length === 0 ? `nothing else uses ${volid}` : (items.map((i) => `${i.what} ${i.effect}`)[0] ?? '');
  return r.finish('disk-delete', summary, items);
}

/** `move_disk` / `move_volume`: the copy's new home, the source's fate, and snapshots the target cannot take. */
export async function moveRadius(r: BlastReads, g: GuestEntry, config: Record<string, unknown> | undefined, params: Record<string, unknown>): Promise<BlastRadius> {
  const key = String(params.disk ?? params.volume ?? '');
  const target = typeof params.storage === 'string' ? params.storage : undefined;
  const items: BlastItem[] = [];
  const d = config ? disksOf(g.type, config).find((x) => x.key === key) : undefined;
  if (!config) r.incomplete('the guest config was not read');
  const destroy = params.delete === 1 || params.delete === true || params.delete === '1';
  if (d)
    items.push({
      kind: 'disk',
      what: `${guestLabel(g)} ${key}`,
      effect: `${d.volid} (${bytes(d.size)}) is copied to '${target ?? '?'}'; the source is ${destroy ? 'destroyed once copied' : 'kept as an unused disk (its space stays used)'}${g.status === 'running' ? '; the guest keeps running while it copies' : ''}`,
      vmid: g.vmid,
    });
  if (target) {
    const def = await r.object(`/storage/${encodeURIComponent(target)}`);
    const format = typeof params.format === 'string' ? params.format : 'qcow2';
    if (def && (def.type === 'dir' || def.type === 'nfs' || def.type === 'cifs') && format !== 'qcow2') {
      items.push({
        kind: 'snapshot',
        what: `${guestLabel(g)}`,
        effect: `a ${format} file on ${String(def.type)} storage '${target}' cannot be snapshotted: snapshots of this guest are refused from then on`,
        vmid: g.vmid,
        severe: true,
      });
    }
    if (def && def.shared !== 1 && def.shared !== true)
      items.push({ kind: 'guest', what: guestLabel(g), effect: `'${target}' is local to its node: live migration then copies this disk`, vmid: g.vmid });
  }
  const snaps = await r.list(`/nodes/${encodeURIComponent(g.node)}/${g.type}/${g.vmid}/snapshot`);
  const count = (snaps ?? []).filter((s) => s.name !== 'current').length;
  if (count > 0 && destroy) items.push({ kind: 'snapshot', what: plural(count, 'snapshot'), effect: 'still refer to the source disk: PVE refuses to destroy it', vmid: g.vmid, severe: true });
  return r.finish('disk-move', `${guestLabel(g)} ${key || '?'} moves to '${target ?? '?'}'${destroy ? ', the source destroyed' : ''}`, items);
}

/**
 * Destroying a guest: its disks and snapshots, its HA resource, replication and backup jobs that
 * name it, and linked clones when it is a template.
 */
export async function destroyRadius(r: BlastReads, g: GuestEntry, config: Record<string, unknown> | undefined, params: Record<string, unknown>): Promise<BlastRadius> {
  const items: BlastItem[] = [];
  const purge = params.purge === 1 || params.purge === true || params.purge === '1';
  if (!config) r.incomplete('the guest config was not read');
  const disks = config ? disksOf(g.type, config) : [];
  if (disks.length > 0)
    items.push({ kind: 'disk', what: plural(disks.length, 'disk'), effect: `destroyed: ${disks.map((d) => `${d.volid} (${bytes(d.size)})`).join(', ')}`, vmid: g.vmid, severe: true });
  const snaps = (await r.list(`/nodes/${encodeURIComponent(g.node)}/${g.type}/${g.vmid}/snapshot`))?.filter((s) => s.name !== 'current') ?? [];
  if (snaps.length > 0) items.push({ kind: 'snapshot', what: plural(snaps.length, 'snapshot'), effect: `destroyed: ${snaps.map((s) => String(s.name)).join(', ')}`, vmid: g.vmid });
  const sid = `${g.type === 'lxc' ? 'ct' : 'vm'}:${g.vmid}`;
  const ha = await r.list('/cluster/ha/resources');
  const res = ha?.find((h) => h.sid === sid);
  if (res)
    items.push({
      kind: 'ha',
      what: `HA resource ${sid} (state ${String(res.state ?? '?')})`,
      effect: purge ? 'removed with the guest' : 'still names it: PVE refuses to destroy an HA-managed guest without purge',
      vmid: g.vmid,
      severe: !purge,
    });
  for (const j of (await r.list('/cluster/replication')) ?? []) {
    if (Number(j.guest) === g.vmid)
      items.push({
        kind: 'replication',
        what: `replication job '${String(j.id)}' to ${String(j.target ?? '?')}`,
        effect: purge ? 'removed with the guest' : 'names it: removed with it',
        vmid: g.vmid,
      });
  }
  for (const j of (await r.list('/cluster/backup')) ?? []) {
    if (vmidList(j.vmid).includes(g.vmid))
      items.push({
        kind: 'job',
        what: `backup job '${String(j.id)}'`,
        effect: purge ? 'no longer backs it up (removed from the job)' : 'still lists it: each run warns that the guest is missing',
        vmid: g.vmid,
      });
  }
  if (config && (config.template === 1 || config.template === '1')) {
    const clones = new Set<number>();
    for (const storage of new Set(disks.map((d) => d.storage))) {
      const content = await r.list(`/nodes/${encodeURIComponent(g.node)}/storage/${encodeURIComponent(storage)}/content`);
      for (const v of content ?? []) {
        if (typeof v.volid === 'string' && v.volid.includes(`:base-${g.vmid}-disk-`) && v.volid.includes('/') && typeof v.vmid === 'number') clones.add(v.vmid);
      }
    }
    const guests = clones.size > 0 ? await guestDirectory(r) : [];
    for (const vmid of clones) {
      const c = guests?.find((x) => x.vmid === vmid);
      items.push({ kind: 'clone', what: c ? guestLabel(c) : `VMID ${vmid}`, effect: 'is a linked clone of this template: PVE refuses to destroy the template while it exists', vmid, severe: true });
    }
  }
  if (g.pool) items.push({ kind: 'guest', what: `pool '${g.pool}'`, effect: 'loses this member' });
  const clones = items.filter((i) => i.kind === 'clone').length;
  const jobs = items.filter((i) => i.kind === 'job' || i.kind === 'replication' || i.kind === 'ha').length;
  return r.finish(
    'guest-destroy',
    `${guestLabel(g)} is destroyed with ${plural(disks.length, 'disk')} and ${plural(snaps.length, 'snapshot')}${jobs > 0 ? `; ${plural(jobs, 'HA resource or job', 'HA resources or jobs')} ${jobs === 1 ? 'names' : 'name'} it` : ''}${clones > 0 ? `; ${plural(clones, 'linked clone')} ${clones === 1 ? 'depends' : 'depend'} on it` : ''}`,
    items,
  );
}
