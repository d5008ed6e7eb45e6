import { describe, expect, it } from 'vitest';
import { appliesLive, previewChange, type PreviewInput } from './change-preview.js';

const VM = { vmid: 112, exists: true, type: 'qemu' as const, node: 'pve1', name: 'app-02', digest: 'd1' };

function input(over: Partial<PreviewInput> & { template: string }, reads: Record<string, unknown> = {}): PreviewInput {
  return {
    method: 'POST',
    pathValues: { node: 'pve1', vmid: '112' },
    params: {},
    target: VM,
    read: async (path) => {
      if (!(path in reads)) throw Object.assign(new Error('no such read'), { status: 500 });
      return reads[path];
    },
    ...over,
  };
}

const RUNNING = { '/nodes/pve1/qemu/112/status/current': { status: 'running', qmpstatus: 'running' } };
const STOPPED = { '/nodes/pve1/qemu/112/status/current': { status: 'stopped' } };
const CONFIG = '/nodes/{node}/qemu/{vmid}/config';

describe('config writes', () => {
  it('shows one key as current → new, pending on a running VM, summary first', async () => {
    const c = await previewChange(input({ template: CONFIG, params: { memory: 8192, digest: 'x' }, config: { name: 'app-02', memory: 4096, digest: 'd1' } }, RUNNING));
    expect(c?.summary).toBe('app-02 (VM 112 on pve1): memory 4096 MiB → 8192 MiB (after a restart)');
    expect(c?.lines).toEqual(['memory: 4096 MiB → 8192 MiB (pending until restart)']);
  });

  it('a stopped guest has nothing pending', async () => {
    const c = await previewChange(input({ template: CONFIG, params: { memory: 8192 }, config: { memory: 4096 } }, STOPPED));
    expect(c?.summary).toBe('app-02 (VM 112 on pve1): memory 4096 MiB → 8192 MiB');
  });

  it('lists set, unchanged, new and deleted keys; hot-pluggable ones are live', async () => {
    const c = await previewChange(
      input(
        {
          template: CONFIG,
          params: { cores: 4, net0: 'virtio,bridge=vmbr1', description: 'x', onboot: 1, delete: 'tags,serial0' },
          config: { cores: 2, net0: 'virtio,bridge=vmbr0', tags: 'web', onboot: 1 },
        },
        RUNNING,
      ),
    );
    expect(c?.lines).toEqual([
      'cores: 2 → 4 (pending until restart)',
      'description: (not set) → x',
      'net0: virtio,bridge=vmbr0 → virtio,bridge=vmbr1',
      'onboot: 1 (unchanged)',
      'serial0: (not set), nothing to delete',
      'tags: web → (deleted)',
    ]);
    expect(c?.summary).toBe('app-02 (VM 112 on pve1): 4 settings change (cores, description, net0, tags), 1 after a restart (cores)');
  });

  it('without the config says the current values are unknown', async () => {
    const c = await previewChange(input({ template: CONFIG, params: { memory: 8192 } }));
    expect(c?.summary).toMatch(/memory.*could not be read/);
    expect(c?.lines).toEqual(['memory: ? → 8192 MiB']);
  });

  it('escapes invisible characters and caps long values', async () => {
    const c = await previewChange(input({ template: CONFIG, params: { description: `ok\u202Eevil`, name: 'n'.repeat(2000) }, config: {} }, STOPPED));
    expect(c?.lines[0]).toBe('description: (not set) → ok\\u{202E}evil');
    expect(c?.lines[1]?.length).toBeLessThan(200);
    expect(c?.lines[1]).toMatch(/\[2000 chars, sha256/);
  });

  it('the hot-plug rule follows the guest’s hotplug setting; containers apply limits live', () => {
    expect(appliesLive('qemu', 'memory', {})).toBe(false);
    expect(appliesLive('qemu', 'memory', { hotplug: 'network,disk,memory' })).toBe(true);
    expect(appliesLive('qemu', 'net0', { hotplug: '0' })).toBe(false);
    expect(appliesLive('qemu', 'scsi1', {})).toBe(true);
    expect(appliesLive('lxc', 'memory', {})).toBe(true);
    expect(appliesLive('lxc', 'rootfs', {})).toBe(false);
  });
});

describe('power actions and snapshots', () => {
  it('a power action shows current → target state', async () => {
    const c = await previewChange(input({ template: '/nodes/{node}/qemu/{vmid}/status/shutdown' }, RUNNING));
    expect(c?.summary).toBe('app-02 (VM 112 on pve1): running → stopped (clean shutdown)');
    const u = await previewChange(input({ template: '/nodes/{node}/qemu/{vmid}/status/start' }));
    expect(u?.summary).toMatch(/\? \(the current state could not be read\) → running/);
  });

  it('a snapshot delete names its date and parent; a missing one says PVE will refuse', async () => {
    const reads = { '/nodes/pve1/qemu/112/snapshot': [{ name: 'pre', snaptime: 1_767_225_600, parent: 'base' }, { name: 'current' }] };
    const c = await previewChange(input({ template: '/nodes/{node}/qemu/{vmid}/snapshot/{snapname}', pathValues: { node: 'pve1', vmid: '112', snapname: 'pre' } }, reads));
    expect(c?.summary).toBe("app-02 (VM 112 on pve1): delete snapshot 'pre' taken 2026-01-01T00:00:00Z, parent 'base'");
    const gone = await previewChange(input({ template: '/nodes/{node}/qemu/{vmid}/snapshot/{snapname}', pathValues: { node: 'pve1', vmid: '112', snapname: 'nope' } }, reads));
    expect(gone?.summary).toMatch(/'nope'; it does not exist now/);
  });

  it('a snapshot create names it; a listed operation gets its sentence, an unknown one nothing', async () => {
    const c = await previewChange(input({ template: '/nodes/{node}/lxc/{vmid}/snapshot', params: { snapname: 'safety' } }));
    expect(c?.summary).toBe("app-02 (CT 112 on pve1): take snapshot 'safety'");
    expect(await previewChange(input({ method: 'PUT', template: '/nodes/{node}/qemu/{vmid}/resize', params: { disk: 'scsi0', size: '+8G' } }))).toEqual({
      summary: 'change guest (node pve1, vmid 112): 2 settings (disk, size)',
      lines: ['disk: scsi0', 'size: +8G'],
    });
    expect(await previewChange(input({ method: 'POST', template: '/nodes/{node}/qemu/{vmid}/not-a-known-write' }))).toBeUndefined();
  });

  it('a volume delete names the volume, its owner, size and date', async () => {
    const reads = { '/nodes/pve1/storage/nas/content': [{ volid: 'nas:backup/vzdump-qemu-112.vma.zst', content: 'backup', vmid: 112, size: 3_435_973_837, ctime: 1_767_225_600 }] };
    const del = (volume: string) =>
      previewChange(
        input({ method: 'DELETE', template: '/nodes/{node}/storage/{storage}/content/{volume}', pathValues: { node: 'pve1', storage: 'nas', volume }, now: Date.UTC(2026, 0, 13, 5) }, reads),
      );
    expect((await del('backup/vzdump-qemu-112.vma.zst'))?.summary).toBe(
      "pve1 storage 'nas': delete backup 'nas:backup/vzdump-qemu-112.vma.zst' of guest 112, 3.2 GiB, made 2026-01-01T00:00:00Z (12 days old)",
    );
    expect((await del('nas:backup/other'))?.summary).toMatch(/'nas:backup\/other'; it does not exist now/);
  });
});
