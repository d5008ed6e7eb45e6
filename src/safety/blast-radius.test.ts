import { describe, expect, it } from 'vitest';
import { BlastReads, blastRadiusLines, MAX_BLAST_ITEMS, radiusBeforeSteps, shownRadius } from './blast-radius.js';
import { bootKey, disksOf } from './blast-radius-guests.js';

describe('BlastReads', () => {
  it('reads each path once, records failures and non-lists, and finishes incomplete when one failed', async () => {
    let calls = 0;
    const r = new BlastReads(async (path) => {
      calls++;
      if (path === '/bad') throw Object.assign(new Error('nope'), { status: 403 });
      return path === '/obj' ? { a: 1 } : [{ x: 1 }, 'junk'];
    });
    expect(await r.list('/list')).toEqual([{ x: 1 }]);
    expect(await r.list('/list')).toEqual([{ x: 1 }]);
    expect(await r.list('/obj')).toBeUndefined();
    expect(await r.object('/bad')).toBeUndefined();
    expect(calls).toBe(3);
    const radius = r.finish('pool-delete', 'x', []);
    expect(radius.reads).toEqual(['GET /list', 'GET /obj', 'GET /bad']);
    expect(radius.failed).toEqual(['GET /obj: the answer is not a list', 'GET /bad: 403 nope']);
    expect(radius.complete).toBe(false);
    expect(radius.summary).toBe('x; INCOMPLETE: 2 reads failed, so it may reach more and counts as the worst case');
  });

  it('keeps at most MAX_BLAST_ITEMS, escapes invisible characters, and binds only what was shown', () => {
    const r = new BlastReads(async () => []);
    const items = Array.from({ length: MAX_BLAST_ITEMS + 5 }, (_, i) => ({ kind: 'guest' as const, what: `g${i}\u202E`, effect: 'e' }));
    const radius = r.finish('migration', 'moves', items);
    expect(radius.items).toHaveLength(MAX_BLAST_ITEMS);
    expect(radius.items[0]?.what).toBe('g0\\u{202E}');
    expect(radius.summary).toBe('moves (5 more not listed)');
    expect(shownRadius(radius)).toEqual({ family: 'migration', summary: radius.summary, items: radius.items, complete: true });
    expect(blastRadiusLines(radius, 2)).toEqual(['blast radius: moves (5 more not listed)', '  g0\\u{202E}: e', '  g1\\u{202E}: e', `  … ${MAX_BLAST_ITEMS - 2} more (the plan lists them)`]);
    expect(radiusBeforeSteps(radius, 2).summary).toBe('moves (5 more not listed) [as it is now, before steps 1–2 of this plan are made]');
  });
});

describe('disks and the boot disk', () => {
  it('a VM boots from the first disk of its boot order, else bootdisk, else the first scsi/virtio/sata/ide disk', () => {
    const config = {
      scsi0: 'local-lvm:vm-1-disk-0,size=32G',
      virtio1: 'ceph:vm-1-disk-1,size=1T',
      ide2: 'local:iso/x.iso,media=cdrom',
      efidisk0: 'local-lvm:vm-1-disk-2,size=4M',
      net0: 'virtio,bridge=vmbr0',
    };
    expect(disksOf('qemu', config).map((d) => [d.key, d.storage, d.size])).toEqual([
      ['efidisk0', 'local-lvm', 4 * 1024 ** 2],
      ['scsi0', 'local-lvm', 32 * 1024 ** 3],
      ['virtio1', 'ceph', 1024 ** 4],
    ]);
    expect(bootKey('qemu', { ...config, boot: 'order=net0;virtio1;scsi0' })).toBe('virtio1');
    expect(bootKey('qemu', { ...config, bootdisk: 'virtio1' })).toBe('virtio1');
    expect(bootKey('qemu', config)).toBe('scsi0');
    expect(bootKey('qemu', { ...config, boot: 'order=net0' })).toBeUndefined();
    expect(bootKey('lxc', { rootfs: 'local-lvm:vm-2-disk-0,size=8G' })).toBe('rootfs');
  });
});
