/**
 * Fault scenarios (`--scenario …`, `scenarios`, scenario files), each one seen over real HTTPS.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningSimulator, StartSimulatorOptions } from '../../src/simulator/index.js';
import { call, findGuest, login, startTestSimulator } from './helpers.js';

let sim: RunningSimulator | undefined;
async function start(opts: StartSimulatorOptions): Promise<RunningSimulator> {
  sim = await startTestSimulator({ rootPassword: 'pw', ...opts });
  return sim;
}
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function waitTask(s: RunningSimulator, node: string, upid: string): Promise<{ status: string; exitstatus?: string }> {
  for (let i = 0; i < 100; i++) {
    const r = await call(s, `/api2/json/nodes/${node}/tasks/${encodeURIComponent(upid)}/status`);
    expect(r.status).toBe(200);
    if (r.json.data.status === 'stopped') return r.json.data;
    await new Promise((res) => setTimeout(res, 20));
  }
  throw new Error(`task ${upid} did not end`);
}

describe('scenario offline-node', () => {
  it('answers 595 for the node and lists it offline in /cluster/resources beside the others', async () => {
    const s = await start({ scenarios: ['offline-node:pve2'] });
    const down = await call(s, '/api2/json/nodes/pve2/qemu');
    expect(down.status).toBe(595);
    expect(down.statusText).toBe('Connection refused');
    expect(down.text).toBe('');

    const res = await call(s, '/api2/json/cluster/resources?type=node');
    expect(res.status).toBe(200);
    const nodes = res.json.data as Array<{ node: string; status: string; maxcpu?: number }>;
    expect(nodes.map((n) => [n.node, n.status]).sort()).toEqual([
      ['pve1', 'online'],
      ['pve2', 'offline'],
      ['pve3', 'online'],
    ]);
    // An offline node has no load figures, as PVE reports it.
    expect(nodes.find((n) => n.node === 'pve2')?.maxcpu).toBeUndefined();
    const all = (await call(s, '/api2/json/cluster/resources')).json.data as Array<{ type: string; node?: string }>;
    expect(all.some((r) => r.type !== 'node' && r.node === 'pve3')).toBe(true);
    expect((await call(s, '/api2/json/nodes/pve3/qemu')).status).toBe(200);
    const listing = (await call(s, '/api2/json/nodes')).json.data as Array<{ node: string; status: string }>;
    expect(listing.find((n) => n.node === 'pve2')?.status).toBe('offline');
  });

  it('can time out instead of refusing', async () => {
    const s = await start({ scenarios: [{ kind: 'offline-node', node: 'pve3', mode: 'timeout', timeoutMs: 150 }] });
    const t0 = Date.now();
    const r = await call(s, '/api2/json/nodes/pve3/qemu');
    expect(r.status).toBe(595);
    expect(r.statusText).toBe('Connection timed out');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
  });
});

describe('scenario locked', () => {
  it('puts the lock into the config; changes and starts are refused with PVE lock text', async () => {
    const s = await start({});
    const vm = findGuest(s, (g) => g.type === 'qemu' && g.node === 'pve1' && g.status === 'stopped');
    await s.close();
    const l = await start({ scenarios: [`locked:${vm.vmid}:backup`] });
    const base = `/api2/json/nodes/pve1/qemu/${vm.vmid}`;
    const cfg = await call(l, `${base}/config`);
    expect(cfg.json.data.lock).toBe('backup');
    const put = await call(l, `${base}/config`, { method: 'PUT', body: { description: 'x' } });
    expect(put.status).toBe(500);
    expect(put.json.message).toBe('VM is locked (backup)\n');
    const startRes = await call(l, `${base}/status/start`, { method: 'POST' });
    expect(startRes.status).toBe(200);
    const task = await waitTask(l, 'pve1', startRes.json.data);
    expect(task.exitstatus).toBe('VM is locked (backup)');
  });
});

describe('scenario no-quorum', () => {
  it('refuses writes with PVE text, keeps reads and logins working, reports no quorum', async () => {
    const s = await start({ scenarios: ['no-quorum'] });
    const vm = findGuest(s, (g) => g.type === 'qemu' && g.node === 'pve1' && g.status === 'stopped');
    const r = await call(s, `/api2/json/nodes/pve1/qemu/${vm.vmid}/status/start`, { method: 'POST' });
    expect(r.status).toBe(500);
    expect(r.statusText).toBe('cluster not ready - no quorum?');
    expect(r.json).toEqual({ data: null, message: 'cluster not ready - no quorum?\n' });
    const put = await call(s, `/api2/json/nodes/pve1/qemu/${vm.vmid}/config`, { method: 'PUT', body: { description: 'x' } });
    expect(put.status).toBe(500);
    expect(s.cluster.guest(vm.vmid)?.config.description).not.toBe('x');

    expect((await call(s, `/api2/json/nodes/pve1/qemu/${vm.vmid}/config`)).status).toBe(200);
    const session = await login(s, 'root@pam', 'pw');
    expect(session.ticket).toMatch(/^PVE:root@pam:/);
    const status = (await call(s, '/api2/json/cluster/status')).json.data as Array<{ type: string; quorate?: number; online?: number; name: string }>;
    expect(status.find((e) => e.type === 'cluster')?.quorate).toBe(0);
    expect(status.filter((e) => e.type === 'node' && e.online === 1).map((e) => e.name)).toEqual(['pve1']);
    // Validation still comes first, as in PVE (the quorum check is in the handler).
    const invalid = await call(s, `/api2/json/nodes/pve1/qemu/${vm.vmid}/config`, { method: 'PUT', body: { cores: 'many' } });
    expect(invalid.status).toBe(400);
  });
});

describe('scenario slow', () => {
  it('delays every call', async () => {
    const s = await start({ scenarios: ['slow:200'] });
    const t0 = Date.now();
    expect((await call(s, '/api2/json/version')).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
  });
});

describe('scenario flaky', () => {
  it('fails that share of calls with an empty 595, the same calls for the same seed', async () => {
    const run = async () => {
      const s = await start({ scenarios: ['flaky:0.3'] });
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++) {
        const r = await call(s, '/api2/json/version');
        statuses.push(r.status);
        if (r.status === 595) {
          expect(r.statusText).toBe('Connection timed out');
          expect(r.text).toBe('');
        }
      }
      await s.close();
      sim = undefined;
      return statuses;
    };
    const first = await run();
    const failures = first.filter((x) => x === 595).length;
    expect(failures).toBeGreaterThan(3);
    expect(failures).toBeLessThan(25);
    expect(first.every((x) => x === 200 || x === 595)).toBe(true);
    expect(await run()).toEqual(first);
  });
});

describe('scenario failing-task', () => {
  it('ends backup tasks with an error', async () => {
    const s = await start({ scenarios: ['failing-task:vzdump'] });
    const vm = findGuest(s, (g) => g.type === 'qemu' && g.node === 'pve1');
    const r = await call(s, '/api2/json/nodes/pve1/vzdump', { method: 'POST', body: { vmid: String(vm.vmid), storage: 'local' } });
    expect(r.status).toBe(200);
    const task = await waitTask(s, 'pve1', r.json.data);
    expect(task.exitstatus).toBe('job errors');
    const log = (await call(s, `/api2/json/nodes/pve1/tasks/${encodeURIComponent(r.json.data)}/log`)).json.data as Array<{ t: string }>;
    expect(log.at(-1)?.t).toBe('TASK ERROR: job errors');
  });
});

describe('scenario full-storage', () => {
  it('reports the storage full and fails allocations on it as the backend does', async () => {
    const s = await start({ scenarios: ['full-storage:local-lvm', 'full-storage:local'] });
    const st = (await call(s, '/api2/json/nodes/pve1/storage/local-lvm/status')).json.data;
    expect(st.avail).toBe(0);
    expect(st.used).toBe(st.total);

    const alloc = await call(s, '/api2/json/nodes/pve1/storage/local-lvm/content', {
      method: 'POST',
      body: { vmid: '100', filename: 'vm-100-disk-9', size: '4G' },
    });
    expect(alloc.status).toBe(500);
    expect(alloc.json.message).toBe("lvcreate 'pve/vm-100-disk-9' error:   Cannot create new thin volume, free space in thin pool pve/data reached threshold.\n");

    const vm = findGuest(s, (g) => g.type === 'qemu' && g.node === 'pve1' && g.status === 'stopped');
    const before = s.cluster.guest(vm.vmid)?.config.scsi5;
    const put = await call(s, `/api2/json/nodes/pve1/qemu/${vm.vmid}/config`, { method: 'PUT', body: { scsi5: 'local-lvm:4' } });
    expect(put.status).toBe(500);
    expect(put.json.message).toMatch(/^lvcreate 'pve\/vm-\d+-disk-\d+' error: .*reached threshold\.\n$/);
    expect(s.cluster.guest(vm.vmid)?.config.scsi5).toBe(before);

    const dump = await call(s, '/api2/json/nodes/pve1/vzdump', { method: 'POST', body: { vmid: String(vm.vmid), storage: 'local' } });
    const task = await waitTask(s, 'pve1', dump.json.data);
    expect(task.exitstatus).toBe('job errors');
    const log = (await call(s, `/api2/json/nodes/pve1/tasks/${encodeURIComponent(dump.json.data)}/log`)).json.data as Array<{ t: string }>;
    expect(log.map((l) => l.t)).toContain(`ERROR: Backup of VM ${vm.vmid} failed - vma_queue_write: write error - No space left on device`);

    // Other storages still have room.
    const ok = await call(s, '/api2/json/nodes/pve1/storage/ceph/content', { method: 'POST', body: { vmid: '100', filename: 'vm-100-disk-9', size: '4G' } });
    expect(ok.status).toBe(200);
  });
});

describe('scenario file and errors', () => {
  it('reads a scenario file with text and object entries', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-scenarios-'));
    const file = join(dir, 'scenarios.json');
    writeFileSync(file, JSON.stringify({ description: 'maintenance night', scenarios: ['offline-node:pve3', { kind: 'slow', ms: [10, 20], path: '/nodes/**' }] }));
    const s = await start({ scenarioFile: file });
    expect(s.scenarios.map((x) => x.kind)).toEqual(['offline-node', 'slow']);
    expect((await call(s, '/api2/json/nodes/pve3/qemu')).status).toBe(595);
  });

  it('names the fix when a scenario does not fit', async () => {
    await expect(startTestSimulator({ scenarios: ['offline-node:pve9'] })).rejects.toThrow(/no node 'pve9'.*pve1, pve2, pve3/);
    await expect(startTestSimulator({ scenarios: ['offline-node:pve1'] })).rejects.toThrow(/answers as; take another node offline \(pve2, pve3\)/);
    await expect(startTestSimulator({ preset: 'small', scenarios: ['no-quorum'] })).rejects.toThrow(/stand-alone node, which always has quorum; use demo/);
    await expect(startTestSimulator({ scenarios: ['full-storage:tank'] })).rejects.toThrow(/no storage 'tank'.*local, local-lvm/);
    await expect(startTestSimulator({ scenarios: ['locked:100:frozen'] })).rejects.toThrow(/Invalid scenario 'locked:100:frozen'/);
    await expect(startTestSimulator({ scenarios: ['slow'] })).rejects.toThrow(/'slow' takes 1 argument/);
    await expect(startTestSimulator({ scenarios: [{ kind: 'flaky', rate: 2 }] })).rejects.toThrow(/Invalid scenario .*rate/);
    const dir = mkdtempSync(join(tmpdir(), 'sim-scenarios-'));
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ scenario: ['slow:10'] }));
    await expect(startTestSimulator({ scenarioFile: file })).rejects.toThrow(/does not match \{"description"\?: string, "scenarios"/);
  });
});
