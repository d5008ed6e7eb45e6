/**
 * The objects a request path names (`{node}`, `{node}` + `{vmid}`), looked up with the errors a
 * PVE node gives when they do not exist there.
 */
import type { SimRequestContext } from '../../contract.js';
import type { ClusterState } from '../state.js';
import type { Guest, GuestType } from '../types.js';
import { reqInt, reqStr } from './params.js';

/** The `{node}` of the path; PVE's hostname-lookup error when it is not a cluster node. */
export function pathNode(state: ClusterState, ctx: SimRequestContext): string {
  const node = reqStr(ctx, 'node');
  state.node(node);
  return node;
}

/** The guest of `{node}` and `{vmid}`; PVE's missing-config error when no such guest of this type is on that node. */
export function pathGuest(state: ClusterState, type: GuestType, ctx: SimRequestContext): Guest {
  return state.guestAt(type, reqStr(ctx, 'node'), reqInt(ctx, 'vmid'));
}
