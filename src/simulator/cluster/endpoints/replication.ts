/**
 * Storage replication jobs (PVE's replication.cfg). The simulator holds their definitions and
 * never runs them: replication copies ZFS snapshots, and no simulated storage really is ZFS. A
 * cluster of more than one node starts with one job, for its first database VM (the guests the
 * HA manager already protects), so that what destroying that guest takes with it can be seen.
 * PVE removes a guest's jobs when the guest is destroyed: a job whose guest is gone is dropped
 * when the jobs are read.
 */
import type { SimEndpoint } from '../../contract.js';
import { fail, permissionDenied } from '../errors.js';
import type { ClusterState } from '../state.js';
import { reqStr } from './params.js';
import { LIST, OBJ, P, str } from './schema.js';

interface ReplicationJob {
  id: string;
  type: 'local';
  guest: number;
  jobnum: number;
  target: string;
  source: string;
  schedule: string;
  comment?: string;
}

function replicationJobs(state: ClusterState): Map<string, ReplicationJob> {
  const jobs = state.area('replication', () => {
    const out = new Map<string, ReplicationJob>();
    const db = state
      .allGuests()
      .filter(
        (g) =>
          g.type === 'qemu' &&
          String(g.config.tags ?? '')
            .split(';')
            .includes('db'),
      )
      .sort((a, b) => a.vmid - b.vmid)[0];
    const target = db ? [...state.nodes.keys()].sort().find((n) => n !== db.node) : undefined;
    if (db && target) out.set(`${db.vmid}-0`, { id: `${db.vmid}-0`, type: 'local', guest: db.vmid, jobnum: 0, target, source: db.node, schedule: '*/15', comment: 'database copy on a second node' });
    return out;
  });
  for (const [id, job] of jobs) if (!state.guests.has(job.guest)) jobs.delete(id);
  // A migrated guest replicates from its new node (PVE swaps source and target when it moves there).
  for (const job of jobs.values()) job.source = state.guests.get(job.guest)?.node ?? job.source;
  return jobs;
}

export function replicationEndpoints(state: ClusterState): SimEndpoint[] {
  return [
    {
      method: 'GET',
      path: '/cluster/replication',
      description: 'Storage replication jobs (held, never run: no simulated storage is ZFS).',
      parameters: {},
      returns: LIST,
      permissions: { user: 'all' },
      // As on PVE, each job is listed only to those who may audit its guest.
      handler: (ctx) => [...replicationJobs(state).values()].filter((j) => ctx.hasPriv(`/vms/${j.guest}`, 'VM.Audit')).map((j) => ({ ...j })),
    },
    {
      method: 'GET',
      path: '/cluster/replication/{id}',
      description: 'One storage replication job.',
      parameters: { id: str('Replication job ID: <guest>-<job number>.', { format: 'pve-replication-job-id', pattern: '[1-9][0-9]{2,8}-\\d{1,9}' }) },
      returns: OBJ,
      permissions: { user: 'all' },
      handler: (ctx) => {
        const job = replicationJobs(state).get(reqStr(ctx, 'id'));
        if (!job) throw fail(`replication job '${reqStr(ctx, 'id')}' does not exist`);
        if (!ctx.hasPriv(`/vms/${job.guest}`, 'VM.Audit')) throw permissionDenied(`/vms/${job.guest}`, 'VM.Audit');
        return { ...job };
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/replication',
      description: 'Replication jobs of the guests on a node, with when each last ran (never, here).',
      parameters: { node: P.node },
      returns: LIST,
      permissions: { user: 'all' },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const node = state.node(reqStr(ctx, 'node')).name;
        return [...replicationJobs(state).values()].filter((j) => j.source === node && ctx.hasPriv(`/vms/${j.guest}`, 'VM.Audit')).map((j) => ({ ...j, vmtype: 'qemu', last_sync: 0, fail_count: 0 }));
      },
    },
  ];
}
