/**
 * Questions that need a listing plus per-guest or per-node detail: a tool-per-operation agent
 * makes one call per guest it inspects, code mode still one script.
 */
import { z } from 'zod';
import { BACKUP_STORAGE, tagsOf, WEB_BASELINE } from './scenario.js';
import { checked, plausibleAsOf, sameIds, type TokenTask } from './task.js';

const GiB = 1024 ** 3;
const HOUR = 3_600;

const vmidList = z.array(z.looseObject({ vmid: z.number() }));

export const overcommit: TokenTask = {
  id: 'allocation per node',
  request: () => 'How many vCPUs and how much memory have the running guests of each node been given, against what the node has?',
  codeMode: () => ({
    searches: [
      { query: 'list guests cluster wide', limit: 5 },
      { query: 'node list', limit: 3 },
    ],
    schemas: ['GET /cluster/resources', 'GET /nodes'],
    script: `const [nodes, guests] = await Promise.all([pve.get('/nodes'), pve.get('/cluster/resources', { type: 'vm' })]);
return nodes.map((n) => {
  const running = guests.filter((g) => g.node === n.node && g.status === 'running');
  const vcpus = running.reduce((sum, g) => sum + (g.maxcpu ?? 0), 0);
  const mem = running.reduce((sum, g) => sum + (g.maxmem ?? 0), 0);
  return { node: n.node, vcpus, cpus: n.maxcpu, memGiB: Math.round(mem / 1024 ** 3), nodeMemGiB: Math.round((n.maxmem ?? 0) / 1024 ** 3) };
});`,
  }),
  async toolPerOperation(api) {
    const nodes: any[] = await api.call('GET', '/nodes');
    const guests: any[] = await api.call('GET', '/cluster/resources', { type: 'vm' });
    return nodes.map((n) => {
      const running = guests.filter((g) => g.node === n.node && g.status === 'running');
      return {
        node: n.node,
        vcpus: running.reduce((sum, g) => sum + g.maxcpu, 0),
        memGiB: Math.round(running.reduce((sum, g) => sum + g.maxmem, 0) / GiB),
      };
    });
  },
  expect: (truth) => (answer) => {
    const rt = truth.runtime().guests;
    const shape = z.array(z.looseObject({ node: z.string(), vcpus: z.number(), memGiB: z.number() }));
    return checked(shape, answer, (rows) => {
      const problems = sameIds(
        'nodes',
        rows.map((r) => r.node),
        truth.sim.cluster.nodeNames,
      );
      for (const row of rows) {
        const running = truth.guests().filter((g) => g.node === row.node && g.status === 'running');
        const vcpus = running.reduce((sum, g) => sum + (rt.get(g.vmid)?.cpus ?? 0), 0);
        const memGiB = running.reduce((sum, g) => sum + (rt.get(g.vmid)?.maxmem ?? 0), 0) / GiB;
        if (row.vcpus !== vcpus) problems.push(`${row.node}: ${row.vcpus} vCPUs, expected ${vcpus}`);
        if (Math.abs(row.memGiB - memGiB) > 0.5) problems.push(`${row.node}: ${row.memGiB} GiB, expected ${memGiB.toFixed(1)}`);
      }
      return problems;
    });
  },
};

export const findByIp: TokenTask = {
  id: 'find a guest by IP',
  request: (facts) => `Which guest has the IP address ${facts.targetIp}?`,
  codeMode: (facts) => ({
    searches: [
      { query: 'list guests cluster wide', limit: 5 },
      { query: 'vm ip address', limit: 3 },
    ],
    schemas: ['GET /cluster/resources', 'GET /nodes/{node}/qemu/{vmid}/agent/network-get-interfaces', 'GET /nodes/{node}/lxc/{vmid}/interfaces'],
    script: `const ip = ${JSON.stringify(facts.targetIp)};
const guests = (await pve.get('/cluster/resources', { type: 'vm' })).filter((g) => g.status === 'running');
for (const g of guests) {
  const params = { node: g.node as string, vmid: g.vmid as number };
  const ifaces = g.type === 'qemu'
    ? (await pve.get('/nodes/{node}/qemu/{vmid}/agent/network-get-interfaces', params)).result
    : await pve.get('/nodes/{node}/lxc/{vmid}/interfaces', params);
  if (ifaces.some((i: any) => (i['ip-addresses'] ?? []).some((a: any) => a['ip-address'] === ip))) {
    return { vmid: g.vmid, name: g.name, node: g.node, type: g.type };
  }
}
return null;`,
  }),
  async toolPerOperation(api, facts) {
    const guests: any[] = await api.call('GET', '/cluster/resources', { type: 'vm' });
    for (const g of guests.filter((x) => x.status === 'running')) {
      const params = { node: g.node, vmid: g.vmid };
      const ifaces: any[] =
        g.type === 'qemu' ? (await api.call('GET', '/nodes/{node}/qemu/{vmid}/agent/network-get-interfaces', params)).result : await api.call('GET', '/nodes/{node}/lxc/{vmid}/interfaces', params);
      if (ifaces.some((i) => (i['ip-addresses'] ?? []).some((a: any) => a['ip-address'] === facts.targetIp))) return { vmid: g.vmid };
    }
    return null;
  },
  expect: (truth) => (answer) =>
    checked(z.looseObject({ vmid: z.number() }), answer, (found) => (found.vmid === truth.facts.targetVmid ? [] : [`found VMID ${found.vmid}, the address belongs to ${truth.facts.targetVmid}`])),
};

