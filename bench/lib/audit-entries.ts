/** The audit entries the benchmarks write: one change (its intent, then its `call` entry) as the bridge records a snapshot. */
export const WRITE = {
  runId: 'bench',
  phase: 'live',
  cluster: 'sim',
  method: 'POST',
  path: '/nodes/pve1/qemu/100/snapshot',
  template: '/nodes/{node}/qemu/{vmid}/snapshot',
  params: { snapname: 's1' },
  risk: 'write',
};
