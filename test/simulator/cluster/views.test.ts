import { describe, expect, it } from 'vitest';
import { createCluster } from '../../../src/simulator/cluster/index.js';
import { callEndpoint, fakeClock, type DirectCallOptions } from '../direct.js';

function setup(preset = 'demo') {
  const clock = fakeClock();
  const cluster = createCluster({ preset, clock, taskDurationMs: 1000 });
  const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, params: Record<string, unknown> = {}, opts: DirectCallOptions = {}) => callEndpoint(cluster, method, path, params, opts);
  return { clock, cluster, call };
}

type Row = Record<string, unknown>;

describe('cluster views', () => {
  it('cluster resources: ids and types per kind, type filter, Perl-typed flags', async () => {
    const { call } = setup();
    const all = (await call('GET', '/cluster/resources')).data as Row[];
    const kinds = new Set(all.map((r) => r.type));
    expect(kinds).toEqual(new Set(['node', 'storage', 'qemu', 'lxc', 'pool', 'sdn']));
    expect(all.find((r) => r.type === 'node')?.id).toBe('node/pve1');
    expect(all.find((r) => r.type === 'storage')?.id).toMatch(/^storage\/pve\d\/[\w-]+$/);
    expect(all.find((r) => r.type === 'pool')?.id).toMatch(/^\/pool\//);
    const vm = all.find((r) => r.type === 'qemu');
    expect(vm?.id).toBe(`qemu/${vm?.vmid}`);
    expect(typeof vm?.vmid).toBe('number');
    expect([0, 1]).toContain(vm?.template);
    expect([0, 1]).toContain(all.find((r) => r.type === 'storage')?.shared);
    expect(all.map((r) => r.type).indexOf('pool')).toBe(0);
    const prod = all.find((r) => r.id === '/pool/production');
    const running = all.filter((r) => r.pool === 'production' && r.status === 'running');
    expect(prod?.mem).toBe(running.reduce((sum, r) => sum + Number(r.mem), 0));
    expect(prod?.maxcpu).toBe(running.reduce((sum, r) => sum + Number(r.maxcpu), 0));
    const vms = (await call('GET', '/cluster/resources', { type: 'vm' })).data as Row[];
    expect(new Set(vms.map((r) => r.type))).toEqual(new Set(['qemu', 'lxc']));
  });

  it('cluster resources only shows what the caller may audit', async () => {
    const { cluster, call } = setup();
    const g = cluster.guests()[3];
    const hasPriv = (path: string, priv: string) => (path === `/vms/${g?.vmid}` && priv === 'VM.Audit') || (path === '/nodes/pve2' && priv === 'Sys.Audit');
    const rows = (await call('GET', '/cluster/resources', {}, { authId: 'alice@pve', hasPriv })).data as Row[];
    expect(rows.map((r) => r.id).sort()).toEqual([`${g?.type}/${g?.vmid}`, 'node/pve2'].sort());
  });

  it('cluster status: a cluster entry plus nodes; a stand-alone node reports only itself', async () => {
    const { call } = setup();
    const rows = (await call('GET', '/cluster/status')).data as Row[];
    expect(rows[0]).toMatchObject({ type: 'cluster', id: 'cluster', name: 'demo', nodes: 3, quorate: 1 });
    expect(rows.slice(1).map((r) => r.id)).toEqual(['node/pve1', 'node/pve2', 'node/pve3']);
    expect(rows[1]).toMatchObject({ local: 1, online: 1, nodeid: 1 });
    const alone = (await setup('small').call('GET', '/cluster/status')).data as Row[];
    expect(alone).toEqual([expect.objectContaining({ type: 'node', name: 'pve', nodeid: 0, local: 1, online: 1 })]);
  });

  it('nextid answers a string, and 400 for an ID in use', async () => {
    const { cluster, call } = setup();
    const next = (await call('GET', '/cluster/nextid')).data;
    expect(typeof next).toBe('string');
    expect(cluster.guest(Number(next))).toBeUndefined();
    const used = cluster.guests()[0]?.vmid;
    await expect(call('GET', '/cluster/nextid', { vmid: used })).rejects.toMatchObject({ status: 400, errors: { vmid: `VM ${used} already exists` } });
  });

  it('nodes list carries extra id/type keys and hides stats without Sys.Audit', async () => {
    const { call } = setup();
    const rows = (await call('GET', '/nodes')).data as Row[];
    expect(rows[0]).toMatchObject({ node: 'pve1', id: 'node/pve1', type: 'node', status: 'online' });
    expect(rows[0]?.maxcpu).toBeGreaterThan(0);
    const blind = (await call('GET', '/nodes', {}, { hasPriv: () => false })).data as Row[];
    expect(blind[0]).not.toHaveProperty('maxcpu');
  });
});

describe('task endpoints', () => {
  it('lists with total, filters and RUNNING for active tasks; logs page with n from 1', async () => {
    const { clock, cluster, call } = setup();
    const g = cluster.guests().find((x) => x.node === 'pve1' && x.type === 'qemu' && x.status === 'stopped' && !x.config.template);
    const upid = (await call('POST', '/nodes/{node}/qemu/{vmid}/status/start', { node: 'pve1', vmid: g?.vmid })).data as string;
    const active = await call('GET', '/nodes/{node}/tasks', { node: 'pve1', source: 'active' });
    expect(active.data).toEqual([expect.objectContaining({ upid, status: 'RUNNING' })]);
    expect(active.total).toBe(1);
    const archive = await call('GET', '/nodes/{node}/tasks', { node: 'pve1', limit: 2 });
    expect((archive.data as Row[]).length).toBe(2);
    expect(archive.total).toBeGreaterThan(2);
    expect((archive.data as Row[]).some((t) => t.upid === upid)).toBe(false);
    clock.advance(1000);
    const byVm = (await call('GET', '/nodes/{node}/tasks', { node: 'pve1', vmid: g?.vmid, typefilter: 'qmstart' })).data as Row[];
    expect(byVm[0]).toMatchObject({ upid, status: 'OK', type: 'qmstart' });
    const errors = (await call('GET', '/nodes/{node}/tasks', { node: 'pve1', errors: 1 })).data as Row[];
    expect(errors.every((t) => t.status !== 'OK')).toBe(true);
    const log = await call('GET', '/nodes/{node}/tasks/{upid}/log', { node: 'pve1', upid: errors[0]?.upid, start: 1, limit: 2 });
    expect((log.data as Array<{ n: number }>)[0]?.n).toBe(2);
    expect(log.total).toBeGreaterThan(2);
  });

  it('token tasks split user and tokenid; other users see only their own tasks', async () => {
    const { cluster, call } = setup();
    const g = cluster.guests().find((x) => x.node === 'pve1' && x.type === 'qemu' && x.status === 'running');
    const upid = (await call('POST', '/nodes/{node}/qemu/{vmid}/status/reset', { node: 'pve1', vmid: g?.vmid }, { authId: 'ops@pve!ci' })).data as string;
    expect(upid.endsWith(':ops@pve!ci:')).toBe(true);
    const st = (await call('GET', '/nodes/{node}/tasks/{upid}/status', { node: 'pve1', upid }, { authId: 'ops@pve' })).data;
    expect(st).toMatchObject({ user: 'ops@pve', tokenid: 'ci' });
    const mine = (await call('GET', '/nodes/{node}/tasks', { node: 'pve1', source: 'all' }, { authId: 'ops@pve', hasPriv: () => false })).data as Row[];
    expect(mine.map((t) => t.upid)).toEqual([upid]);
    await expect(call('GET', '/nodes/{node}/tasks/{upid}/status', { node: 'pve1', upid }, { authId: 'eve@pve', hasPriv: () => false })).rejects.toMatchObject({ status: 403 });
  });

  it('bad and unknown UPIDs are 400 errors on the upid parameter', async () => {
    const { call } = setup();
    await expect(call('GET', '/nodes/{node}/tasks/{upid}/status', { node: 'pve1', upid: 'garbage' })).rejects.toMatchObject({ status: 400, errors: { upid: 'unable to parse worker upid' } });
    await expect(call('GET', '/nodes/{node}/tasks/{upid}/status', { node: 'pve1', upid: 'UPID:pve1:00000001:00000001:00000001:qmstart:100:root@pam:' })).rejects.toMatchObject({
      errors: { upid: 'no such task' },
    });
  });

  it('stopping a running task ends it with an interruption', async () => {
    const { cluster, call } = setup();
    const g = cluster.guests().find((x) => x.node === 'pve2' && x.type === 'qemu' && x.status === 'running');
    const upid = (await call('POST', '/nodes/{node}/qemu/{vmid}/status/shutdown', { node: 'pve2', vmid: g?.vmid })).data as string;
    expect((await call('DELETE', '/nodes/{node}/tasks/{upid}', { node: 'pve2', upid })).data).toBeNull();
    expect((await call('GET', '/nodes/{node}/tasks/{upid}/status', { node: 'pve2', upid })).data).toMatchObject({ exitstatus: 'interrupted by signal' });
    expect(cluster.guest(g?.vmid ?? 0)?.status).toBe('running');
  });
});

describe('backups, storage and pools', () => {
  it('vzdump locks guests `backup`, writes archives with notes, and reports locked guests as job errors', async () => {
    const { clock, cluster, call } = setup();
    const free = cluster.guests().filter((g) => g.node === 'pve1' && !g.config.template && !g.config.lock);
    const b = free.find((g) => g.type === 'qemu');
    const a = free.find((g) => g !== b);
    await call('POST', '/nodes/{node}/qemu/{vmid}/snapshot', { node: 'pve1', vmid: b?.vmid, snapname: 'busy' });
    const upid = (await call('POST', '/nodes/{node}/vzdump', { node: 'pve1', vmid: `${a?.vmid},${b?.vmid}`, storage: 'nas', compress: 'zstd', 'notes-template': '{{guestname}}' })).data as string;
    expect(cluster.guest(a?.vmid ?? 0)?.config.lock).toBe('backup');
    clock.advance(5000);
    const st = (await call('GET', '/nodes/{node}/tasks/{upid}/status', { node: 'pve1', upid })).data as Row;
    expect(st.exitstatus).toBe('job errors');
    const log = (await call('GET', '/nodes/{node}/tasks/{upid}/log', { node: 'pve1', upid, limit: 0 })).data as Array<{ t: string }>;
    expect(log.map((l) => l.t)).toContain(`ERROR: Backup of VM ${b?.vmid} failed - VM is locked (snapshot)`);
    expect(log.at(-1)?.t).toBe('TASK ERROR: job errors');
    expect(cluster.guest(a?.vmid ?? 0)?.config.lock).toBeUndefined();
    const content = (await call('GET', '/nodes/{node}/storage/{storage}/content', { node: 'pve1', storage: 'nas', content: 'backup', vmid: a?.vmid })).data as Row[];
    const newest = content.sort((x, y) => Number(y.ctime) - Number(x.ctime))[0];
    expect(newest?.volid).toMatch(new RegExp(`^nas:backup/vzdump-(qemu|lxc)-${a?.vmid}-\\d{4}_\\d\\d_\\d\\d-\\d\\d_\\d\\d_\\d\\d\\.(vma|tar)\\.zst$`));
    expect(newest?.notes).toBe(String(a?.config.name ?? a?.config.hostname));
  });

  it('storage content includes guest disks derived from configs', async () => {
    const { cluster, call } = setup();
    const g = cluster.guests().find((x) => x.node === 'pve1' && String(x.config.scsi0 ?? x.config.rootfs ?? '').startsWith('local-lvm:'));
    const rows = (await call('GET', '/nodes/{node}/storage/{storage}/content', { node: 'pve1', storage: 'local-lvm', vmid: g?.vmid })).data as Row[];
    expect(rows[0]).toMatchObject({ vmid: g?.vmid, format: 'raw', content: g?.type === 'qemu' ? 'images' : 'rootdir' });
    expect(rows[0]?.size).toBeGreaterThan(0);
    await expect(call('DELETE', '/nodes/{node}/storage/{storage}/content/{volume}', { node: 'pve1', storage: 'local-lvm', volume: rows[0]?.volid })).rejects.toMatchObject({ status: 500 });
  });

  it('not-backed-up lists guests outside every job, pools refuse removal while not empty', async () => {
    const { cluster, call } = setup();
    const rows = (await call('GET', '/cluster/backup-info/not-backed-up')).data as Row[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => cluster.guest(Number(r.vmid))?.pool === 'development')).toBe(true);
    await expect(call('DELETE', '/pools/{poolid}', { poolid: 'development' })).rejects.toMatchObject({ message: 'pool not empty\n' });
    await expect(call('GET', '/pools/{poolid}', { poolid: 'nope' })).rejects.toMatchObject({ message: "pool 'nope' does not exist\n" });
  });
});
