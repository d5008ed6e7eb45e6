/**
 * The operator tasks in the order they run. Reads come first; the writes (snapshot, stop) follow
 * and change the cluster; the failed-task report comes last because the snapshot run leaves one
 * failed task behind for it to find.
 */
import { snapshotPool, stopTagged } from './tasks-changes.js';
import { configDrift, evacuationPlan, findByIp, missingBackups, overcommit, stoppedOnboot } from './tasks-fleet.js';
import { bigRunningVms, failedTasks, fullStorages, notBackedUp, staleSnapshots, topCpu } from './tasks-inventory.js';
import type { TokenTask } from './task.js';

export const TOKEN_TASKS: readonly TokenTask[] = [
  bigRunningVms,
  topCpu,
  notBackedUp,
  fullStorages,
  overcommit,
  findByIp,
  configDrift,
  evacuationPlan,
  stoppedOnboot,
  staleSnapshots,
  missingBackups,
  snapshotPool,
  stopTagged,
  failedTasks,
];