export const configDrift: TokenTask = {
  id: 'config drift from baseline',
  request: () => `Which web VMs (tag "web") differ from our baseline ${JSON.stringify(WEB_BASELINE)} with the firewall on net0, and in what?`,
  codeMode: () => ({
    searches: [
      { query: 'list guests cluster wide', limit: 5 },
      { query: 'vm config', limit: 3 },
    ],
    schemas: ['GET /cluster/resources', 'GET /nodes/{node}/qemu/{vmid}/config'],
    script: `const baseline: Record<string, string> = ${JSON.stringify(WEB_BASELINE)};
const web = (await pve.get('/cluster/resources', { type: 'vm' })).filter((g) => g.type === 'qemu' && (g.tags ?? '').split(';').includes('web'));
const drifted: any[] = [];
for (const g of web) {
  const cfg = await pve.get('/nodes/{node}/qemu/{vmid}/config', { node: g.node as string, vmid: g.vmid as number });
  const diffs = Object.keys(baseline).filter((k) => String(cfg[k] ?? '') !== baseline[k]);
  if (!/firewall=1/.test(String(cfg.net0 ?? ''))) diffs.push('net0.firewall');
  if (diffs.length > 0) drifted.push({ vmid: g.vmid, name: g.name, diffs });
}
return drifted;`,
  }),
  async toolPerOperation(api) {
    const guests: any[] = await api.call('GET', '/cluster/resources', { type: 'vm' });
    const drifted = [];
    for (const g of guests.filter(
      (x) =>
        x.type === 'qemu' &&
        String(x.tags ?? '')
          .split(';')
          .includes('web'),
    )) {
      const cfg = await api.call('GET', '/nodes/{node}/qemu/{vmid}/config', { node: g.node, vmid: g.vmid });
      const diffs = Object.keys(WEB_BASELINE).filter((k) => String(cfg[k] ?? '') !== WEB_BASELINE[k]);
      if (!/firewall=1/.test(String(cfg.net0 ?? ''))) diffs.push('net0.firewall');
      if (diffs.length > 0) drifted.push({ vmid: g.vmid, diffs });
    }
    return drifted;
  },
  expect: (truth) => (answer) => {
    const expected = new Map<number, string[]>();
    for (const g of truth.guests()) {
      if (g.type !== 'qemu' || !tagsOf(g).includes('web')) continue;
      const diffs = Object.entries(WEB_BASELINE)
        .filter(([k, v]) => String(g.config[k] ?? '') !== v)
        .map(([k]) => k);
      if (
        !String(g.config.net0 ?? '')
          .split(',')
          .includes('firewall=1')
      )
        diffs.push('net0.firewall');
      if (diffs.length > 0) expected.set(g.vmid, diffs);
    }
    const shape = z.array(z.looseObject({ vmid: z.number(), diffs: z.array(z.string()) }));
    return checked(shape, answer, (rows) => [
      ...sameIds(
        'drifted VMs',
        rows.map((r) => r.vmid),
        expected.keys(),
      ),
      ...rows.flatMap((r) => sameIds(`differences of ${r.vmid}`, r.diffs, expected.get(r.vmid) ?? [])),
    ]);
  },
};

