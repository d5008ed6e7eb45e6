import { describe, expect, it } from 'vitest';
import { createCluster } from '../../../src/simulator/cluster/index.js';
import { callEndpoint, fakeClock } from '../direct.js';

describe('snapshots', () => {
  const clock = fakeClock();
  const cluster = createCluster({ preset: 'demo', clock, taskDurationMs: 1000 });
  const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, params: Record<string, unknown>) => (await callEndpoint(cluster, method, path, params)).data as any;
  const g = cluster.guests().find((x) => x.type === 'qemu' && x.status === 'running' && x.snapshots.length === 0 && !x.config.lock);
  const p = { node: g?.node, vmid: g?.vmid };

  it('the list ends with the current pseudo-snapshot', async () => {
    const list = (await call('GET', '/nodes/{node}/qemu/{vmid}/snapshot', p)) as Array<Record<string, unknown>>;
    expect(list.at(-1)).toMatchObject({ name: 'current', description: 'You are here!', running: 1 });
    expect(list.at(-1)?.digest).toMatch(/^[0-9a-f]{40}$/);
  });

  it('create locks the guest while the task runs, then adds the snapshot as parent of current', async () => {
    const upid = await call('POST', '/nodes/{node}/qemu/{vmid}/snapshot', { ...p, snapname: 'one', description: 'first' });
    expect(upid).toContain(':qmsnapshot:');
    expect((await call('GET', '/nodes/{node}/qemu/{vmid}/config', p)).lock).toBe('snapshot');
    const blocked = await call('POST', '/nodes/{node}/qemu/{vmid}/snapshot', { ...p, snapname: 'two' });
    clock.advance(1000);
    expect((await call('GET', '/nodes/{node}/tasks/{upid}/status', { node: p.node, upid: blocked })).exitstatus).toBe('VM is locked (snapshot)');
    const list = (await call('GET', '/nodes/{node}/qemu/{vmid}/snapshot', p)) as Array<Record<string, unknown>>;
    expect(list.map((s) => s.name)).toEqual(['one', 'current']);
    expect(list[0]).toMatchObject({ description: 'first', vmstate: 0 });
    expect(list[1]).toMatchObject({ parent: 'one' });
    expect(await call('GET', '/nodes/{node}/qemu/{vmid}/config', p)).not.toHaveProperty('lock');
  });

  it('rejects the reserved name and a duplicate', async () => {
    await expect(call('POST', '/nodes/{node}/qemu/{vmid}/snapshot', { ...p, snapname: 'current' })).rejects.toMatchObject({ message: "unable to use snapshot name 'current' (reserved name)\n" });
    const dup = await call('POST', '/nodes/{node}/qemu/{vmid}/snapshot', { ...p, snapname: 'one' });
    clock.advance(1000);
    expect((await call('GET', '/nodes/{node}/tasks/{upid}/status', { node: p.node, upid: dup })).exitstatus).toBe("snapshot name 'one' already used");
  });

  it('rollback restores the config and stops a VM without RAM state; delete re-parents', async () => {
    await call('PUT', '/nodes/{node}/qemu/{vmid}/config', { ...p, description: 'changed after snapshot' });
    await call('POST', '/nodes/{node}/qemu/{vmid}/snapshot', { ...p, snapname: 'two' });
    clock.advance(1000);
    await call('POST', '/nodes/{node}/qemu/{vmid}/snapshot/{snapname}/rollback', { ...p, snapname: 'one' });
    clock.advance(1000);
    const cfg = await call('GET', '/nodes/{node}/qemu/{vmid}/config', p);
    expect(cfg).not.toHaveProperty('description');
    expect(cfg.parent).toBe('one');
    expect((await call('GET', '/nodes/{node}/qemu/{vmid}/status/current', p)).status).toBe('stopped');
    await call('DELETE', '/nodes/{node}/qemu/{vmid}/snapshot/{snapname}', { ...p, snapname: 'one' });
    clock.advance(1000);
    const list = (await call('GET', '/nodes/{node}/qemu/{vmid}/snapshot', p)) as Array<Record<string, unknown>>;
    expect(list.map((s) => s.name)).toEqual(['two', 'current']);
    expect(list[0]).not.toHaveProperty('parent');
    expect(list[1]).not.toHaveProperty('parent');
  });
});
