/**
 * Undo: what a change needs to be reversed, recorded with its intent in the audit before it is
 * sent, and the reversing steps computed from those records against the cluster as it is now.
 *
 * Recorded (`undoRecordOf`, no extra read: the identity check already read the guest's config
 * right before the write, and PVE's `digest` ties the write to exactly that config):
 * - a guest config write: the previous value of every key it sets or deletes (`null`: not set),
 *   and the value it set (to tell later whether someone moved the config since);
 * - a snapshot it creates: the delete that removes it again;
 * - a safety snapshot the bridge took before a risky change (the policy's `undo.snapshotBefore`):
 *   the rollback to it;
 * - anything else: why it cannot be undone (a deleted volume is gone; a power action is not
 *   reversed by undo).
 * Secret values are never stored: a key whose previous value is a secret (a cloud-init password)
 * is listed as one that cannot be restored.
 *
 * Reversed (`planUndo`), newest change first: each config write's keys are put back only if the
 * guest still holds what the run set (else the config moved since and that change is not undone;
 * a later run's change is never overwritten); the step carries the config digest read now, so a
 * config that moves between the undo's plan and its approved run makes PVE refuse the step.
 */
import { isPlainObject } from '../schema/schema-node.js';
import { capString } from './caps.js';
import { listOf } from '../pve/list-value.js';

/** Config-write params that are not settings of the guest. */
const NOT_SETTINGS = new Set(['digest', 'delete', 'revert', 'skiplock', 'background_delay', 'force']);

export interface UndoGuest {
  node: string;
  type: 'qemu' | 'lxc';
  vmid: number;
}

/** What reverses one change, stored as the `undo` field of its `intent` audit entry. */
export type UndoRecord =
  | {
      kind: 'config';
      guest: UndoGuest;
      /** Previous values of the keys the write set or deleted; `null`: the key was not set. */
      before: Record<string, string | null>;
      /** What the write set (`null`: deleted); secret keys are left out. */
      after: Record<string, string | null>;
      /** Keys whose previous or new value is a secret: not stored, so not restored. */
      secret?: string[];
    }
  /**
   * Another update (`PUT` on an object that a `GET` on the same path reads back): the object was
   * read before the write. `canDelete`: the operation takes a `delete` list, so keys that were not
   * set can be removed again.
   */
  | {
      kind: 'update';
      path: string;
      before: Record<string, string | null>;
      after: Record<string, string | null>;
      canDelete: boolean;
      secret?: string[];
    }
  /** An object the change created; `path` deletes it again. */
  | { kind: 'created'; path: string; what: string; guest?: UndoGuest; snapname?: string }
  /** A snapshot the bridge took right before the change: rolling back to it reverses the change. */
  | { kind: 'rollback'; guest: UndoGuest; snapname: string }
  | { kind: 'none'; why: string };

export interface UndoRecordInput {
  method: string;
  template: string;
  pathValues: Record<string, string>;
  /** The write's full params (the values it sets). */
  params: Record<string, unknown>;
  /** The guest's config as the identity check read it right before this write. */
  config?: Record<string, unknown>;
  /** The audit's redaction of a value under this config path: a value it changes is a secret. */
  redact(value: Record<string, unknown>): Record<string, unknown>;
}

const GUEST = /^\/nodes\/\{node\}\/(qemu|lxc)\/\{vmid\}/;

/** What reverses this write, from what is known right before it is sent. */
export function undoRecordOf(input: UndoRecordInput): UndoRecord {
  const m = GUEST.exec(input.template);
  const rest = m ? input.template.slice(m[0].length) : '';
  const guest = m ? guestOf(input.pathValues, m[1] as 'qemu' | 'lxc') : undefined;
  if (guest && rest === '/config' && (input.method === 'PUT' || input.method === 'POST')) return configRecord(input, guest);
  if (guest && rest === '/snapshot' && input.method === 'POST' && typeof input.params.snapname === 'string') {
    const name = input.params.snapname;
    return { kind: 'created', path: `${guestBase(guest)}/snapshot/${name}`, what: `snapshot '${capString(name)}' of ${guestName(guest)}`, guest, snapname: name };
  }
  return { kind: 'none', why: noUndoReason(input.method, input.template) };
}

/**
 * A `PUT` on an object read back right before it (`current`, the GET on the same path): its
 * previous values, as a config write's are.
 */
export function updateRecordOf(input: UndoRecordInput & { path: string; current: Record<string, unknown>; canDelete: boolean }): UndoRecord {
  const values = previousValues(input, input.current);
  return { kind: 'update', path: input.path, before: values.before, after: values.after, canDelete: input.canDelete, ...(values.secret.length > 0 ? { secret: values.secret } : {}) };
}

