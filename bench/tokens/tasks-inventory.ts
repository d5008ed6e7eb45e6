/**
 * Inventory questions answered from one listing: the tasks where a tool-per-operation agent needs
 * a single call, so code mode's search/schema/script overhead is most visible.
 */
import { z } from 'zod';
import type { Guest } from '../../src/simulator/cluster/types.js';
import { checked, plausibleAsOf, sameIds, sameValue, type TokenTask } from './task.js';

const GiB = 1024 ** 3;
const DAY = 86_400;

const vmidList = z.array(z.looseObject({ vmid: z.number() }));

function vmids(list: Array<{ vmid: number }>): number[] {
  return list.map((g) => g.vmid);
}

function isTemplate(g: Guest): boolean {
  return Boolean(g.config.template);
}

export const bigRunningVms: TokenTask = {
  id: 'running VMs > 8 GiB',
  request: () => 'Which running VMs have more than 8 GiB of memory?',
  codeMode: () => ({
    searches: [{ query: 'list guests cluster wide', limit: 5 }],
    schemas: ['GET /cluster/resources'],
    script: `const guests = await pve.get('/cluster/resources', { type: 'vm' });
return guests
  .filter((g) => g.type === 'qemu' && g.status === 'running' && (g.maxmem ?? 0) > 8 * 1024 ** 3)
  .map((g) => ({ vmid: g.vmid, name: g.name, node: g.node, memGiB: (g.maxmem ?? 0) / 1024 ** 3 }));`,
  }),
  async toolPerOperation(api) {
    const guests: any[] = await api.call('GET', '/cluster/resources', { type: 'vm' });
    return guests.filter((g) => g.type === 'qemu' && g.status === 'running' && g.maxmem > 8 * GiB).map((g) => ({ vmid: g.vmid }));
  },
  expect: (truth) => (answer) => {
    const rt = truth.runtime().guests;
    const expected = truth.guests().filter((g) => g.type === 'qemu' && g.status === 'running' && (rt.get(g.vmid)?.maxmem ?? 0) > 8 * GiB);
    return checked(vmidList, answer, (list) => sameIds('VMs', vmids(list), vmids(expected)));
  },
};

export const topCpu: TokenTask = {
  id: 'top-5 guests by CPU',
  request: () => 'Which five guests use the most CPU right now?',
  codeMode: () => ({
    searches: [{ query: 'list guests cluster wide', limit: 5 }],
    schemas: ['GET /cluster/resources'],
    script: `const guests = await pve.get('/cluster/resources', { type: 'vm' });
return guests
  .filter((g) => g.status === 'running')
  .sort((a, b) => (b.cpu ?? 0) - (a.cpu ?? 0))
  .slice(0, 5)
  .map((g) => ({ vmid: g.vmid, name: g.name, node: g.node, cpu: g.cpu }));`,
  }),
  async toolPerOperation(api) {
    const guests: any[] = await api.call('GET', '/cluster/resources', { type: 'vm' });
    return guests
      .filter((g) => g.status === 'running')
      .sort((a, b) => b.cpu - a.cpu)
      .slice(0, 5)
      .map((g) => ({ vmid: g.vmid }));
  },
  expect: (truth) => (answer) => {
    const rt = truth.runtime().guests;
    const cpu = (vmid: number): number => rt.get(vmid)?.cpu ?? -1;
    const top = truth
      .guests()
      .filter((g) => g.status === 'running')
      .map((g) => cpu(g.vmid))
      .sort((a, b) => b - a)
      .slice(0, 5);
    // Compared by load, so guests tied at the cut-off may be either one.
    return checked(vmidList, answer, (list) =>
      sameValue(
        'CPU loads of the answer',
        list.map((g) => cpu(g.vmid)),
        top,
      ),
    );
  },
};

