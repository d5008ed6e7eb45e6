/**
 * Which blast-radius family a planned write belongs to, and its radius computed from reads made
 * now. Writes of no family have none: their damage is in their parameters, which the change
 * preview shows. The families and their reads: docs/plans.md.
 */
import { type BlastRadius, BlastReads } from './blast-radius.js';
import { aclRadius, poolDeleteRadius, tokenDeleteRadius, userDeleteRadius } from './blast-radius-access.js';
import { type GuestEntry, guestDirectory } from './blast-radius-guests.js';
import { bulkMigrateRadius, haResourceRadius, haRuleRadius, migrateRadius } from './blast-radius-moves.js';
import { firewallRadius, networkApplyRadius } from './blast-radius-network.js';
import { configDiskRadius, destroyRadius, moveRadius, storageRadius, volumeRadius } from './blast-radius-storage.js';
import type { PreviewInput } from './change-preview.js';
import { listOf } from '../pve/list-value.js';

/** What a radius is computed from: the same input a planned write's change is read from. */
export interface BlastInput extends Omit<PreviewInput, 'now'> {
  /** The credentials this server authenticates with on the cluster (`user@realm!token` or `user@realm`): deleting one of them, or its user, cuts this server off. */
  ownAuthIds?: readonly string[];
}

const GUEST = /^\/nodes\/\{node\}\/(qemu|lxc)\/\{vmid\}(\/.*)?$/;
const truthy = (v: unknown): boolean => v === 1 || v === true || v === '1';

/** The blast radius of a write, or undefined when it belongs to no family. */
export async function computeBlastRadius(input: BlastInput): Promise<BlastRadius | undefined> {
  const { method, template: t, pathValues: pv, params } = input;
  const r = new BlastReads(input.read);
  if (t === '/storage/{storage}' && method === 'DELETE') return storageRadius(r, pv.storage ?? '', 'storage-remove');
  if (t === '/storage/{storage}' && method === 'PUT' && truthy(params.disable)) return storageRadius(r, pv.storage ?? '', 'storage-disable');
  // Narrowing `nodes` takes the storage from the nodes left out; a `content` list without `images`
  // or `rootdir` is, for those guests, a disable everywhere.
  const list = (v: unknown): string[] | undefined => (typeof v === 'string' && v !== '' ? listOf(v) : undefined);
  const keep = list(params.nodes);
  const content = typeof params.content === 'string' ? (list(params.content) ?? []) : undefined;
  if (t === '/storage/{storage}' && method === 'PUT' && (keep || content)) return storageRadius(r, pv.storage ?? '', 'storage-disable', keep ? new Set(keep) : undefined, content);
  if (t === '/nodes/{node}/storage/{storage}/content/{volume}' && method === 'DELETE') return volumeRadius(r, pv.node ?? '', pv.storage ?? '', pv.volume ?? '');
  if (t === '/nodes/{node}/network' && method === 'PUT') return networkApplyRadius(r, pv.node ?? '');
  if (t === '/cluster/firewall/rules' || t === '/cluster/firewall/rules/{pos}' || t === '/cluster/firewall/options') {
    return firewallRadius(r, 'cluster', t.endsWith('options') ? 'options' : 'rules', method, pv.pos === undefined ? undefined : Number(pv.pos), params);
  }
  if (t === '/nodes/{node}/firewall/rules' || t === '/nodes/{node}/firewall/rules/{pos}' || t === '/nodes/{node}/firewall/options') {
    return firewallRadius(r, { node: pv.node ?? '' }, t.endsWith('options') ? 'options' : 'rules', method, pv.pos === undefined ? undefined : Number(pv.pos), params);
  }
  if ((t === '/cluster/firewall/groups/{group}' && method === 'POST') || t === '/cluster/firewall/groups/{group}/{pos}') {
    return firewallRadius(r, { group: pv.group ?? '' }, 'rules', method, pv.pos === undefined ? undefined : Number(pv.pos), params);
  }
  if ((t === '/pools/{poolid}' || t === '/pools') && method === 'DELETE') return poolDeleteRadius(r, String(pv.poolid ?? params.poolid ?? ''));
  if (t === '/access/users/{userid}' && method === 'DELETE') return userDeleteRadius(r, pv.userid ?? '', input.ownAuthIds ?? []);
  if (t === '/access/users/{userid}/token/{tokenid}' && method === 'DELETE') return tokenDeleteRadius(r, pv.userid ?? '', pv.tokenid ?? '', input.ownAuthIds ?? []);
  if (t === '/access/acl' && method === 'PUT') return aclRadius(r, params, input.ownAuthIds ?? []);
  if (t === '/cluster/ha/resources' && method === 'POST') return haResourceRadius(r, method, String(params.sid ?? ''), params);
  if (t === '/cluster/ha/resources/{sid}') return haResourceRadius(r, method, pv.sid ?? '', params);
  if (t === '/cluster/ha/rules' || t === '/cluster/ha/rules/{rule}') return haRuleRadius(r, method, pv.rule ?? (typeof params.rule === 'string' ? params.rule : undefined), params);
  if (t === '/nodes/{node}/migrateall') return bulkMigrateRadius(r, pv.node, params);
  if (t === '/cluster/bulk-action/guest/migrate') return bulkMigrateRadius(r, undefined, params);
  const m = GUEST.exec(t);
  if (!m) return undefined;
  const rest = m[2] ?? '';
  const isConfig = rest === '/config' && (method === 'PUT' || method === 'POST');
  const isMove = rest === '/move_disk' || rest === '/move_volume';
  const isDestroy = rest === '' && method === 'DELETE';
  const isMigrate = rest === '/migrate' && method === 'POST';
  if (!isConfig && !isMove && !isDestroy && !isMigrate) return undefined;
  const type = m[1] as 'qemu' | 'lxc';
  // A config write reaches beyond its keys only when it deletes or replaces a disk: read nothing more.
  if (isConfig)
    return input.config ? configDiskRadius(r, { vmid: Number(pv.vmid), type, node: pv.node ?? '?', ...(input.target?.name ? { name: input.target.name } : {}) }, input.config, params) : undefined;
  const g = await guestOf(r, input, type);
  if (isMove) return moveRadius(r, g, input.config, params);
  if (isDestroy) return destroyRadius(r, g, input.config, params);
  return migrateRadius(r, g, params);
}

/** The guest as the directory lists it now (status, pool), else as the identity check saw it. */
async function guestOf(r: BlastReads, input: BlastInput, type: 'qemu' | 'lxc'): Promise<GuestEntry> {
  const vmid = Number(input.pathValues.vmid);
  const listed = (await guestDirectory(r))?.find((g) => g.vmid === vmid);
  if (listed) return listed;
  return { vmid, type, node: input.pathValues.node ?? '?', ...(input.target?.name ? { name: input.target.name } : {}) };
}
