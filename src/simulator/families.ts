/**
 * The registry of endpoint families: every operation the simulator serves comes from one family
 * listed here, and nowhere else. A family is a function that returns its `SimEndpoint`s; a
 * cluster family is bound to the cluster state, a guest family is built once for VMs and once for
 * containers, an access family is bound to the access store and ticket authority. See "Adding an
 * endpoint" in docs/simulator.md; families.test.ts checks that no family module is left out.
 */
import { accessAclEndpoints } from './access/acl-endpoints.js';
import type { AccessEndpointEnv } from './access/endpoint-env.js';
import { accessLoginEndpoints } from './access/login-endpoints.js';
import { accessUserEndpoints } from './access/user-endpoints.js';
import { accessReadEndpoints } from './access/reads.js';
import { agentEndpoints } from './cluster/endpoints/agent.js';
import { backupEndpoints } from './cluster/endpoints/backup.js';
import { bulkEndpoints } from './cluster/endpoints/bulk.js';
import { nodeAllEndpoints } from './cluster/endpoints/node-bulk.js';
import { cephOsdEndpoints } from './cluster/endpoints/ceph-osd-reads.js';
import { cephEndpoints } from './cluster/endpoints/ceph-reads.js';
import { cloudinitEndpoints } from './cluster/endpoints/cloudinit.js';
import { acmeEndpoints } from './cluster/endpoints/acme.js';
import { agentReadEndpoints } from './cluster/endpoints/agent-reads.js';
import { clusterReadEndpoints } from './cluster/endpoints/cluster-reads.js';
import { clusterViewEndpoints } from './cluster/endpoints/cluster.js';
import { clusterIpsetEndpoints, guestIpsetEndpoints } from './cluster/endpoints/firewall-ipsets.js';
import { firewallEndpoints } from './cluster/endpoints/firewall.js';
import { firewallGroupEndpoints } from './cluster/endpoints/firewall-groups.js';
import { firewallSectionEndpoints } from './cluster/endpoints/firewall-sections.js';
import { guestConfigEndpoints } from './cluster/endpoints/guest-config.js';
import { guestDiskOpEndpoints } from './cluster/endpoints/guest-disk-ops.js';
import { guestLifecycleEndpoints } from './cluster/endpoints/guest-lifecycle.js';
import { guestPowerEndpoints } from './cluster/endpoints/guest-power.js';
import { guestReadEndpoints } from './cluster/endpoints/guest-reads.js';
import { guestEndpoints } from './cluster/endpoints/guests.js';
import { haRuleEndpoints } from './cluster/endpoints/ha-rules.js';
import { haEndpoints } from './cluster/endpoints/ha.js';
import { mappingEndpoints } from './cluster/endpoints/mappings.js';
import { migrateEndpoints } from './cluster/endpoints/migrate.js';
import { nodeDiskEndpoints } from './cluster/endpoints/node-disks.js';
import { nodeHardwareEndpoints } from './cluster/endpoints/node-hardware.js';
import { nodePackageEndpoints } from './cluster/endpoints/node-packages.js';
import { nodeReadEndpoints } from './cluster/endpoints/node-reads.js';
import { nodeSeriesEndpoints } from './cluster/endpoints/node-series.js';
import { nodeServiceEndpoints } from './cluster/endpoints/node-services.js';
import { nodeEndpoints } from './cluster/endpoints/nodes.js';
import { notificationEndpoints } from './cluster/endpoints/notifications.js';
import { outboundEndpoints } from './cluster/endpoints/outbound.js';
import { poolEndpoints } from './cluster/endpoints/pools.js';
import { pruneEndpoints } from './cluster/endpoints/prune.js';
import { sdnEndpoints } from './cluster/endpoints/sdn.js';
import { sdnNodeEndpoints } from './cluster/endpoints/sdn-node.js';
import { sdnPluginEndpoints } from './cluster/endpoints/sdn-plugins.js';
import { snapshotEndpoints } from './cluster/endpoints/snapshots.js';
import { storageEndpoints } from './cluster/endpoints/storage.js';
import { taskEndpoints } from './cluster/endpoints/tasks.js';
import { storageConfigEndpoints } from './cluster/endpoints/storage-config.js';
import { diskMoveEndpoints } from './cluster/endpoints/disk-move.js';
import { networkApplyEndpoints } from './cluster/endpoints/network-apply.js';
import { replicationEndpoints } from './cluster/endpoints/replication.js';
import type { ClusterState } from './cluster/state.js';
import type { GuestType } from './cluster/types.js';
import type { SimEndpoint } from './contract.js';

