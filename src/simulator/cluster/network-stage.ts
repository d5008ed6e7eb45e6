/**
 * A node's staged network configuration (PVE's `interfaces.new`): creating, changing or removing
 * an interface changes only the staged copy; applying it (`PUT /nodes/{node}/network`) makes it
 * the running one, reverting throws it away. As on PVE, the node's interface reads show the
 * staged configuration while there is one; an interface that is not up yet reads `active: 0`.
 */
import type { ClusterState } from './state.js';
import type { NodeInterface, SimNode } from './types.js';

function stagedMap(state: ClusterState): Map<string, NodeInterface[]> {
  return state.area('network-staged', () => new Map<string, NodeInterface[]>());
}

/** The interfaces the node's reads show: the staged copy when there is one, else the running ones. */
export function shownInterfaces(state: ClusterState, node: SimNode): NodeInterface[] {
  return stagedMap(state).get(node.name) ?? node.interfaces;
}

/** The staged copy to change, started from the running configuration on the first change. */
export function stagedInterfaces(state: ClusterState, node: SimNode): NodeInterface[] {
  const map = stagedMap(state);
  let staged = map.get(node.name);
  if (!staged) {
    staged = node.interfaces.map((i) => ({ ...i, families: [...i.families] }));
    map.set(node.name, staged);
  }
  return staged;
}

/** Applying: the staged copy becomes the running configuration; every interface in it is up. */
export function applyStaged(state: ClusterState, node: SimNode): number {
  const staged = stagedMap(state).get(node.name);
  if (staged) {
    node.interfaces = staged.map((i) => ({ ...i, active: 1 }));
    stagedMap(state).delete(node.name);
  }
  return node.interfaces.length;
}

export function revertStaged(state: ClusterState, node: SimNode): void {
  stagedMap(state).delete(node.name);
}
