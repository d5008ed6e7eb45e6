import { describe, expect, it } from 'vitest';
import { createCluster } from '../../../src/simulator/cluster/index.js';
import { callEndpoint, fakeClock } from '../direct.js';

function setup() {
  const clock = fakeClock();
  const cluster = createCluster({ preset: 'demo', clock, taskDurationMs: 1000 });
  const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, params: Record<string, unknown> = {}) => (await callEndpoint(cluster, method, path, params)).data as any;
  const exitOf = async (upid: string) => {
    clock.advance(10_000);
    return (await call('GET', '/nodes/{node}/tasks/{upid}/status', { node: upid.split(':')[1], upid })).exitstatus as string;
  };
  return { clock, cluster, call, exitOf };
}

describe('guest lifecycle', () => {
  it('create: the guest exists locked `create` at once, with allocated disks and a generated MAC', async () => {
    const { cluster, call, exitOf } = setup();
    const upid = await call('POST', '/nodes/{node}/qemu', { node: 'pve2', vmid: 777, name: 'new-vm', scsi0: 'local-lvm:16', net0: 'virtio,bridge=vmbr0', memory: '1024', pool: 'development' });
    expect(upid).toContain(':qmcreate:777:');
    const cfg = await call('GET', '/nodes/{node}/qemu/{vmid}/config', { node: 'pve2', vmid: 777 });
    expect(cfg).toMatchObject({ lock: 'create', name: 'new-vm', scsi0: 'local-lvm:vm-777-disk-0,size=16G' });
    expect(cfg.net0).toMatch(/^virtio=BC:24:11:[0-9A-F]{2}:[0-9A-F]{2}:[0-9A-F]{2},bridge=vmbr0$/);
    expect(await exitOf(upid)).toBe('OK');
    expect(cluster.guest(777)?.config.lock).toBeUndefined();
    expect(cluster.guest(777)?.pool).toBe('development');
    await expect(call('POST', '/nodes/{node}/qemu', { node: 'pve1', vmid: 777 })).rejects.toMatchObject({ message: "unable to create VM 777 - VM 777 already exists on node 'pve2'\n" });
  });

  it('a create task that fails leaves nothing behind', async () => {
    const { cluster, call, exitOf } = setup();
    cluster.taskFaults.push({ type: 'vzcreate', fail: 'unpack failed' });
    const template = cluster.state.volumes.find((v) => v.content === 'vztmpl')?.volid;
    const upid = await call('POST', '/nodes/{node}/lxc', { node: 'pve1', vmid: 778, ostemplate: template, rootfs: 'local-lvm:4' });
    expect(cluster.guest(778)).toBeDefined();
    expect(await exitOf(upid)).toBe('unpack failed');
    expect(cluster.guest(778)).toBeUndefined();
  });

  it('destroy refuses protected and HA guests up front and running ones in the task', async () => {
    const { cluster, call, exitOf } = setup();
    const running = cluster.guests().find((g) => g.type === 'qemu' && g.status === 'running' && !cluster.state.haResources.has(`vm:${g.vmid}`));
    const p = { node: running?.node, vmid: running?.vmid };
    expect(await exitOf(await call('DELETE', '/nodes/{node}/qemu/{vmid}', p))).toBe(`VM ${running?.vmid} is running - destroy failed`);
    await call('PUT', '/nodes/{node}/qemu/{vmid}/config', { ...p, protection: 1 });
    await expect(call('DELETE', '/nodes/{node}/qemu/{vmid}', p)).rejects.toMatchObject({ message: `can't remove VM ${running?.vmid} - protection mode enabled\n` });
    const ha = Number([...cluster.state.haResources.keys()][0]?.split(':')[1]);
    const haGuest = cluster.guest(ha);
    await expect(call('DELETE', '/nodes/{node}/qemu/{vmid}', { node: haGuest?.node, vmid: ha })).rejects.toMatchObject({
      message: `unable to remove VM ${ha} - used in HA resources and purge parameter not set.\n`,
    });
  });

  it('clone: linked from the template, refused to another node with local disks', async () => {
    const { cluster, call, exitOf } = setup();
    const tpl = cluster.guests().find((g) => g.config.template === 1);
    const upid = await call('POST', '/nodes/{node}/qemu/{vmid}/clone', { node: tpl?.node, vmid: tpl?.vmid, newid: 800, name: 'from-template' });
    expect(cluster.guest(800)?.config.lock).toBe('clone');
    expect(await exitOf(upid)).toBe('OK');
    const copy = cluster.guest(800);
    expect(String(copy?.config.scsi0)).toMatch(new RegExp(`^ceph:base-${tpl?.vmid}-disk-0/vm-800-disk-0,`));
    expect(copy?.config.net0).not.toBe(tpl?.config.net0);
    expect(copy?.config.template).toBeUndefined();
    const local = cluster.guests().find((g) => g.node === 'pve1' && g.type === 'qemu' && String(g.config.scsi0).startsWith('local-lvm:') && !g.config.lock);
    await expect(call('POST', '/nodes/{node}/qemu/{vmid}/clone', { node: 'pve1', vmid: local?.vmid, newid: 801, target: 'pve2' })).rejects.toMatchObject({
      message: "can't clone VM to node 'pve2' (VM uses local storage)\n",
    });
  });

  it('migrate: needs --online for a running VM, moves the guest and keeps it running', async () => {
    const { cluster, call, exitOf } = setup();
    const vm = cluster
      .guests()
      .find((g) => g.node === 'pve1' && g.type === 'qemu' && g.status === 'running' && String(g.config.scsi0).startsWith('ceph:') && !cluster.state.haResources.has(`vm:${g.vmid}`));
    const p = { node: 'pve1', vmid: vm?.vmid };
    const pre = await call('GET', '/nodes/{node}/qemu/{vmid}/migrate', p);
    expect(pre).toMatchObject({ running: 1, allowed_nodes: ['pve2', 'pve3'], local_disks: [] });
    await expect(call('POST', '/nodes/{node}/qemu/{vmid}/migrate', { ...p, target: 'pve2' })).rejects.toMatchObject({ message: "can't migrate running VM without --online\n" });
    const upid = await call('POST', '/nodes/{node}/qemu/{vmid}/migrate', { ...p, target: 'pve2', online: 1 });
    expect(cluster.guest(vm?.vmid ?? 0)?.config.lock).toBe('migrate');
    expect(await exitOf(upid)).toBe('OK');
    expect(cluster.guest(vm?.vmid ?? 0)).toMatchObject({ node: 'pve2', status: 'running' });
    await expect(call('GET', '/nodes/{node}/qemu/{vmid}/status/current', p)).rejects.toMatchObject({ status: 500 });
  });

  it('resize grows disks and refuses to shrink; template converts disks to base images', async () => {
    const { cluster, call, exitOf } = setup();
    const vm = cluster.guests().find((g) => g.node === 'pve3' && g.type === 'qemu' && g.status === 'stopped' && !g.config.template);
    const p = { node: 'pve3', vmid: vm?.vmid };
    await expect(call('PUT', '/nodes/{node}/qemu/{vmid}/resize', { ...p, disk: 'scsi0', size: '1G' })).rejects.toMatchObject({ message: 'shrinking disks is not supported\n' });
    expect(await exitOf(await call('PUT', '/nodes/{node}/qemu/{vmid}/resize', { ...p, disk: 'scsi0', size: '+2G' }))).toBe('OK');
    const before = String(cluster.guest(vm?.vmid ?? 0)?.config.scsi0);
    expect(await exitOf(await call('POST', '/nodes/{node}/qemu/{vmid}/template', p))).toBe('OK');
    const after = cluster.guest(vm?.vmid ?? 0);
    expect(after?.config.template).toBe(1);
    expect(String(after?.config.scsi0)).toBe(before.replace(`vm-${vm?.vmid}-disk-0`, `base-${vm?.vmid}-disk-0`));
    const start = await call('POST', '/nodes/{node}/qemu/{vmid}/status/start', p);
    expect(await exitOf(start)).toBe("you can't start a vm if it's a template");
  });
});
