/**
 * What the firewall endpoint families share: the log levels, digest and name rules of their
 * parameters, security groups by name, and the privilege check of a vnet's firewall.
 */
import type { SchemaNode } from '../../../schema/model.js';
import type { SimRequestContext } from '../../contract.js';
import { fail, permissionDenied } from '../errors.js';
import { firewallOf, type FwGroup } from '../firewall.js';
import { sdnOf } from '../sdn.js';
import type { ClusterState } from '../state.js';
import { reqStr } from './params.js';
import { arr, int, obj, opt, str } from './schema.js';

export type Json = Record<string, unknown>;

export const LOG_LEVELS = ['emerg', 'alert', 'crit', 'err', 'warning', 'notice', 'info', 'debug', 'nolog'];
export const DIGEST = opt(str('Refuse the change unless the file still has this digest (guards against concurrent edits).', { maxLength: 64 }));
export const NAME_RULES = { pattern: '[A-Za-z][A-Za-z0-9\\-\\_]+', minLength: 2, maxLength: 64 } as const;
export const LOG_ENTRY = arr(obj({ n: int('Line number.'), t: str('Line text.') }));
export const LOG_PARAMS: Record<string, SchemaNode> = {
  limit: opt(int('Lines to return at most.', { minimum: 0 })),
  start: opt(int('First line to return.', { minimum: 0 })),
  since: opt(int('Only lines since this epoch second.', { minimum: 0 })),
  until: opt(int('Only lines until this epoch second.', { minimum: 0 })),
};

/** A security group by name, or PVE's error for one that does not exist. */
export function firewallGroup(state: ClusterState, name: string): FwGroup {
  const g = firewallOf(state).groups.get(name);
  if (!g) throw fail(`no such security group '${name}'`);
  return g;
}

/** A vnet's firewall is guarded by SDN privileges on the vnet's zone path, checked by the handler. */
export function vnetFirewallCheck(state: ClusterState): (ctx: SimRequestContext, write: boolean) => void {
  return (ctx, write) => {
    const vnet = reqStr(ctx, 'vnet');
    const v = sdnOf(state).vnets.get(vnet);
    if (!v) throw fail(`sdn vnet '${vnet}' does not exist`);
    const path = `/sdn/zones/${v.zone}/${vnet}`;
    const priv = write ? 'SDN.Allocate' : 'SDN.Audit';
    if (!ctx.hasPriv(path, priv)) throw permissionDenied(path, priv);
  };
}