export const notBackedUp: TokenTask = {
  id: 'guests without backup job',
  request: () => 'Which guests are not covered by any backup job?',
  codeMode: () => ({
    searches: [{ query: 'guests not covered by a backup job', limit: 3 }],
    schemas: ['GET /cluster/backup-info/not-backed-up'],
    script: `const missing = await pve.get('/cluster/backup-info/not-backed-up');
return missing.map((g) => ({ vmid: g.vmid, name: g.name }));`,
  }),
  async toolPerOperation(api) {
    return api.call('GET', '/cluster/backup-info/not-backed-up');
  },
  expect: (truth) => (answer) => {
    const jobs = [...truth.state.backupJobs.values()];
    const covered = (g: Guest): boolean =>
      jobs.some((job) => {
        if (job.node !== undefined && job.node !== g.node) return false;
        const ids = (key: string): number[] =>
          String(job[key] ?? '')
            .split(/[,\s;]+/)
            .filter(Boolean)
            .map(Number);
        if (Number(job.all ?? 0) === 1) return !ids('exclude').includes(g.vmid);
        return ids('vmid').includes(g.vmid) || (job.pool !== undefined && job.pool === g.pool);
      });
    const expected = truth.guests().filter((g) => !isTemplate(g) && !covered(g));
    return checked(vmidList, answer, (list) => sameIds('guests', vmids(list), vmids(expected)));
  },
};

export const fullStorages: TokenTask = {
  id: 'storages over 80%',
  request: () => 'Which storages are more than 80% full?',
  codeMode: () => ({
    searches: [{ query: 'storage usage cluster wide', limit: 5 }],
    schemas: ['GET /cluster/resources'],
    script: `const stores = await pve.get('/cluster/resources', { type: 'storage' });
return stores
  .filter((s) => (s.maxdisk ?? 0) > 0 && (s.disk ?? 0) / (s.maxdisk ?? 1) > 0.8)
  .map((s) => ({ storage: s.storage, node: s.node, usedPct: Math.round(((s.disk ?? 0) / (s.maxdisk ?? 1)) * 1000) / 10 }));`,
  }),
  async toolPerOperation(api) {
    const stores: any[] = await api.call('GET', '/cluster/resources', { type: 'storage' });
    return stores.filter((s) => s.maxdisk > 0 && s.disk / s.maxdisk > 0.8).map((s) => ({ storage: s.storage, node: s.node }));
  },
  expect: (truth) => (answer) => {
    const used = truth.state.storageUsage();
    const expected: string[] = [];
    for (const node of truth.sim.cluster.nodeNames) {
      for (const s of truth.state.storages.values()) {
        if (s.disabled || (s.nodes && !s.nodes.includes(node))) continue;
        if ((used.get(s.shared ? s.storage : `${s.storage}/${node}`) ?? 0) / s.total > 0.8) expected.push(`${s.storage}@${node}`);
      }
    }
    const shape = z.array(z.looseObject({ storage: z.string(), node: z.string() }));
    return checked(shape, answer, (list) =>
      sameIds(
        'storages',
        list.map((s) => `${s.storage}@${s.node}`),
        expected,
      ),
    );
  },
};

export const failedTasks: TokenTask = {
  id: 'failed tasks, last 24 h',
  request: () => 'Which tasks failed in the last 24 hours, and why?',
  codeMode: () => ({
    searches: [{ query: 'recent tasks cluster', limit: 5 }],
    schemas: ['GET /cluster/tasks'],
    script: `const asOf = Math.floor(Date.now() / 1000);
const tasks = await pve.get('/cluster/tasks');
const failed = tasks.filter((t) => t.status && t.status !== 'OK' && !String(t.status).startsWith('WARNINGS') && t.starttime >= asOf - 86400);
return { asOf, failed: failed.map((t) => ({ upid: t.upid, type: t.type, id: t.id, node: t.node, error: t.status })) };`,
  }),
  async toolPerOperation(api) {
    const asOf = Math.floor(Date.now() / 1000);
    const tasks: any[] = await api.call('GET', '/cluster/tasks');
    const failed = tasks.filter((t) => t.status && t.status !== 'OK' && !String(t.status).startsWith('WARNINGS') && t.starttime >= asOf - DAY);
    return { asOf, failed: failed.map((t) => ({ upid: t.upid })) };
  },
  expect: (truth) => (answer) => {
    const shape = z.object({ asOf: z.number(), failed: z.array(z.looseObject({ upid: z.string() })) });
    return checked(shape, answer, ({ asOf, failed }) => {
      const expected = truth.sim.cluster.tasks().filter((t) => t.exitstatus !== undefined && t.exitstatus !== 'OK' && !t.exitstatus.startsWith('WARNINGS') && t.starttime >= asOf - DAY);
      return [
        ...plausibleAsOf(asOf, truth),
        ...sameIds(
          'failed tasks',
          failed.map((t) => t.upid),
          expected.map((t) => t.upid),
        ),
      ];
    });
  },
};

