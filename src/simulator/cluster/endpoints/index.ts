/** Every operation the simulated cluster implements, as SimEndpoints bound to one state. */
import type { SimEndpoint } from '../../contract.js';
import type { ClusterState } from '../state.js';
import type { GuestType } from '../types.js';
import { agentEndpoints } from './agent.js';
import { backupEndpoints } from './backup.js';
import { bulkEndpoints } from './bulk.js';
import { cloudinitEndpoints } from './cloudinit.js';
import { clusterViewEndpoints } from './cluster.js';
import { clusterIpsetEndpoints, guestIpsetEndpoints } from './firewall-ipsets.js';
import { firewallEndpoints } from './firewall.js';
import { guestConfigEndpoints } from './guest-config.js';
import { guestLifecycleEndpoints } from './guest-lifecycle.js';
import { guestPowerEndpoints } from './guest-power.js';
import { guestEndpoints } from './guests.js';
import { haEndpoints } from './ha.js';
import { migrateEndpoints } from './migrate.js';
import { nodeEndpoints } from './nodes.js';
import { outboundEndpoints } from './outbound.js';
import { poolEndpoints } from './pools.js';
import { pruneEndpoints } from './prune.js';
import { readEndpoints } from './reads.js';
import { sdnEndpoints } from './sdn.js';
import { snapshotEndpoints } from './snapshots.js';
import { storageEndpoints } from './storage.js';
import { taskEndpoints } from './tasks.js';

/** Operations that exist for VMs and containers alike, each built once per guest type. */
const GUEST_FAMILIES: Array<(state: ClusterState, type: GuestType) => SimEndpoint[]> = [
  guestEndpoints,
  guestLifecycleEndpoints,
  guestConfigEndpoints,
  guestPowerEndpoints,
  snapshotEndpoints,
  migrateEndpoints,
  guestIpsetEndpoints,
];

export function clusterEndpoints(state: ClusterState): SimEndpoint[] {
  return [
    ...clusterViewEndpoints(state),
    ...nodeEndpoints(state),
    ...taskEndpoints(state),
    ...storageEndpoints(state),
    ...backupEndpoints(state),
    ...bulkEndpoints(state),
    ...haEndpoints(state),
    ...poolEndpoints(state),
    ...pruneEndpoints(state),
    ...clusterIpsetEndpoints(state),
    ...GUEST_FAMILIES.flatMap((family) => [...family(state, 'qemu'), ...family(state, 'lxc')]),
    ...agentEndpoints(state),
    ...cloudinitEndpoints(state),
    ...outboundEndpoints(state),
    ...firewallEndpoints(state),
    ...sdnEndpoints(state),
    ...readEndpoints(state),
  ];
}
