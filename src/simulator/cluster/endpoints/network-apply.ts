/**
 * Applying and reverting a node's network configuration. The simulator stages no interface
 * changes, so applying reloads the interfaces as they are (a task on the node, as PVE's reload
 * is) and reverting has nothing to throw away; what matters for a plan is what applying can
 * reach (the node's management address and the bridges its guests use), which plans read.
 */
import type { SimEndpoint } from '../../contract.js';
import type { ClusterState } from '../state.js';
import { reqStr } from './params.js';
import { bool, NULL, opt, P, perm, UPID } from './schema.js';

export function networkApplyEndpoints(state: ClusterState): SimEndpoint[] {
  const modify = { check: perm('/nodes/{node}', ['Sys.Modify']) };
  return [
    {
      method: 'PUT',
      path: '/nodes/{node}/network',
      description: 'Apply the staged network configuration of a node by reloading its interfaces (task).',
      parameters: { node: P.node, 'regenerate-frr': opt(bool('Also rewrite the routing daemon configuration of the fabrics.')) },
      returns: UPID,
      permissions: modify,
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        const node = state.node(reqStr(ctx, 'node'));
        return state.tasks.start({
          node: node.name,
          type: 'srvreload',
          id: 'networking',
          user: ctx.principal.authId,
          finish: (run) => run.log(`reloaded ${node.interfaces.length} interfaces`),
        });
      },
    },
    {
      method: 'DELETE',
      path: '/nodes/{node}/network',
      description: 'Throw away the staged network configuration of a node.',
      parameters: { node: P.node },
      returns: NULL,
      permissions: modify,
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        state.node(reqStr(ctx, 'node'));
        return null;
      },
    },
  ];
}
