/**
 * The safety snapshot a policy asks for before a risky change (`undo.snapshotBefore`): taken by
 * the bridge right before the first such change to a guest in a run, where the guest's storage
 * supports snapshots (PVE's `GET …/feature?feature=snapshot`), so that undo can roll the guest
 * back to it. Made with the write token, written ahead in the audit like any change (its intent
 * carries the rollback as its undo record); if it fails, the change it guards is not sent.
 * A dry-run does not take it: it notes in the plan that it will be taken (or cannot be).
 */
import type { RiskClass } from '../schema/model.js';
import type { Policy } from '../policy/policy.js';
import { isPlainObject } from '../schema/schema-node.js';
import { guestBase, safetySnapshotName, type UndoGuest } from '../safety/undo.js';

const GUEST = /^\/nodes\/\{node\}\/(qemu|lxc)\/\{vmid\}(\/.*)?$/;

/**
 * Whether the policy wants a safety snapshot before this write: a change of a listed risk class
 * to one guest, other than its power actions (nothing to keep), its snapshots (they are what a
 * snapshot would protect) and its destruction (the snapshot would go with it).
 */
export function wantsSafetySnapshot(policy: Policy, risk: RiskClass, template: string, method: string): boolean {
  const classes: readonly RiskClass[] = policy.config.undo.snapshotBefore;
  if (!classes.includes(risk)) return false;
  const m = GUEST.exec(template);
  if (!m) return false;
  const rest = m[2] ?? '';
  if (rest === '' && method === 'DELETE') return false;
  return !/^\/(status|snapshot)(\/|$)/.test(rest);
}

/** Whether the guest's storage can take a snapshot; undefined when the read failed. */
export async function canSnapshot(guest: UndoGuest, get: (path: string, params: Record<string, unknown>) => Promise<unknown>): Promise<boolean | undefined> {
  try {
    const answer = await get(`${guestBase(guest)}/feature`, { feature: 'snapshot' });
    if (!isPlainObject(answer)) return undefined;
    return answer.hasFeature === 1 || answer.hasFeature === true || answer.hasFeature === '1';
  } catch {
    return undefined;
  }
}

/** What the plan says about the snapshot before step `seq`. */
export function snapshotNote(guest: UndoGuest, seq: number, can: boolean | undefined): string {
  const who = `${guest.type === 'lxc' ? 'CT' : 'VM'} ${guest.vmid}`;
  if (can === true) return `before step ${seq}, a safety snapshot of ${who} is taken (the policy asks for one); undoing this run rolls ${who} back to it`;
  if (can === false) return `no safety snapshot of ${who} before step ${seq}: its storage cannot take snapshots; undoing this run restores only the recorded config values`;
  return `no safety snapshot of ${who} before step ${seq} is sure: whether its storage can take one could not be read`;
}

export interface SafetySnapshotPorts {
  runId: string;
  guest: UndoGuest;
  get(path: string, params: Record<string, unknown>): Promise<unknown>;
  /** Writes the snapshot's intent (durable) and returns its seq; throws when the audit cannot take it. */
  intend(data: Record<string, unknown>): number;
  post(path: string, params: Record<string, unknown>): Promise<unknown>;
  waitTask(upid: string): Promise<{ ok: boolean; exitstatus?: string }>;
  /** The snapshot's outcome entry. */
  outcome(data: Record<string, unknown>): void;
}

/**
 * Takes the snapshot when the storage supports it. Resolves `taken`, or `unsupported` (nothing
 * was sent); throws with the reason when it was asked for and failed, so the guarded change is
 * not sent.
 */
export async function safetySnapshot(p: SafetySnapshotPorts): Promise<'taken' | 'unsupported'> {
  const can = await canSnapshot(p.guest, p.get);
  if (can !== true) return 'unsupported';
  const snapname = safetySnapshotName(p.runId);
  const path = `${guestBase(p.guest)}/snapshot`;
  const params = { snapname, description: `taken by pve-code-mcp before run ${p.runId} changed this guest (undo rolls back to it)` };
  const intent = p.intend({
    method: 'POST',
    path,
    template: `/nodes/{node}/${p.guest.type}/{vmid}/snapshot`,
    risk: 'write',
    params,
    node: p.guest.node,
    vmids: [p.guest.vmid],
    safetySnapshot: true,
    undo: { kind: 'rollback', guest: p.guest, snapname },
  });
  let outcome: 'done' | 'failed' | 'unknown' = 'unknown';
  let upid: unknown;
  try {
    upid = await p.post(path, params);
    outcome = 'done';
    if (typeof upid === 'string') {
      const task = await p.waitTask(upid);
      if (!task.ok) {
        outcome = 'failed';
        throw new Error(`the snapshot task ended with '${task.exitstatus ?? '?'}'`);
      }
    }
    return 'taken';
  } catch (err) {
    if (isPlainObject(err) && typeof err.status === 'number') outcome = 'failed';
    throw err;
  } finally {
    p.outcome({ method: 'POST', path, intent, outcome, safetySnapshot: true, ...(typeof upid === 'string' ? { upid } : {}) });
  }
}
