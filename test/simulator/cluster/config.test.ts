import { describe, expect, it } from 'vitest';
import { createCluster } from '../../../src/simulator/cluster/index.js';
import { callEndpoint, fakeClock } from '../direct.js';

function setup() {
  const clock = fakeClock();
  const cluster = createCluster({ preset: 'demo', clock, taskDurationMs: 500 });
  const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, params: Record<string, unknown> = {}, authId?: string) =>
    (await callEndpoint(cluster, method, path, params, authId ? { authId } : {})).data as any;
  const vm = (status: 'running' | 'stopped') => {
    const g = cluster.guests().find((x) => x.type === 'qemu' && x.status === status && !x.config.template && !x.config.lock);
    if (!g) throw new Error('no such guest');
    return g;
  };
  return { clock, cluster, call, vm };
}

describe('guest config', () => {
  it('returns a SHA1 digest that changes with every edit; PUT is synchronous and returns null', async () => {
    const { call, vm } = setup();
    const g = vm('stopped');
    const p = { node: g.node, vmid: g.vmid };
    const before = await call('GET', '/nodes/{node}/qemu/{vmid}/config', p);
    expect(before.digest).toMatch(/^[0-9a-f]{40}$/);
    expect(typeof before.memory).toBe('string');
    expect(await call('PUT', '/nodes/{node}/qemu/{vmid}/config', { ...p, cores: 8, digest: before.digest })).toBeNull();
    const after = await call('GET', '/nodes/{node}/qemu/{vmid}/config', p);
    expect(after.cores).toBe(8);
    expect(after.digest).not.toBe(before.digest);
  });

  it('rejects a stale digest', async () => {
    const { call, vm } = setup();
    const g = vm('stopped');
    const p = { node: g.node, vmid: g.vmid };
    const { digest } = await call('GET', '/nodes/{node}/qemu/{vmid}/config', p);
    await call('PUT', '/nodes/{node}/qemu/{vmid}/config', { ...p, description: 'someone else' });
    await expect(call('PUT', '/nodes/{node}/qemu/{vmid}/config', { ...p, cores: 2, digest })).rejects.toMatchObject({
      status: 500,
      message: 'detected modified configuration - file changed by other user? Try again.\n',
    });
  });

  it('stores values with Perl typing: integer options as numbers, memory and number options as strings', async () => {
    const { call, vm } = setup();
    const g = vm('stopped');
    const p = { node: g.node, vmid: g.vmid };
    await call('PUT', '/nodes/{node}/qemu/{vmid}/config', { ...p, memory: 8192, cpulimit: 2, onboot: 1, balloon: '1024' });
    const cfg = await call('GET', '/nodes/{node}/qemu/{vmid}/config', p);
    expect(cfg).toMatchObject({ memory: '8192', cpulimit: '2', onboot: 1, balloon: 1024 });
  });

  it('on a running guest, options that cannot change live become pending until the next start', async () => {
    const { clock, call, vm } = setup();
    const g = vm('running');
    const p = { node: g.node, vmid: g.vmid };
    await call('PUT', '/nodes/{node}/qemu/{vmid}/config', { ...p, cores: 6, description: 'live', delete: 'numa' });
    const current = await call('GET', '/nodes/{node}/qemu/{vmid}/config', { ...p, current: 1 });
    expect(current.description).toBe('live');
    expect(current.cores).not.toBe(6);
    expect(current.numa).toBe(0);
    expect((await call('GET', '/nodes/{node}/qemu/{vmid}/config', p)).cores).toBe(6);
    const pending = (await call('GET', '/nodes/{node}/qemu/{vmid}/pending', p)) as Array<Record<string, unknown>>;
    expect(pending.find((x) => x.key === 'cores')).toMatchObject({ pending: 6 });
    expect(pending.find((x) => x.key === 'numa')).toMatchObject({ delete: 1 });
    await call('POST', '/nodes/{node}/qemu/{vmid}/status/reboot', p);
    clock.advance(500);
    const applied = await call('GET', '/nodes/{node}/qemu/{vmid}/config', { ...p, current: 1 });
    expect(applied.cores).toBe(6);
    expect(applied).not.toHaveProperty('numa');
    expect(((await call('GET', '/nodes/{node}/qemu/{vmid}/pending', p)) as Array<Record<string, unknown>>).some((x) => 'pending' in x || 'delete' in x)).toBe(false);
  });

  it('allocates new disks from STORAGE:SIZE and keeps deleted disks as unused', async () => {
    const { call, vm } = setup();
    const g = vm('stopped');
    const p = { node: g.node, vmid: g.vmid };
    await call('PUT', '/nodes/{node}/qemu/{vmid}/config', { ...p, scsi1: 'local-lvm:10,discard=on' });
    const cfg = await call('GET', '/nodes/{node}/qemu/{vmid}/config', p);
    expect(cfg.scsi1).toMatch(new RegExp(`^local-lvm:vm-${g.vmid}-disk-\\d+,discard=on,size=10G$`));
    await call('PUT', '/nodes/{node}/qemu/{vmid}/config', { ...p, delete: 'scsi1' });
    const after = await call('GET', '/nodes/{node}/qemu/{vmid}/config', p);
    expect(after).not.toHaveProperty('scsi1');
    expect(after.unused0).toBe(String(cfg.scsi1).split(',')[0]);
    await expect(call('PUT', '/nodes/{node}/qemu/{vmid}/config', { ...p, scsi2: 'nas:4' })).rejects.toMatchObject({ message: "storage 'nas' does not support content-type 'images'\n" });
  });

  it('refuses edits of a locked guest; POST config runs as a qmconfig task', async () => {
    const { clock, call, vm } = setup();
    const g = vm('stopped');
    const p = { node: g.node, vmid: g.vmid };
    await call('POST', '/nodes/{node}/qemu/{vmid}/snapshot', { ...p, snapname: 'hold' });
    await expect(call('PUT', '/nodes/{node}/qemu/{vmid}/config', { ...p, cores: 2 })).rejects.toMatchObject({ message: 'VM is locked (snapshot)\n' });
    clock.advance(500);
    const upid = await call('POST', '/nodes/{node}/qemu/{vmid}/config', { ...p, cores: 3 });
    expect(upid).toContain(':qmconfig:');
    clock.advance(500);
    expect((await call('GET', '/nodes/{node}/qemu/{vmid}/config', p)).cores).toBe(3);
    await expect(call('PUT', '/nodes/{node}/qemu/{vmid}/config', p)).rejects.toMatchObject({ message: 'no options specified\n' });
  });

  it('container memory stays an integer; revert drops a pending change', async () => {
    const { call, cluster } = setup();
    const ct = cluster.guests().find((x) => x.type === 'lxc' && x.status === 'running');
    const p = { node: ct?.node, vmid: ct?.vmid };
    await call('PUT', '/nodes/{node}/lxc/{vmid}/config', { ...p, memory: 2048, hostname: 'renamed' });
    const cfg = await call('GET', '/nodes/{node}/lxc/{vmid}/config', { ...p, current: 1 });
    expect(cfg.memory).toBe(2048);
    expect(cfg.hostname).not.toBe('renamed');
    await call('PUT', '/nodes/{node}/lxc/{vmid}/config', { ...p, revert: 'hostname' });
    expect((await call('GET', '/nodes/{node}/lxc/{vmid}/config', p)).hostname).toBe(cfg.hostname);
  });
});
