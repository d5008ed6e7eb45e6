/**
 * The writes plans need a blast radius for: storage definitions (add, change, disable, remove),
 * disk moves, network apply and revert; and the snapshot the simulator refuses where PVE would.
 */
import { describe, expect, it } from 'vitest';
import { createCluster } from '../../src/simulator/cluster/index.js';
import { callEndpoint, fakeClock } from './direct.js';

describe('storage definitions, disk moves, network apply, snapshot support', () => {
  const clock = fakeClock();
  const cluster = createCluster({ preset: 'demo', clock, taskDurationMs: 1000 });
  const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, params: Record<string, unknown> = {}) => (await callEndpoint(cluster, method, path, params)).data as any;
  const status = async (node: string, upid: string) => {
    clock.advance(5000);
    return (await call('GET', '/nodes/{node}/tasks/{upid}/status', { node, upid })).exitstatus;
  };
  const vm = cluster.guests().find((x) => x.type === 'qemu' && x.status === 'running' && !x.config.lock && String(x.config.scsi0 ?? '').startsWith('local-lvm:'));
  const p = { node: vm?.node, vmid: vm?.vmid };

  it('adds, changes, disables and removes a storage definition; a removed one is gone from every node', async () => {
    await call('POST', '/storage', { storage: 'scratch', type: 'dir', path: '/srv/scratch', content: 'images,rootdir' });
    expect(await call('GET', '/storage/{storage}', { storage: 'scratch' })).toMatchObject({ type: 'dir', content: 'images,rootdir', path: '/srv/scratch' });
    await expect(call('POST', '/storage', { storage: 'scratch', type: 'dir', path: '/x' })).rejects.toThrow(/already defined/);
    await call('PUT', '/storage/{storage}', { storage: 'scratch', disable: 1 });
    expect(await call('GET', '/storage/{storage}', { storage: 'scratch' })).toMatchObject({ disable: 1 });
    await expect(call('GET', '/nodes/{node}/storage/{storage}/status', { node: p.node, storage: 'scratch' })).rejects.toThrow(/does not exist/);
    await call('PUT', '/storage/{storage}', { storage: 'scratch', delete: 'disable' });
    expect(await call('GET', '/nodes/{node}/storage/{storage}/status', { node: p.node, storage: 'scratch' })).toMatchObject({ type: 'dir' });
    await call('DELETE', '/storage/{storage}', { storage: 'scratch' });
    await expect(call('GET', '/storage/{storage}', { storage: 'scratch' })).rejects.toThrow(/does not exist/);
  });

  it('moves a disk to a raw file on a directory storage, keeps the source as unused; a snapshot is then refused, as /feature says', async () => {
    await call('POST', '/storage', { storage: 'files', type: 'dir', path: '/srv/files', content: 'images' });
    const before = String(vm?.config.scsi0).split(',')[0];
    expect((await call('GET', '/nodes/{node}/qemu/{vmid}/feature', { ...p, feature: 'snapshot' })).hasFeature).toBe(1);
    const upid = await call('POST', '/nodes/{node}/qemu/{vmid}/move_disk', { ...p, disk: 'scsi0', storage: 'files', format: 'raw' });
    expect(await status(String(p.node), upid)).toBe('OK');
    const config = await call('GET', '/nodes/{node}/qemu/{vmid}/config', p);
    expect(config.scsi0).toMatch(new RegExp(`^files:${p.vmid}/vm-${p.vmid}-disk-0\\.raw,`));
    expect(Object.values(config)).toContain(before);
    expect((await call('GET', '/nodes/{node}/qemu/{vmid}/feature', { ...p, feature: 'snapshot' })).hasFeature).toBe(0);
    const snap = await call('POST', '/nodes/{node}/qemu/{vmid}/snapshot', { ...p, snapname: 'nope' });
    expect(await status(String(p.node), snap)).toBe('snapshot feature is not available');
    await expect(call('POST', '/nodes/{node}/qemu/{vmid}/move_disk', { ...p, disk: 'scsi0', storage: 'local' })).rejects.toThrow(/does not support vm images/);
  });

  it('a container volume moves only while the container is stopped', async () => {
    const ct = cluster.guests().find((x) => x.type === 'lxc' && x.status === 'running' && !x.config.lock);
    await expect(
      call('POST', '/nodes/{node}/lxc/{vmid}/move_volume', { node: ct?.node, vmid: ct?.vmid, volume: 'rootfs', storage: String(ct?.config.rootfs).startsWith('ceph:') ? 'local-lvm' : 'ceph' }),
    ).rejects.toThrow(/running container/);
  });

  it('network apply is a reload task on the node; revert answers null', async () => {
    const upid = await call('PUT', '/nodes/{node}/network', { node: p.node });
    expect(upid).toContain(':srvreload:networking:');
    expect(await status(String(p.node), upid)).toBe('OK');
    expect(await call('DELETE', '/nodes/{node}/network', { node: p.node })).toBeNull();
  });

  it('interface changes are staged: the reads show them, revert throws them away, apply makes them the running configuration', async () => {
    const node = String(p.node);
    const ifaces = async () => (await call('GET', '/nodes/{node}/network', { node })) as Array<Record<string, unknown>>;
    const running = await ifaces();
    await call('POST', '/nodes/{node}/network', { node, iface: 'vmbr9', type: 'bridge', cidr: '192.168.9.1/24' });
    await expect(call('POST', '/nodes/{node}/network', { node, iface: 'vmbr9', type: 'bridge' })).rejects.toThrow(/already exists/);
    await call('PUT', '/nodes/{node}/network/{iface}', { node, iface: 'vmbr1', type: 'bridge', comments: 'staged note' });
    expect((await ifaces()).find((i) => i.iface === 'vmbr9')).toMatchObject({ address: '192.168.9.1', cidr: '192.168.9.1/24', active: 0 });
    expect(await call('GET', '/nodes/{node}/network/{iface}', { node, iface: 'vmbr1' })).toMatchObject({ comments: 'staged note' });
    await call('DELETE', '/nodes/{node}/network', { node });
    expect(await ifaces()).toEqual(running);
    await call('POST', '/nodes/{node}/network', { node, iface: 'vmbr9', type: 'bridge', cidr: '192.168.9.1/24' });
    await call('DELETE', '/nodes/{node}/network/{iface}', { node, iface: 'vmbr1' });
    expect(await status(node, await call('PUT', '/nodes/{node}/network', { node }))).toBe('OK');
    const applied = await ifaces();
    expect(applied.find((i) => i.iface === 'vmbr9')).toMatchObject({ active: 1 });
    expect(applied.some((i) => i.iface === 'vmbr1')).toBe(false);
  });
});
