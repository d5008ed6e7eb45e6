import { beforeAll, describe, expect, it } from 'vitest';
import { loadSchemaFromFile } from '../schema/loader.js';
import type { ApiModel, HttpMethod } from '../schema/model.js';
import { OFFICIAL_SCHEMA_SKIP_MESSAGE, hasOfficialSchema, officialSchemaFile } from '../schema/official-schemas.js';
import { InvalidCallError, resolveRequest } from './request.js';

describe.skipIf(!hasOfficialSchema('9.1'))(`parameter values against the 9.1 schema (skipped when absent: ${OFFICIAL_SCHEMA_SKIP_MESSAGE})`, () => {
  let model: ApiModel;
  beforeAll(async () => {
    model = await loadSchemaFromFile(officialSchemaFile('9.1'));
  });
  const call = (method: HttpMethod, path: string, params: Record<string, unknown>) => () => resolveRequest(model, method, path, params);
  const config = (params: Record<string, unknown>) => call('PUT', '/nodes/{node}/qemu/{vmid}/config', { node: 'pve1', vmid: 100, ...params });

  it('accepts what operators write', () => {
    for (const params of [
      { memory: 4096 },
      { memory: '4096' },
      { memory: 'current=8192' },
      { net0: 'virtio,bridge=vmbr0' },
      { net0: 'virtio=BC:24:11:00:00:01,bridge=vmbr0,firewall=1' },
      { scsi0: 'local-lvm:32' },
      { scsi0: 'local-lvm:vm-100-disk-0,size=32G,discard=on,ssd=1' },
      { delete: 'unused0,net1', tags: 'a;b', cores: 2, onboot: true, agent: '1', boot: 'order=scsi0;net0' },
      { delete: ['unused0', 'net1'], onboot: 0, description: 'web "frontend", v2' },
    ]) {
      expect(config(params), JSON.stringify(params)).not.toThrow();
    }
    expect(call('POST', '/cluster/bulk-action/guest/shutdown', { vms: [100, 101] })).not.toThrow();
    expect(call('POST', '/nodes/{node}/vzdump', { node: 'pve1', vmid: '100,101', mode: 'snapshot', 'prune-backups': 'keep-last=3' })).not.toThrow();
    expect(call('PUT', '/nodes/{node}/lxc/{vmid}/config', { node: 'pve1', vmid: 100, mp0: 'local-lvm:8,mp=/data', net0: 'name=eth0,bridge=vmbr0,ip=dhcp', memory: 512 })).not.toThrow();
  });

  it('refuses a size with a unit where the schema wants MiB, naming the expected form', () => {
    expect(config({ memory: '8G' })).toThrow(InvalidCallError);
    expect(config({ memory: '8G' })).toThrow(
      /invalid parameter for PUT \/nodes\/\{node\}\/qemu\/\{vmid\}\/config: memory: current \(its default key\) got "8G", expected an integer ≥ 16, in MiB \(syntax \[current=\]<integer>\)\. Nothing was sent/,
    );
    expect(config({ memory: 8 })).toThrow(/memory: current \(its default key\) 8 is out of range, expected an integer ≥ 16, in MiB/);
  });

  it('refuses wrong types, ranges, enums, formats, unknown and repeated keys', () => {
    expect(config({ cores: 'two' })).toThrow(/cores: got "two", expected an integer ≥ 1/);
    expect(config({ cores: 0 })).toThrow(/cores: 0 is out of range/);
    expect(config({ onboot: 'maybe' })).toThrow(/onboot: got "maybe", expected a boolean/);
    expect(config({ ostype: 'linux' })).toThrow(/ostype: got "linux", expected one of other, .*l26/);
    expect(config({ net0: 'virtio,bridg=vmbr0' })).toThrow(/net0: unknown key 'bridg'; known keys: bridge, /);
    expect(config({ net0: 'virtio,bridge=vmbr0,bridge=vmbr1' })).toThrow(/net0: key 'bridge' is given twice/);
    expect(config({ net0: 'virtio,firewall=maybe' })).toThrow(/net0: firewall got "maybe", expected a boolean/);
    expect(config({ scsi0: 'local-lvm:32,size=big' })).toThrow(/scsi0: size got "big", expected a size/);
    expect(call('GET', '/nodes/{node}/qemu', { node: 'pve1', full: 2 })).toThrow(/full: got 2, expected a boolean/);
    expect(call('POST', '/cluster/bulk-action/guest/shutdown', { vms: [100, 12] })).toThrow(/vms: item 12: got "12", expected a VMID|vms: .*12/);
    // Every problem is named at once.
    expect(config({ cores: 'two', sockets: -1 })).toThrow(/invalid parameters for .*cores: .*; sockets: /);
  });

  it('says what a pve-configid value stands for: a snapshot name is not a configuration key', () => {
    const snapshot = call('POST', '/nodes/{node}/qemu/{vmid}/snapshot', { node: 'pve1', vmid: 100, snapname: 'before upgrade' });
    expect(snapshot).toThrow(/snapname: got "before upgrade", expected a snapshot name \(a letter, then letters, digits, '-' or '_'\), e\.g\. 'before_upgrade'/);
    expect(snapshot).not.toThrow(/configuration key/);
    // In the path the same value gets the same hint, before anything is sent.
    const rollback = call('POST', '/nodes/{node}/qemu/{vmid}/snapshot/{snapname}/rollback', { node: 'pve1', vmid: 100, snapname: '1st' });
    expect(rollback).toThrow(/path value snapname '1st' is not a snapshot name/);
    // Configuration keys keep their own hint.
    expect(config({ delete: 'net0,0bad' })).toThrow(/list item "0bad" is not a configuration key \(a letter/);
  });
});
