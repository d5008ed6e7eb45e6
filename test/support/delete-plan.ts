/**
 * A one-write dry-run plan (delete guest 100+n on pve1, destructive, needing approval): what the
 * approval race tests store, approve and have processes race for, on files and on PostgreSQL.
 */
import { PlanRecorder, type Plan } from '../../src/safety/plan.js';

export function deletePlan(n: number): Plan {
  const rec = new PlanRecorder();
  rec.record({
    cluster: 'default',
    method: 'DELETE',
    path: `/nodes/pve1/qemu/${100 + n}`,
    template: '/nodes/{node}/qemu/{vmid}',
    params: {},
    fullParams: {},
    risk: 'destructive',
    needsApproval: true,
    targets: [{ vmid: 100 + n, exists: true, name: `vm${n}` }],
    returnsTask: true,
    node: 'pve1',
  });
  return rec.finish(`await pve.delete('/nodes/pve1/qemu/${100 + n}')`, 'operator');
}
