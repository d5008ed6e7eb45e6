import { beforeAll, describe, expect, it } from 'vitest';
import { loadSchemaFromFile } from '../schema/loader.js';
import type { ApiModel } from '../schema/model.js';
import { hasOfficialSchema, officialSchemaFile } from '../schema/official-schemas.js';
import { resolveRequest } from './request.js';

describe.skipIf(!hasOfficialSchema('9.1'))('the params as PVE reads them', () => {
  let model: ApiModel;
  beforeAll(async () => {
    model = await loadSchemaFromFile(officialSchemaFile('9.1'));
  });
  const params = (method: 'POST' | 'PUT', path: string, p: Record<string, unknown>) => ({ ...resolveRequest(model, method, path, p).params });
  const CONFIG = '/nodes/pve1/qemu/100/config';

  it('renames property-string aliases to their targets and leaves every other part as written', () => {
    expect(params('PUT', CONFIG, { scsi1: 'volume=/dev/sda,iops_rd_length=5,cache=none' })).toEqual({ scsi1: 'file=/dev/sda,iops_rd_max_length=5,cache=none' });
    expect(params('PUT', CONFIG, { net0: 'virtio=BC:24:11:00:00:01,bridge=vmbr0' })).toEqual({ net0: 'virtio=BC:24:11:00:00:01,bridge=vmbr0' });
  });

  it("reads a VM's cdrom as ide2 with a CD medium, and delete of cdrom as ide2", () => {
    expect(params('PUT', CONFIG, { cdrom: 'local:iso/debian.iso' })).toEqual({ ide2: 'local:iso/debian.iso,media=cdrom' });
    expect(params('POST', '/nodes/pve1/qemu', { vmid: 150, cdrom: '/dev/sda,media=disk' })).toEqual({ vmid: 150, ide2: '/dev/sda,media=disk' });
    expect(params('PUT', CONFIG, { cdrom: 'volume=/dev/sda,media=disk' })).toEqual({ ide2: 'file=/dev/sda,media=disk' });
    expect(params('PUT', CONFIG, { delete: 'net1,cdrom' })).toEqual({ delete: 'net1,ide2' });
    // Elsewhere cdrom is not qemu-server's alias.
    expect(params('PUT', CONFIG, { cdrom: '0' })).toEqual({ cdrom: '0' });
  });

  it('drops null, which the client does not send, and joins arrays as the client does', () => {
    expect(params('POST', '/nodes/pve1/vzdump', { vmid: '100', remove: null, exclude: ['101', '102'] })).toEqual({ vmid: '100', exclude: '101,102' });
  });
});
