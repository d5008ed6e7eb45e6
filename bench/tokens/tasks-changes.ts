/**
 * Tasks that change the cluster for real: a write per guest plus waiting for each task. The
 * tool-per-operation agent polls each task's status once (tasks finish at once in the benchmark's
 * simulator, so one poll is the ideal); code mode waits inside the script (`pve.waitTasks` for a
 * batch, which reports every task's outcome).
 */
import { z } from 'zod';
import { SNAPSHOT_NAME, SNAPSHOT_POOL, STOP_TAG, tagsOf } from './scenario.js';
import { checked, sameIds, type TokenTask } from './task.js';

export const snapshotPool: TokenTask = {
  id: 'snapshot a pool and wait',
  request: () => `Snapshot every running VM in the ${SNAPSHOT_POOL} pool as "${SNAPSHOT_NAME}", wait for each, and tell me which failed.`,
  codeMode: () => ({
    searches: [
      { query: 'guests in a pool', limit: 10 },
      { query: 'snapshot a vm', limit: 3 },
    ],
    schemas: ['GET /pools/{poolid}', 'POST /nodes/{node}/qemu/{vmid}/snapshot'],
    script: `const pool = await pve.get('/pools/{poolid}', { poolid: ${JSON.stringify(SNAPSHOT_POOL)} });
const vms = pool.members.filter((m) => m.type === 'qemu' && m.status === 'running');
const results = await pve.waitTasks(vms.map((vm) => pve.post('/nodes/{node}/qemu/{vmid}/snapshot', { node: vm.node as string, vmid: vm.vmid as number, snapname: ${JSON.stringify(SNAPSHOT_NAME)} })));
const ok: number[] = [];
const failed: Array<{ vmid: number; error?: string }> = [];
results.forEach((r, i) => (r.outcome === 'done' ? ok.push(vms[i].vmid as number) : failed.push({ vmid: vms[i].vmid as number, error: r.exitstatus ?? r.message })));
return { ok, failed };`,
  }),
  async toolPerOperation(api) {
    const pool = await api.call('GET', '/pools/{poolid}', { poolid: SNAPSHOT_POOL });
    const ok: number[] = [];
    const failed: Array<{ vmid: number }> = [];
    for (const vm of pool.members.filter((m: any) => m.type === 'qemu' && m.status === 'running')) {
      const upid = await api.call('POST', '/nodes/{node}/qemu/{vmid}/snapshot', { node: vm.node, vmid: vm.vmid, snapname: SNAPSHOT_NAME });
      const status = await api.call('GET', '/nodes/{node}/tasks/{upid}/status', { node: vm.node, upid });
      (status.exitstatus === 'OK' ? ok : failed).push(status.exitstatus === 'OK' ? vm.vmid : { vmid: vm.vmid });
    }
    return { ok, failed };
  },
  expect: (truth) => {
    const targets = truth
      .guests()
      .filter((g) => g.type === 'qemu' && g.pool === SNAPSHOT_POOL && g.status === 'running')
      .map((g) => g.vmid);
    const failing = truth.facts.failingSnapshotVmid;
    return (answer) => {
      const shape = z.object({ ok: z.array(z.number()), failed: z.array(z.looseObject({ vmid: z.number() })) });
      return checked(shape, answer, ({ ok, failed }) => {
        const taken = truth
          .guests()
          .filter((g) => g.snapshots.some((s) => s.name === SNAPSHOT_NAME))
          .map((g) => g.vmid);
        return [
          ...sameIds(
            'reported snapshotted',
            ok,
            targets.filter((v) => v !== failing),
          ),
          ...sameIds(
            'reported failed',
            failed.map((f) => f.vmid),
            [failing],
          ),
          ...sameIds(
            `guests holding "${SNAPSHOT_NAME}" in the cluster`,
            taken,
            targets.filter((v) => v !== failing),
          ),
        ];
      });
    };
  },
};

export const stopTagged: TokenTask = {
  id: `stop guests tagged ${STOP_TAG}`,
  request: () => `Stop every guest tagged "${STOP_TAG}" and wait until they are down.`,
  codeMode: () => ({
    searches: [
      { query: 'list guests cluster wide', limit: 5 },
      { query: 'stop a vm', limit: 3 },
    ],
    schemas: ['GET /cluster/resources', 'POST /nodes/{node}/qemu/{vmid}/status/stop', 'POST /nodes/{node}/lxc/{vmid}/status/stop'],
    script: `const guests = (await pve.get('/cluster/resources', { type: 'vm' })).filter((g) => g.status === 'running' && (g.tags ?? '').split(';').includes(${JSON.stringify(STOP_TAG)}));
const stopped: any[] = [];
for (const g of guests) {
  const params = { node: g.node as string, vmid: g.vmid as number };
  const upid = g.type === 'qemu' ? await pve.post('/nodes/{node}/qemu/{vmid}/status/stop', params) : await pve.post('/nodes/{node}/lxc/{vmid}/status/stop', params);
  const task = await pve.waitTask(upid);
  stopped.push({ vmid: g.vmid, ok: task.ok });
}
return stopped;`,
  }),
  async toolPerOperation(api) {
    const guests: any[] = await api.call('GET', '/cluster/resources', { type: 'vm' });
    const stopped = [];
    for (const g of guests.filter(
      (x) =>
        x.status === 'running' &&
        String(x.tags ?? '')
          .split(';')
          .includes(STOP_TAG),
    )) {
      const upid = await api.call('POST', `/nodes/{node}/${g.type}/{vmid}/status/stop`, { node: g.node, vmid: g.vmid });
      const status = await api.call('GET', '/nodes/{node}/tasks/{upid}/status', { node: g.node, upid });
      stopped.push({ vmid: g.vmid, ok: status.exitstatus === 'OK' });
    }
    return stopped;
  },
  expect: (truth) => {
    const targets = truth
      .guests()
      .filter((g) => g.status === 'running' && tagsOf(g).includes(STOP_TAG))
      .map((g) => g.vmid);
    return (answer) => {
      const shape = z.array(z.looseObject({ vmid: z.number(), ok: z.literal(true) }));
      return checked(shape, answer, (list) => {
        const stillRunning = targets.filter((v) => truth.sim.cluster.guest(v)?.status !== 'stopped');
        return [
          ...sameIds(
            'reported stopped',
            list.map((g) => g.vmid),
            targets,
          ),
          ...(stillRunning.length > 0 ? [`still running in the cluster: ${stillRunning.join(', ')}`] : []),
        ];
      });
    };
  },
};
