import { describe, expect, it } from 'vitest';
import { createCluster, type SimCluster } from '../../../src/simulator/cluster/index.js';
import { callEndpoint, fakeClock } from '../direct.js';

function setup() {
  const clock = fakeClock();
  const cluster = createCluster({ preset: 'demo', clock, taskDurationMs: 1000 });
  const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, params: Record<string, unknown> = {}, authId?: string) =>
    (await callEndpoint(cluster, method, path, params, authId ? { authId } : {})).data;
  return { clock, cluster, call };
}

const pick = (c: SimCluster, type: 'qemu' | 'lxc', status: 'running' | 'stopped') => {
  const g = c.guests().find((x) => x.type === type && x.status === status && !x.config.template && !c.state.haResources.has(`${type === 'qemu' ? 'vm' : 'ct'}:${x.vmid}`));
  if (!g) throw new Error(`demo has no ${status} ${type}`);
  return g;
};

describe('power operations', () => {
  it('start: UPID now, running after the task, consistent across list, status and cluster resources', async () => {
    const { clock, cluster, call } = setup();
    const g = pick(cluster, 'qemu', 'stopped');
    const p = { node: g.node, vmid: g.vmid };
    const upid = (await call('POST', '/nodes/{node}/qemu/{vmid}/status/start', p)) as string;
    expect(upid).toMatch(new RegExp(`^UPID:${g.node}:[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{8}:qmstart:${g.vmid}:root@pam:$`));
    expect(((await call('GET', '/nodes/{node}/qemu/{vmid}/status/current', p)) as { status: string }).status).toBe('stopped');
    clock.advance(1000);
    const status = (await call('GET', '/nodes/{node}/qemu/{vmid}/status/current', p)) as Record<string, unknown>;
    expect(status).toMatchObject({ status: 'running', qmpstatus: 'running', uptime: 0 });
    expect(status.pid).toBeGreaterThan(0);
    const listed = ((await call('GET', '/nodes/{node}/qemu', { node: g.node })) as Array<Record<string, unknown>>).find((x) => x.vmid === g.vmid);
    const resource = ((await call('GET', '/cluster/resources', { type: 'vm' })) as Array<Record<string, unknown>>).find((x) => x.id === `qemu/${g.vmid}`);
    expect(listed?.status).toBe('running');
    expect(resource?.status).toBe('running');
    expect(resource?.mem).toBe(status.mem);
    clock.advance(5000);
    const later = (await call('GET', '/nodes/{node}/qemu/{vmid}/status/current', p)) as Record<string, number>;
    expect(later.uptime).toBe(5);
    expect(later.netin).toBeGreaterThan(Number(status.netin));
  });

  it('starting a running VM still returns a UPID; the task fails with "already running"', async () => {
    const { clock, cluster, call } = setup();
    const g = pick(cluster, 'qemu', 'running');
    const upid = (await call('POST', '/nodes/{node}/qemu/{vmid}/status/start', { node: g.node, vmid: g.vmid })) as string;
    clock.advance(1000);
    const st = (await call('GET', '/nodes/{node}/tasks/{upid}/status', { node: g.node, upid })) as Record<string, unknown>;
    expect(st).toMatchObject({ status: 'stopped', exitstatus: `VM ${g.vmid} already running`, type: 'qmstart', id: String(g.vmid) });
    expect(st).not.toHaveProperty('endtime');
  });

  it('container checks that PVE makes before forking answer with a 500', async () => {
    const { cluster, call } = setup();
    const ct = pick(cluster, 'lxc', 'running');
    await expect(call('POST', '/nodes/{node}/lxc/{vmid}/status/start', { node: ct.node, vmid: ct.vmid })).rejects.toMatchObject({ status: 500, message: `CT ${ct.vmid} already running\n` });
    const off = pick(cluster, 'lxc', 'stopped');
    await expect(call('POST', '/nodes/{node}/lxc/{vmid}/status/shutdown', { node: off.node, vmid: off.vmid })).rejects.toMatchObject({ message: `CT ${off.vmid} not running\n` });
  });

  it('suspend pauses (qmpstatus paused, status running); shutdown of a paused VM is refused; resume continues', async () => {
    const { clock, cluster, call } = setup();
    const g = pick(cluster, 'qemu', 'running');
    const p = { node: g.node, vmid: g.vmid };
    const upid = (await call('POST', '/nodes/{node}/qemu/{vmid}/status/suspend', p)) as string;
    expect(upid).toContain(':qmpause:');
    clock.advance(1000);
    expect(await call('GET', '/nodes/{node}/qemu/{vmid}/status/current', p)).toMatchObject({ status: 'running', qmpstatus: 'paused', cpu: 0 });
    await expect(call('POST', '/nodes/{node}/qemu/{vmid}/status/shutdown', p)).rejects.toMatchObject({ message: 'VM is paused - cannot shutdown\n' });
    await call('POST', '/nodes/{node}/qemu/{vmid}/status/resume', p);
    clock.advance(1000);
    expect(await call('GET', '/nodes/{node}/qemu/{vmid}/status/current', p)).toMatchObject({ qmpstatus: 'running' });
  });

  it('HA-managed guests go through HA tasks', async () => {
    const { clock, cluster, call } = setup();
    const sid = [...cluster.state.haResources.keys()][0] as string;
    const g = cluster.guest(Number(sid.split(':')[1]));
    if (!g) throw new Error('demo HA resource without guest');
    const action = g.status === 'running' ? 'stop' : 'start';
    const upid = (await call('POST', `/nodes/{node}/qemu/{vmid}/status/${action}`, { node: g.node, vmid: g.vmid })) as string;
    expect(upid).toContain(action === 'stop' ? ':hastop:' : ':hastart:');
    clock.advance(1000);
    const log = (await callEndpoint(cluster, 'GET', '/nodes/{node}/tasks/{upid}/log', { node: g.node, upid })).data as Array<{ t: string }>;
    expect(log[0]?.t).toBe(`Requesting HA ${action} for VM ${g.vmid}`);
    expect(cluster.state.haResources.get(sid)?.state).toBe(action === 'stop' ? 'stopped' : 'started');
  });

  it("a missing guest, a guest on another node and an unknown node give PVE's 500 texts", async () => {
    const { cluster, call } = setup();
    await expect(call('GET', '/nodes/{node}/qemu/{vmid}/status/current', { node: 'pve1', vmid: 99999 })).rejects.toMatchObject({
      status: 500,
      message: "Configuration file 'nodes/pve1/qemu-server/99999.conf' does not exist\n",
    });
    const elsewhere = cluster.guests().find((g) => g.node === 'pve2' && g.type === 'lxc');
    await expect(call('GET', '/nodes/{node}/lxc/{vmid}/config', { node: 'pve1', vmid: elsewhere?.vmid })).rejects.toMatchObject({
      message: `Configuration file 'nodes/pve1/lxc/${elsewhere?.vmid}.conf' does not exist\n`,
    });
    await expect(call('GET', '/nodes/{node}/qemu', { node: 'pve9' })).rejects.toMatchObject({ status: 500, message: expect.stringMatching(/^hostname lookup 'pve9' failed/) });
  });

  it('guests on an offline node report status unknown in cluster resources', async () => {
    const { cluster, call } = setup();
    cluster.setNodeOnline('pve3', false);
    const res = (await call('GET', '/cluster/resources')) as Array<Record<string, unknown>>;
    expect(res.find((r) => r.id === 'node/pve3')).toMatchObject({ status: 'offline' });
    expect(res.filter((r) => r.node === 'pve3' && (r.type === 'qemu' || r.type === 'lxc')).every((r) => r.status === 'unknown')).toBe(true);
  });
});
