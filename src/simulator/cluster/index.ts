/** Public surface of the simulated cluster (state, presets, endpoints, task faults). */
export { createCluster, DEFAULT_TASK_DURATION_MS, type CreateClusterOptions, type SimCluster } from './cluster.js';
export { PRESET_NAMES, UnknownPresetError } from './presets.js';
export type { TaskFault, TaskRecord } from './tasks.js';
export type { Guest, GuestConfig, GuestType, SimNode, SimStorage, Snapshot } from './types.js';