export const staleSnapshots: TokenTask = {
  id: 'snapshots older than 30 days',
  request: () => 'Which guests have snapshots older than 30 days?',
  codeMode: () => ({
    searches: [
      { query: 'list guests cluster wide', limit: 5 },
      { query: 'list snapshots', limit: 3 },
    ],
    schemas: ['GET /cluster/resources', 'GET /nodes/{node}/qemu/{vmid}/snapshot', 'GET /nodes/{node}/lxc/{vmid}/snapshot'],
    script: `const asOf = Math.floor(Date.now() / 1000);
const guests = await pve.get('/cluster/resources', { type: 'vm' });
const stale: any[] = [];
for (let i = 0; i < guests.length; i += 100) {
  const lists = await Promise.all(guests.slice(i, i + 100).map(async (g) => {
    const params = { node: g.node as string, vmid: g.vmid as number };
    const snaps = g.type === 'qemu'
      ? await pve.get('/nodes/{node}/qemu/{vmid}/snapshot', params)
      : await pve.get('/nodes/{node}/lxc/{vmid}/snapshot', params);
    const old = snaps.filter((s) => s.name !== 'current' && (s.snaptime ?? asOf) < asOf - 30 * 86400);
    return { vmid: g.vmid, name: g.name, snapshots: old.map((s) => ({ name: s.name, ageDays: Math.floor((asOf - (s.snaptime ?? asOf)) / 86400) })) };
  }));
  stale.push(...lists.filter((l) => l.snapshots.length > 0));
}
return { asOf, stale };`,
  }),
  async toolPerOperation(api) {
    const asOf = Math.floor(Date.now() / 1000);
    const guests: any[] = await api.call('GET', '/cluster/resources', { type: 'vm' });
    const stale = [];
    for (const g of guests) {
      const snaps: any[] = await api.call('GET', `/nodes/{node}/${g.type}/{vmid}/snapshot`, { node: g.node, vmid: g.vmid });
      const old = snaps.filter((s) => s.name !== 'current' && s.snaptime < asOf - 30 * DAY);
      if (old.length > 0) stale.push({ vmid: g.vmid, snapshots: old.map((s) => ({ name: s.name })) });
    }
    return { asOf, stale };
  },
  expect: (truth) => (answer) => {
    const shape = z.object({
      asOf: z.number(),
      stale: z.array(z.looseObject({ vmid: z.number(), snapshots: z.array(z.looseObject({ name: z.string() })) })),
    });
    return checked(shape, answer, ({ asOf, stale }) => {
      const expected = new Map<number, string[]>();
      for (const g of truth.guests()) {
        const old = g.snapshots.filter((s) => s.snaptime < asOf - 30 * DAY).map((s) => s.name);
        if (old.length > 0) expected.set(g.vmid, old);
      }
      const problems = [
        ...plausibleAsOf(asOf, truth),
        ...sameIds(
          'guests',
          stale.map((s) => s.vmid),
          expected.keys(),
        ),
      ];
      for (const s of stale) {
        const names = expected.get(s.vmid);
        if (names)
          problems.push(
            ...sameIds(
              `snapshots of ${s.vmid}`,
              s.snapshots.map((x) => x.name),
              names,
            ),
          );
      }
      return problems;
    });
  },
};