export type EndpointFamily =
  | { kind: 'cluster'; build: (state: ClusterState) => SimEndpoint[] }
  | { kind: 'guest'; build: (state: ClusterState, type: GuestType) => SimEndpoint[] }
  | { kind: 'access'; build: (env: AccessEndpointEnv) => SimEndpoint[] };

const cluster = (build: (state: ClusterState) => SimEndpoint[]): EndpointFamily => ({ kind: 'cluster', build });
const guest = (build: (state: ClusterState, type: GuestType) => SimEndpoint[]): EndpointFamily => ({ kind: 'guest', build });

export const FAMILIES: readonly EndpointFamily[] = [
  cluster(clusterViewEndpoints),
  cluster(nodeEndpoints),
  cluster(taskEndpoints),
  cluster(storageEndpoints),
  cluster(storageConfigEndpoints),
  cluster(networkApplyEndpoints),
  cluster(backupEndpoints),
  cluster(bulkEndpoints),
  cluster(nodeAllEndpoints),
  cluster(haEndpoints),
  cluster(haRuleEndpoints),
  cluster(poolEndpoints),
  cluster(pruneEndpoints),
  cluster(clusterIpsetEndpoints),
  guest(guestEndpoints),
  guest(guestLifecycleEndpoints),
  guest(guestDiskOpEndpoints),
  guest(guestConfigEndpoints),
  guest(guestPowerEndpoints),
  guest(snapshotEndpoints),
  guest(migrateEndpoints),
  guest(diskMoveEndpoints),
  guest(guestIpsetEndpoints),
  guest(guestReadEndpoints),
  cluster(agentEndpoints),
  cluster(agentReadEndpoints),
  cluster(cloudinitEndpoints),
  cluster(outboundEndpoints),
  cluster(firewallEndpoints),
  cluster(firewallGroupEndpoints),
  cluster(firewallSectionEndpoints),
  cluster(sdnEndpoints),
  cluster(sdnPluginEndpoints),
  cluster(sdnNodeEndpoints),
  cluster(nodeServiceEndpoints),
  cluster(nodeReadEndpoints),
  cluster(nodeSeriesEndpoints),
  cluster(nodeHardwareEndpoints),
  cluster(nodeDiskEndpoints),
  cluster(nodePackageEndpoints),
  cluster(clusterReadEndpoints),
  cluster(replicationEndpoints),
  cluster(notificationEndpoints),
  cluster(mappingEndpoints),
  cluster(acmeEndpoints),
  cluster(cephEndpoints),
  cluster(cephOsdEndpoints),
  { kind: 'access', build: accessLoginEndpoints },
  { kind: 'access', build: accessUserEndpoints },
  { kind: 'access', build: accessAclEndpoints },
  { kind: 'access', build: accessReadEndpoints },
];

/** The operations of the simulated cluster (cluster and guest families), bound to one state. */
export function clusterEndpoints(state: ClusterState): SimEndpoint[] {
  return FAMILIES.flatMap((f) => (f.kind === 'cluster' ? f.build(state) : f.kind === 'guest' ? [...f.build(state, 'qemu'), ...f.build(state, 'lxc')] : []));
}

/** The `/access` operations, bound to one access store and ticket authority. */
export function accessFamilyEndpoints(env: AccessEndpointEnv): SimEndpoint[] {
  return FAMILIES.flatMap((f) => (f.kind === 'access' ? f.build(env) : []));
}
