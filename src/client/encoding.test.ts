import { describe, expect, it } from 'vitest';
import { encodeRequest, normalizeApiPath } from './encoding.js';
import { PveInputError } from './errors.js';

describe('encodeRequest', () => {
  it('substitutes and percent-encodes path placeholders, removing them from params', () => {
    const upid = 'UPID:pve1:0003A5F1:0112D3C4:6650A1B2:qmstart:100:root@pam!mcp:';
    const r = encodeRequest('GET', '/nodes/{node}/tasks/{upid}/status', { node: 'pve1', upid });
    expect(r.path).toBe(`/nodes/pve1/tasks/${encodeURIComponent(upid)}/status`);
    expect(r.path).toContain('UPID%3Apve1%3A');
    expect(r.query).toBe('');
    expect(r.body).toBeUndefined();
  });

  it('encodes slashes inside a volume id so the whole id stays one value', () => {
    const r = encodeRequest('DELETE', '/nodes/{node}/storage/{storage}/content/{volume}', {
      node: 'pve1',
      storage: 'local',
      volume: 'local:iso/debian 12.iso',
    });
    expect(r.path).toBe('/nodes/pve1/storage/local/content/local%3Aiso%2Fdebian%2012.iso');
  });

  it('puts GET and DELETE params in the query string, never a body', () => {
    const get = encodeRequest('GET', '/cluster/resources', { type: 'vm', full: true });
    expect(get).toEqual({ path: '/cluster/resources', query: 'type=vm&full=1', body: undefined });
    const del = encodeRequest('DELETE', '/nodes/{node}/qemu/{vmid}', { node: 'n1', vmid: 100, purge: false });
    expect(del).toEqual({ path: '/nodes/n1/qemu/100', query: 'purge=0', body: undefined });
  });

  it('form-encodes POST/PUT bodies with booleans as 1/0 and skips undefined/null', () => {
    const r = encodeRequest('POST', '/nodes/{node}/qemu', {
      node: 'pve1',
      vmid: 101,
      name: 'web 1',
      net0: 'virtio,bridge=vmbr0,firewall=1',
      start: true,
      agent: undefined,
      description: null,
    });
    expect(r.query).toBe('');
    expect(new URLSearchParams(r.body).getAll('net0')).toEqual(['virtio,bridge=vmbr0,firewall=1']);
    expect(Object.fromEntries(new URLSearchParams(r.body))).toEqual({
      vmid: '101',
      name: 'web 1',
      net0: 'virtio,bridge=vmbr0,firewall=1',
      start: '1',
    });
  });

  it('sends no body when a POST has no params left', () => {
    const r = encodeRequest('POST', '/nodes/{node}/qemu/{vmid}/status/start', { node: 'a', vmid: 100 });
    expect(r.body).toBeUndefined();
  });

  it('comma-joins arrays by default and repeats keys for declared array params', () => {
    const joined = encodeRequest('PUT', '/nodes/{node}/qemu/{vmid}/config', { node: 'a', vmid: 1, delete: ['net1', 'scsi2'] });
    expect(joined.body).toBe('delete=net1%2Cscsi2');
    const repeated = encodeRequest('POST', '/x', { vms: [100, 101], flag: [true] }, new Set(['vms']));
    expect(new URLSearchParams(repeated.body).getAll('vms')).toEqual(['100', '101']);
    expect(new URLSearchParams(repeated.body).get('flag')).toBe('1');
  });

  it('rejects missing path values, objects and non-finite numbers with PveInputError', () => {
    expect(() => encodeRequest('GET', '/nodes/{node}/qemu', {})).toThrow(/params\.node/);
    expect(() => encodeRequest('GET', '/nodes/{node}/qemu', { node: { a: 1 } })).toThrow(PveInputError);
    expect(() => encodeRequest('POST', '/x', { cfg: { a: 1 } })).toThrow(/property strings/);
    expect(() => encodeRequest('POST', '/x', { n: Number.NaN })).toThrow(/finite/);
  });

  it('leaves already-concrete paths alone and rejects query strings in paths', () => {
    expect(encodeRequest('GET', '/nodes/pve1/qemu/100/status/current').path).toBe('/nodes/pve1/qemu/100/status/current');
    expect(() => encodeRequest('GET', '/nodes?type=vm')).toThrow(/params/);
    expect(() => encodeRequest('GET', 'nodes')).toThrow(/start with/);
  });
});

describe('normalizeApiPath', () => {
  it('drops an /api2/json prefix and trailing slashes', () => {
    expect(normalizeApiPath('/api2/json/nodes/')).toBe('/nodes');
    expect(normalizeApiPath('/api2/json')).toBe('/');
    expect(normalizeApiPath('/api2/jsonx')).toBe('/api2/jsonx');
  });
});