export const evacuationPlan: TokenTask = {
  id: 'evacuation plan for a node',
  request: (facts) => `Plan how to move the running guests off ${facts.evacuateNode} for maintenance: largest memory first, each to the node that ends up least loaded by memory.`,
  codeMode: (facts) => ({
    searches: [
      { query: 'node list', limit: 3 },
      { query: 'list vms and containers on a node', limit: 5 },
    ],
    schemas: ['GET /nodes', 'GET /nodes/{node}/qemu', 'GET /nodes/{node}/lxc'],
    script: `const source = ${JSON.stringify(facts.evacuateNode)};
const targets = (await pve.get('/nodes')).filter((n) => n.node !== source && n.status === 'online');
const [vms, cts] = await Promise.all([pve.get('/nodes/{node}/qemu', { node: source }), pve.get('/nodes/{node}/lxc', { node: source })]);
const guests = [...vms.map((g) => ({ vmid: g.vmid, mem: g.mem ?? 0, status: g.status, type: 'qemu' })), ...cts.map((g) => ({ vmid: g.vmid, mem: g.mem ?? 0, status: g.status, type: 'lxc' }))]
  .filter((g) => g.status === 'running')
  .sort((a, b) => b.mem - a.mem);
const load = new Map(targets.map((n) => [n.node, n.mem ?? 0]));
const share = (node: string, max: number, extra: number) => ((load.get(node) ?? 0) + extra) / max;
const plan = guests.map((g) => {
  const best = targets.reduce((a, b) => (share(b.node, b.maxmem ?? 1, g.mem) < share(a.node, a.maxmem ?? 1, g.mem) ? b : a));
  load.set(best.node, (load.get(best.node) ?? 0) + g.mem);
  return { vmid: g.vmid, type: g.type, target: best.node };
});
return { plan, memUsePct: Object.fromEntries(targets.map((n) => [n.node, Math.round(share(n.node, n.maxmem ?? 1, 0) * 100)])) };`,
  }),
  async toolPerOperation(api, facts) {
    const nodes: any[] = await api.call('GET', '/nodes');
    const vms: any[] = await api.call('GET', '/nodes/{node}/qemu', { node: facts.evacuateNode });
    const cts: any[] = await api.call('GET', '/nodes/{node}/lxc', { node: facts.evacuateNode });
    const targets = nodes.filter((n) => n.node !== facts.evacuateNode && n.status === 'online');
    const load = new Map<string, number>(targets.map((n) => [n.node, n.mem]));
    const share = (n: any, extra: number): number => ((load.get(n.node) ?? 0) + extra) / n.maxmem;
    const guests = [...vms, ...cts].filter((g) => g.status === 'running').sort((a, b) => b.mem - a.mem);
    const plan = guests.map((g) => {
      const best = targets.reduce((a, b) => (share(b, g.mem) < share(a, g.mem) ? b : a));
      load.set(best.node, (load.get(best.node) ?? 0) + g.mem);
      return { vmid: g.vmid, target: best.node };
    });
    return { plan };
  },
  expect: (truth) => (answer) => {
    const source = truth.facts.evacuateNode;
    const runtime = truth.runtime();
    const shape = z.looseObject({ plan: z.array(z.looseObject({ vmid: z.number(), target: z.string() })) });
    return checked(shape, answer, ({ plan }) => {
      const running = truth.guests().filter((g) => g.node === source && g.status === 'running');
      const problems = sameIds(
        'guests in the plan',
        plan.map((p) => p.vmid),
        running.map((g) => g.vmid),
      );
      const targets = truth.sim.cluster.nodeNames.filter((n) => n !== source && truth.state.node(n).online);
      const load = new Map(targets.map((n) => [n, runtime.nodes.get(n)?.mem ?? 0]));
      const share = (node: string, extra: number): number => ((load.get(node) ?? 0) + extra) / truth.state.node(node).maxmem;
      let previous = Infinity;
      for (const step of plan) {
        const mem = runtime.guests.get(step.vmid)?.mem ?? 0;
        if (mem > previous) problems.push(`VMID ${step.vmid} is placed after a guest with less memory`);
        previous = mem;
        if (!load.has(step.target)) {
          problems.push(`VMID ${step.vmid} goes to ${step.target}, which is not an online node other than ${source}`);
          continue;
        }
        const best = Math.min(...targets.map((n) => share(n, mem)));
        if (share(step.target, mem) > best + 1e-12) problems.push(`VMID ${step.vmid} goes to ${step.target}, not the least loaded node`);
        load.set(step.target, (load.get(step.target) ?? 0) + mem);
      }
      return problems;
    });
  },
};

