/**
 * What the bulk endpoint families share: the guest lists PVE builds for a bulk operation, the
 * permission checks, per-guest sub-requests in the caller's name, and the worker log lines.
 */
import type { SchemaNode } from '../../../schema/model.js';
import { PveHttpError, type SimRequestContext } from '../../contract.js';
import { permissionDenied } from '../errors.js';
import type { ClusterState } from '../state.js';
import type { TaskRun } from '../tasks.js';
import type { Guest } from '../types.js';
import { haSid } from '../views.js';
import { list, optInt } from './params.js';
import { arr, int, opt, VMID_RANGE } from './schema.js';

export const label = (g: Guest): string => (g.type === 'qemu' ? 'VM' : 'CT');

/** The guest list a bulk operation works on: templates and HA-managed guests only where PVE includes them. */
export function filteredGuests(state: ClusterState, sel: { node?: string; vms?: string[]; templates: boolean; haManaged: boolean }): Guest[] {
  const allowed = sel.vms ? new Set(sel.vms.map(Number)) : undefined;
  return state.allGuests().filter((g) => {
    if (allowed && !allowed.has(g.vmid)) return false;
    if (sel.node !== undefined && g.node !== sel.node) return false;
    if (!sel.templates && g.config.template) return false;
    if (!sel.haManaged && state.haResources.has(haSid(g))) return false;
    return true;
  });
}

/**
 * The start/stop list: HA-managed guests only when specific VMIDs were asked for (PVE leaves a
 * plain "all guests" run to the HA manager), never templates; `autostart` keeps only onboot=1.
 */
export function startStopList(state: ClusterState, node: string | undefined, vms: string[] | undefined, autostart: boolean): Guest[] {
  return filteredGuests(state, { ...(node !== undefined ? { node } : {}), ...(vms ? { vms } : {}), templates: false, haManaged: vms !== undefined }).filter(
    (g) => !autostart || Number(g.config.onboot ?? 0) === 1,
  );
}

/** A request context for one guest's operation, made in the bulk caller's name. */
export function subContext(ctx: SimRequestContext, g: Guest, template: string, params: Record<string, unknown>): SimRequestContext {
  return {
    method: 'POST',
    template,
    params: { node: g.node, vmid: g.vmid, ...params },
    principal: ctx.principal,
    hasPriv: ctx.hasPriv,
    setTotal: () => {},
  };
}

/** What an API client reports for a failed call: the status line's reason, then per-parameter errors. */
export function clientError(err: unknown): string {
  if (err instanceof PveHttpError) {
    const first = err.message.split('\n')[0] ?? '';
    const extra = Object.entries(err.errors ?? {}).map(([k, v]) => `${k}: ${v}`);
    return [first, ...extra].join('\n');
  }
  return err instanceof Error ? err.message.trimEnd() : String(err);
}

/** `check_guest_permissions`: each listed guest, or `/` when none is listed. */
export function checkGuests(ctx: SimRequestContext, vms: string[] | undefined, privs: string[]): void {
  if (vms && vms.length > 0) {
    for (const id of vms) for (const p of privs) if (!ctx.hasPriv(`/vms/${id}`, p)) throw permissionDenied(`/vms/${id}`, p);
    return;
  }
  if (!privs.every((p) => ctx.hasPriv('/', p))) throw permissionDenied('/', privs.join(', '));
}

/** The node operations' check: everything on `/`, or else the first privilege on every listed guest. */
export function checkNodeOp(ctx: SimRequestContext, vmsText: string | undefined, privs: string[]): void {
  if (privs.every((p) => ctx.hasPriv('/', p))) return;
  const vms = list(vmsText);
  const first = privs[0] as string;
  if (vms.length === 0) throw permissionDenied('/', privs.join(' && '));
  for (const id of vms) if (!ctx.hasPriv(`/vms/${id}`, first)) throw permissionDenied(`/vms/${id}`, first);
}

export function vmsParam(ctx: SimRequestContext): string[] | undefined {
  const v = ctx.params.vms;
  if (v === undefined || v === null) return undefined;
  return (Array.isArray(v) ? v : [v]).map(String);
}

export function intro(vms: string[] | undefined, prefix: string, suffix?: string): (run: TaskRun) => void {
  const tail = suffix ? ` ${suffix}` : '';
  return (run) => run.log(vms && vms.length > 0 ? `${prefix} guests${tail}: ${vms.join(', ')}` : `${prefix} all guests${tail}`);
}

/** `max-workers`, its alias, then a default (the simulated datacenter.cfg sets no max_workers). */
export function maxWorkers(ctx: SimRequestContext, fallback: number): number {
  return optInt(ctx, 'max-workers') || optInt(ctx, 'maxworkers') || fallback;
}

/** Calls a guest's own API operation in the caller's name, as a bulk action's API client does. */
export function apiCall(state: ClusterState, ctx: SimRequestContext, g: Guest, priv: string, run: () => string | undefined): string | undefined {
  state.guestAt(g.type, g.node, g.vmid);
  if (!state.node(g.node).online) throw new PveHttpError(595, `Connection refused\n`);
  if (!ctx.hasPriv(`/vms/${g.vmid}`, priv)) throw permissionDenied(`/vms/${g.vmid}`, priv);
  return run();
}

export const BULK_PARAMS = {
  vms: opt(arr(int('Guest ID.', { ...VMID_RANGE }), { description: 'Only these guests (default: every guest of the cluster).' })),
};

export const workersParam = (fallback: number): Record<string, SchemaNode> => ({
  'max-workers': opt(int('How many guest tasks run at the same time.', { minimum: 1, maximum: 64, default: fallback })),
  maxworkers: opt(int('Older name of max-workers.', { minimum: 1, maximum: 64, default: fallback })),
});