function configRecord(input: UndoRecordInput, guest: UndoGuest): UndoRecord {
  const config = input.config;
  if (!config) return { kind: 'none', why: `the config of ${guestName(guest)} could not be read before the write, so its previous values are not known` };
  if (input.params.revert !== undefined) return { kind: 'none', why: `it reverts pending changes of ${guestName(guest)}, which cannot be re-applied` };
  const { before, after, secret } = previousValues(input, config);
  return { kind: 'config', guest, before, after, ...(secret.length > 0 ? { secret } : {}) };
}

/** The previous and new value of every key a write sets or deletes; secret ones only named. */
function previousValues(input: UndoRecordInput, config: Record<string, unknown>): { before: Record<string, string | null>; after: Record<string, string | null>; secret: string[] } {
  const set = Object.keys(input.params).filter((k) => !NOT_SETTINGS.has(k));
  const deleted = [...new Set(listOf(input.params.delete))].filter((k) => !set.includes(k));
  const keys = [...set, ...deleted].sort();
  const shownBefore = input.redact(config);
  const shownAfter = input.redact(input.params);
  const before: Record<string, string | null> = {};
  const after: Record<string, string | null> = {};
  const secret: string[] = [];
  for (const k of keys) {
    const prev = Object.hasOwn(config, k) ? config[k] : undefined;
    const next = set.includes(k) ? input.params[k] : undefined;
    if (!same(prev, shownBefore[k]) || (next !== undefined && !same(next, shownAfter[k]))) {
      secret.push(k);
      continue;
    }
    before[k] = prev === undefined ? null : String(prev);
    after[k] = next === undefined ? null : String(next);
  }
  return { before, after, secret };
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function noUndoReason(method: string, template: string): string {
  if (method === 'DELETE' && template === '/nodes/{node}/storage/{storage}/content/{volume}') return 'a deleted volume cannot be restored';
  if (method === 'DELETE' && /^\/nodes\/\{node\}\/(qemu|lxc)\/\{vmid\}$/.test(template)) return 'a destroyed guest cannot be restored (restore it from a backup)';
  if (method === 'DELETE' && /\/snapshot\/\{snapname\}$/.test(template)) return 'a deleted snapshot cannot be restored';
  if (/\/snapshot\/\{snapname\}\/rollback$/.test(template)) return 'the state a rollback discarded cannot be restored';
  if (/\/status\/[a-z]+$/.test(template)) return 'undo does not reverse power actions (start or stop the guest yourself)';
  return `undo knows no reversal for ${method} ${template}`;
}

function guestOf(pathValues: Record<string, string>, type: 'qemu' | 'lxc'): UndoGuest | undefined {
  const vmid = Number(pathValues.vmid);
  const node = pathValues.node;
  return node !== undefined && Number.isSafeInteger(vmid) ? { node, type, vmid } : undefined;
}

export function guestBase(g: UndoGuest): string {
  return `/nodes/${g.node}/${g.type}/${g.vmid}`;
}

function guestName(g: UndoGuest): string {
  return `${g.type === 'lxc' ? 'CT' : 'VM'} ${g.vmid} on ${capString(g.node)}`;
}

// ---- the safety snapshot ---------------------------------------------------------------------

/**
 * The name of the safety snapshot a run takes of a guest before a risky change: PVE's snapshot
 * names start with a letter and hold letters, digits, `-` and `_` (at most 40).
 */
export function safetySnapshotName(runId: string): string {
  return `undo-${runId.replace(/[^A-Za-z0-9]/g, '').slice(0, 12)}`;
}

// ---- reversing ---------------------------------------------------------------------------------

/** One change of a run, as the audit recorded it. */
export interface RecordedChange {
  /** The seq of its `intent` entry. */
  seq: number;
  cluster: string;
  method: string;
  path: string;
  /** What became of it: the call's outcome, a recovery's finding, or `open` (neither recorded yet). */
  outcome: 'done' | 'failed' | 'not-sent' | 'unknown' | 'made' | 'not-made' | 'open';
  undo?: UndoRecord;
  /** Who made it (the intent's `principal`, as the audit names a remote user); absent for the host's own user. */
  principal?: unknown;
}

/** A reversing call, made through the ordinary bridge (policy, plan, approval). */
export interface UndoStep {
  cluster: string;
  method: 'PUT' | 'POST' | 'DELETE';
  path: string;
  params: Record<string, unknown>;
  /** What it reverses, in words. */
  about: string;
}

export interface UndoPlan {
  runId: string;
  steps: UndoStep[];
  /** What is not undone, and why: said before the approval. */
  cannot: string[];
}

/** Reads of the cluster as it is now (GETs with the policy's own credentials). */
export interface UndoReads {
  config(cluster: string, guest: UndoGuest): Promise<Record<string, unknown> | undefined>;
  snapshots(cluster: string, guest: UndoGuest): Promise<string[] | undefined>;
  /** Any object by its path (another update's target). */
  object(cluster: string, path: string): Promise<Record<string, unknown> | undefined>;
}

/** The reversing steps of a run's recorded changes, newest first, and what cannot be reversed. */
export async function planUndo(runId: string, changes: readonly RecordedChange[], reads: UndoReads): Promise<UndoPlan> {
  const steps: UndoStep[] = [];
  const cannot: string[] = [];
  const made = changes.filter((c) => c.outcome === 'done' || c.outcome === 'made');
  for (const c of changes) {
    if (c.outcome === 'unknown' || c.outcome === 'open') cannot.push(`${c.method} ${c.path}: whether it was made is not known, so it is not undone (look at it on the cluster)`);
  }
  // A rollback to the safety snapshot reverses everything after it on that guest.
  const rolledBack = new Map<string, number>();
  for (const c of made) {
    if (c.undo?.kind === 'rollback' && !rolledBack.has(guestKey(c.cluster, c.undo.guest))) rolledBack.set(guestKey(c.cluster, c.undo.guest), c.seq);
  }
  // Per guest, the config as the reversal of the later changes leaves it.
  const configs = new Map<string, Record<string, unknown> | undefined>();
  const digests = new Map<string, string | undefined>();
  /** Guests an earlier step of this undo already changes: their digest is not known ahead. */
  const stepped = new Set<string>();
  for (const c of [...made].reverse()) {
    const undo = c.undo;
    const what = `${c.method} ${c.path}`;
    if (!undo) {
      cannot.push(`${what}: nothing was recorded to reverse it`);
      continue;
    }
    if (undo.kind === 'none') {
      cannot.push(`${what}: ${undo.why}`);
      continue;
    }
    // Not in the guest's config, so not covered by a rollback either.
    if (undo.kind === 'update') {
      const step = await updateStep(c, undo, reads, what, cannot);
      if (step) steps.push(step);
      continue;
    }
    const key = guestKey(c.cluster, undo.guest ?? { node: '', type: 'qemu', vmid: -1 });
    const snapshotSeq = rolledBack.get(key);
    if (undo.kind !== 'rollback' && snapshotSeq !== undefined && c.seq > snapshotSeq) continue;
    if (undo.kind === 'rollback') {
      if (snapshotSeq !== c.seq) continue;
      const names = await reads.snapshots(c.cluster, undo.guest);
      if (!names) cannot.push(`${what}: the snapshot list of ${guestName(undo.guest)} could not be read, so the rollback to '${undo.snapname}' is not planned`);
      else if (!names.includes(undo.snapname)) cannot.push(`${what}: the safety snapshot '${undo.snapname}' of ${guestName(undo.guest)} is gone, so this run's changes to it are not rolled back`);
      else {
        stepped.add(key);
        steps.push({
          cluster: c.cluster,
          method: 'POST',
          path: `${guestBase(undo.guest)}/snapshot/${undo.snapname}/rollback`,
          params: {},
          about: `roll ${guestName(undo.guest)} back to the safety snapshot '${undo.snapname}' taken before this run changed it (the snapshot is kept: delete it once satisfied)`,
        });
      }
      continue;
    }
    if (undo.kind === 'created') {
      const names = undo.guest && undo.snapname !== undefined ? await reads.snapshots(c.cluster, undo.guest) : undefined;
      if (names && undo.snapname !== undefined && !names.includes(undo.snapname)) cannot.push(`${what}: ${undo.what} is already gone`);
      else {
        stepped.add(key);
        steps.push({ cluster: c.cluster, method: 'DELETE', path: undo.path, params: {}, about: `delete ${undo.what}, which the run created` });
      }
      continue;
    }
    // A guest config write.
    if (!configs.has(key)) {
      const read = await reads.config(c.cluster, undo.guest);
      configs.set(key, read ? { ...read } : undefined);
      digests.set(key, typeof read?.digest === 'string' ? read.digest : undefined);
    }
    const now = configs.get(key);
    if (!now) {
      cannot.push(`${what}: the config of ${guestName(undo.guest)} could not be read now (is the guest gone?)`);
      continue;
    }
    for (const k of undo.secret ?? []) cannot.push(`${what}: '${k}' holds a secret, whose previous value is never recorded; set it again yourself`);
    const moved = Object.entries(undo.after).filter(([k, v]) => !sameValue(now[k], v));
    if (moved.length > 0) {
      const shown = moved.map(([k, v]) => `${k} is ${now[k] === undefined ? '(not set)' : `'${capString(String(now[k]))}'`}, the run left ${v === null ? 'it deleted' : `'${capString(v)}'`}`);
      cannot.push(`${what}: the config of ${guestName(undo.guest)} moved since (${shown.join('; ')}), so this change is not undone: a later change is never overwritten`);
      // What the earlier changes of this run are compared with from here: unknown.
      configs.set(key, {});
      continue;
    }
    const params: Record<string, unknown> = {};
    const removed: string[] = [];
    for (const [k, v] of Object.entries(undo.before)) {
      if (v === null) {
        if (now[k] !== undefined) removed.push(k);
        delete now[k];
      } else {
        if (!sameValue(now[k], v)) params[k] = v;
        now[k] = v;
      }
    }
    if (Object.keys(params).length === 0 && removed.length === 0) continue;
    if (removed.length > 0) params.delete = removed.sort().join(',');
    const digest = digests.get(key);
    // Only the first step on a guest is held to the digest read now (the bridge passes the
    // digest it reads before each later one, after this undo's own earlier steps moved it).
    if (digest !== undefined && !stepped.has(key)) params.digest = digest;
    stepped.add(key);
    steps.push({
      cluster: c.cluster,
      method: 'PUT',
      path: `${guestBase(undo.guest)}/config`,
      params,
      about: `restore ${Object.keys(undo.before).join(', ')} of ${guestName(undo.guest)} as they were before ${what}`,
    });
  }
  return { runId, steps, cannot };
}

/** The reversal of another update, if the object still holds what the run left. */
async function updateStep(c: RecordedChange, undo: Extract<UndoRecord, { kind: 'update' }>, reads: UndoReads, what: string, cannot: string[]): Promise<UndoStep | undefined> {
  const now = await reads.object(c.cluster, undo.path);
  if (!now) {
    cannot.push(`${what}: ${undo.path} could not be read now (is it gone?)`);
    return undefined;
  }
  for (const k of undo.secret ?? []) cannot.push(`${what}: '${k}' holds a secret, whose previous value is never recorded; set it again yourself`);
  const moved = Object.entries(undo.after).filter(([k, v]) => !sameValue(now[k], v));
  if (moved.length > 0) {
    cannot.push(
      `${what}: ${undo.path} moved since (${moved.map(([k]) => k).join(', ')} no longer as the run left ${moved.length === 1 ? 'it' : 'them'}), so this change is not undone: a later change is never overwritten`,
    );
    return undefined;
  }
  const params: Record<string, unknown> = {};
  const removed: string[] = [];
  for (const [k, v] of Object.entries(undo.before)) {
    if (v !== null) params[k] = v;
    else if (!undo.canDelete) cannot.push(`${what}: '${k}' was not set before, and this operation cannot delete it`);
    else removed.push(k);
  }
  if (removed.length > 0) params.delete = removed.sort().join(',');
  if (typeof now.digest === 'string') params.digest = now.digest;
  if (Object.keys(params).filter((k) => k !== 'digest').length === 0) return undefined;
  return { cluster: c.cluster, method: 'PUT', path: undo.path, params, about: `restore ${Object.keys(undo.before).join(', ')} of ${undo.path} as they were before ${what}` };
}

function sameValue(now: unknown, recorded: string | null): boolean {
  if (recorded === null) return now === undefined;
  return now !== undefined && String(now) === recorded;
}

function guestKey(cluster: string, g: UndoGuest): string {
  return `${cluster}\u0000${g.node}\u0000${g.type}\u0000${g.vmid}`;
}

/** Reads for `planUndo` through a GET function (the bridge's, with the policy's own credentials). */
export function undoReadsVia(get: (cluster: string, path: string) => Promise<unknown>): UndoReads {
  return {
    async config(cluster, guest) {
      try {
        const data = await get(cluster, `${guestBase(guest)}/config`);
        return isPlainObject(data) ? data : undefined;
      } catch {
        return undefined;
      }
    },
    async object(cluster, path) {
      try {
        const data = await get(cluster, path.split('/').map(encodeURIComponent).join('/'));
        return isPlainObject(data) ? data : undefined;
      } catch {
        return undefined;
      }
    },
    async snapshots(cluster, guest) {
      try {
        const data = await get(cluster, `${guestBase(guest)}/snapshot`);
        return Array.isArray(data) ? data.filter(isPlainObject).map((s) => String(s.name)) : undefined;
      } catch {
        return undefined;
      }
    },
  };
}