export const stoppedOnboot: TokenTask = {
  id: 'stopped but start-at-boot',
  request: () => 'Which guests are set to start at boot but are stopped right now?',
  codeMode: () => ({
    searches: [
      { query: 'list guests cluster wide', limit: 5 },
      { query: 'vm config', limit: 3 },
      { query: 'container config', limit: 3 },
    ],
    schemas: ['GET /cluster/resources', 'GET /nodes/{node}/qemu/{vmid}/config', 'GET /nodes/{node}/lxc/{vmid}/config'],
    script: `const stopped = (await pve.get('/cluster/resources', { type: 'vm' })).filter((g) => g.status === 'stopped' && !g.template);
const found: any[] = [];
for (const g of stopped) {
  const params = { node: g.node as string, vmid: g.vmid as number };
  const cfg = g.type === 'qemu' ? await pve.get('/nodes/{node}/qemu/{vmid}/config', params) : await pve.get('/nodes/{node}/lxc/{vmid}/config', params);
  if (Number(cfg.onboot ?? 0) === 1) found.push({ vmid: g.vmid, name: g.name, node: g.node });
}
return found;`,
  }),
  async toolPerOperation(api) {
    const guests: any[] = await api.call('GET', '/cluster/resources', { type: 'vm' });
    const found = [];
    for (const g of guests.filter((x) => x.status === 'stopped' && !x.template)) {
      const cfg = await api.call('GET', `/nodes/{node}/${g.type}/{vmid}/config`, { node: g.node, vmid: g.vmid });
      if (Number(cfg.onboot ?? 0) === 1) found.push({ vmid: g.vmid });
    }
    return found;
  },
  expect: (truth) => (answer) => {
    const expected = truth.guests().filter((g) => g.status === 'stopped' && !g.config.template && Number(g.config.onboot ?? 0) === 1);
    return checked(vmidList, answer, (list) =>
      sameIds(
        'guests',
        list.map((g) => g.vmid),
        expected.map((g) => g.vmid),
      ),
    );
  },
};

export const missingBackups: TokenTask = {
  id: 'production without recent backup',
  request: () => `Which guests of the production pool have no backup on ${BACKUP_STORAGE} from the last 48 hours?`,
  codeMode: () => ({
    searches: [
      { query: 'guests in a pool', limit: 10 },
      { query: 'backup files on storage', limit: 3 },
    ],
    schemas: ['GET /pools/{poolid}', 'GET /nodes/{node}/storage/{storage}/content'],
    script: `const asOf = Math.floor(Date.now() / 1000);
const pool = await pve.get('/pools/{poolid}', { poolid: 'production' });
const guests = pool.members.filter((m) => m.type === 'qemu' || m.type === 'lxc');
const backups = await pve.get('/nodes/{node}/storage/{storage}/content', { node: guests[0].node, storage: ${JSON.stringify(BACKUP_STORAGE)}, content: 'backup' });
const newest = new Map<number, number>();
for (const b of backups) if (b.vmid !== undefined) newest.set(b.vmid, Math.max(newest.get(b.vmid) ?? 0, b.ctime ?? 0));
const missing = guests.filter((g) => (newest.get(g.vmid as number) ?? 0) < asOf - 48 * 3600);
return { asOf, missing: missing.map((g) => ({ vmid: g.vmid, name: g.name, lastBackup: newest.get(g.vmid as number) ?? null })) };`,
  }),
  async toolPerOperation(api) {
    const asOf = Math.floor(Date.now() / 1000);
    const pool = await api.call('GET', '/pools/{poolid}', { poolid: 'production' });
    const guests: any[] = pool.members.filter((m: any) => m.type === 'qemu' || m.type === 'lxc');
    const backups: any[] = await api.call('GET', '/nodes/{node}/storage/{storage}/content', {
      node: guests[0].node,
      storage: BACKUP_STORAGE,
      content: 'backup',
    });
    const newest = new Map<number, number>();
    for (const b of backups) if (b.vmid !== undefined) newest.set(b.vmid, Math.max(newest.get(b.vmid) ?? 0, b.ctime));
    return { asOf, missing: guests.filter((g) => (newest.get(g.vmid) ?? 0) < asOf - 48 * HOUR).map((g) => ({ vmid: g.vmid })) };
  },
  expect: (truth) => (answer) => {
    const shape = z.object({ asOf: z.number(), missing: vmidList });
    return checked(shape, answer, ({ asOf, missing }) => {
      const newest = new Map<number, number>();
      for (const v of truth.state.volumes) {
        if (v.content === 'backup' && v.storage === BACKUP_STORAGE && v.vmid !== undefined) newest.set(v.vmid, Math.max(newest.get(v.vmid) ?? 0, v.ctime));
      }
      const expected = truth.guests().filter((g) => g.pool === 'production' && (newest.get(g.vmid) ?? 0) < asOf - 48 * HOUR);
      return [
        ...plausibleAsOf(asOf, truth),
        ...sameIds(
          'guests',
          missing.map((g) => g.vmid),
          expected.map((g) => g.vmid),
        ),
      ];
    });
  },
};
