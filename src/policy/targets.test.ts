import { beforeAll, describe, expect, it } from 'vitest';
import { loadSchemaFromFile } from '../schema/loader.js';
import type { ApiModel, Operation, ParamSpec } from '../schema/model.js';
import { OFFICIAL_SCHEMA_SKIP_MESSAGE, hasOfficialSchema, officialSchemaFile } from '../schema/official-schemas.js';
import { callTargets } from './targets.js';
import { parseVolume } from './volumes.js';

describe('volume owners', () => {
  it('reads the guest a volume belongs to in every storage naming scheme', () => {
    expect(parseVolume('local-lvm:vm-111-disk-0')?.owners).toEqual([111]);
    expect(parseVolume('local:111/vm-111-disk-0.qcow2')?.owners).toEqual([111]);
    expect(parseVolume('zfs:subvol-112-disk-1')?.owners).toEqual([112]);
    expect(parseVolume('local-lvm:base-100-disk-0/vm-101-disk-0')?.owners.sort()).toEqual([100, 101]);
    expect(parseVolume('nas:backup/vzdump-qemu-105-2026_01_01-00_00_00.vma.zst')?.owners).toEqual([105]);
    expect(parseVolume('local:iso/debian-12.iso')?.owners).toEqual([]);
    expect(parseVolume('local-lvm:32')).toMatchObject({ allocation: true, owners: [] });
    expect(parseVolume('/dev/sda')).toMatchObject({ hostPath: '/dev/sda' });
    expect(parseVolume('none')).toBeUndefined();
  });
});

/** A value of the parameter's kind that names target 123 / node `pvex` / storage `st1`. */
function sample(spec: ParamSpec): unknown {
  const format = typeof spec.format === 'string' ? spec.format : typeof spec.items?.format === 'string' ? spec.items.format : undefined;
  if (spec.type === 'array') return [sampleOf(format)];
  return sampleOf(format);
}

function sampleOf(format: string | undefined): unknown {
  switch (format) {
    case 'pve-vmid':
    case 'pve-vmid-list':
      return '123';
    case 'pve-node':
    case 'pve-node-list':
    case 'pve-ha-node-list':
      return 'pvex';
    case 'pve-storage-id':
    case 'pve-storage-id-list':
      return 'st1';
    case 'pve-ha-resource-or-vm-id':
    case 'pve-ha-resource-id-list':
      return 'vm:123';
    case 'pve-poolid':
      return 'pool1';
    default:
      return 'st1:vm-123-disk-0';
  }
}

const TARGET_FORMATS =
  /^(?:pve-vmid(?:-list)?|pve-node(?:-list)?|pve-ha-node-list|pve-storage-id(?:-list)?|pve-ha-resource-or-vm-id|pve-ha-resource-id-list|pve-poolid|pve-volume-id(?:-or-qm-path|-or-absolute-path)?)$/;
/** Parameters of these formats that name what a call leaves out or looks at, not what it acts on. */
const NOT_ACTED_ON = new Set(['exclude']);

describe.skipIf(!hasOfficialSchema('9.1'))(`targets of every PVE 9.1 operation (skipped when absent: ${OFFICIAL_SCHEMA_SKIP_MESSAGE})`, () => {
  let model: ApiModel;
  beforeAll(async () => {
    model = await loadSchemaFromFile(officialSchemaFile('9.1'));
  });

  it('every parameter whose format names a guest, node, storage, pool, HA resource or volume is read as a target', () => {
    const missed: string[] = [];
    let checked = 0;
    for (const op of model.operations as Operation[]) {
      for (const spec of op.params) {
        if (spec.inPath || NOT_ACTED_ON.has(spec.name)) continue;
        const format = typeof spec.format === 'string' ? spec.format : typeof spec.items?.format === 'string' ? spec.items.format : undefined;
        if (!format || !TARGET_FORMATS.test(format)) continue;
        checked++;
        const t = callTargets(op, {}, { [spec.name]: sample(spec) });
        const found = t.vmids.includes(123) || t.dataOf.includes(123) || t.nodes.includes('pvex') || t.storages.includes('st1') || t.pools.includes('pool1') || t.poolGuests.includes('pool1');
        if (!found) missed.push(`${op.key} ${spec.name} (${format})`);
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(missed).toEqual([]);
  });

  it('disk and mount-point property strings give up the owners of the volumes they name', () => {
    const missed: string[] = [];
    for (const op of model.operations as Operation[]) {
      if (op.method === 'GET') continue;
      for (const spec of op.params) {
        if (typeof spec.format !== 'object' || spec.family?.index) continue;
        const keys = Object.entries(spec.format).filter(([, n]) => typeof n.format === 'string' && /^pve-(?:volume-id|volume-id-or-qm-path|volume-id-or-absolute-path|lxc-mp-string)$/.test(n.format));
        for (const [key] of keys) {
          const t = callTargets(op, {}, { [spec.name]: `${key}=st1:vm-123-disk-0` });
          if (!t.dataOf.includes(123) && !t.vmids.includes(123)) missed.push(`${op.key} ${spec.name}.${key}`);
        }
      }
    }
    expect(missed).toEqual([]);
  });
});
