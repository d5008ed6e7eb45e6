import { describe, expect, it } from 'vitest';
import { testModel } from '../safety/helpers/model.js';
import { copyJsonData } from '../../src/policy/call-shape.js';
import { InvalidCallError, resolveRequest } from '../../src/policy/request.js';

const model = testModel();

describe('resolveRequest', () => {
  it('substitutes placeholders from params, removes them, and encodes the URL', () => {
    const r = resolveRequest(model, 'POST', '/nodes/{node}/qemu/{vmid}/status/start', { node: 'pve1', vmid: 101, timeout: 5 });
    expect(r.operation.key).toBe('POST /nodes/{node}/qemu/{vmid}/status/start');
    expect(r.concretePath).toBe('/nodes/pve1/qemu/101/status/start');
    expect(r.urlPath).toBe('/nodes/pve1/qemu/101/status/start');
    expect({ ...r.params }).toEqual({ timeout: 5 });
    expect({ ...r.pathValues }).toEqual({ node: 'pve1', vmid: '101' });
  });

  it('accepts concrete paths and drops params that repeat a path value', () => {
    const r = resolveRequest(model, 'GET', '/nodes/pve1/qemu/101/config', { vmid: 101 });
    expect(r.operation.path).toBe('/nodes/{node}/qemu/{vmid}/config');
    expect(Object.keys(r.params)).toEqual([]);
    expect(() => resolveRequest(model, 'GET', '/nodes/pve1/qemu/101/config', { vmid: 102 })).toThrow(/conflicts/);
  });

  it('lets a volume ID carry slashes and encodes it as one segment', () => {
    const r = resolveRequest(model, 'GET', '/nodes/{node}/storage/{storage}/content/{volume}', { node: 'pve1', storage: 'local', volume: 'local:iso/debian-12.iso' });
    expect(r.pathValues.volume).toBe('local:iso/debian-12.iso');
    expect(r.urlPath).toBe('/nodes/pve1/storage/local/content/local%3Aiso%2Fdebian-12.iso');
    const concrete = resolveRequest(model, 'GET', '/nodes/pve1/storage/local/content/local:iso/debian-12.iso', {});
    expect(concrete.urlPath).toBe(r.urlPath);
    expect(() => resolveRequest(model, 'GET', '/nodes/{node}/storage/{storage}/content/{volume}', { node: 'pve1', storage: 'local', volume: 'local:iso/../../etc' })).toThrow(/dot segment/);
  });

  it('lets an IPset entry carry its prefix length or alias scope and encodes it as one segment', () => {
    const r = resolveRequest(model, 'DELETE', '/cluster/firewall/ipset/{name}/{cidr}', { name: 'office', cidr: 'fd00::/64' });
    expect({ ...r.pathValues }).toEqual({ name: 'office', cidr: 'fd00::/64' });
    expect(r.urlPath).toBe('/cluster/firewall/ipset/office/fd00%3A%3A%2F64');
    expect(resolveRequest(model, 'GET', '/cluster/firewall/ipset/office/dc/servers', {}).pathValues.cidr).toBe('dc/servers');
    // Only the last parameter may span segments: the set name stays one segment.
    expect(() => resolveRequest(model, 'GET', '/cluster/firewall/ipset/{name}/{cidr}', { name: 'a/b', cidr: '10.0.0.1' })).toThrow(/characters outside/);
    expect(() => resolveRequest(model, 'GET', '/cluster/firewall/ipset/{name}/{cidr}', { name: 'office', cidr: '10.0.0.0/../24' })).toThrow(/dot segment/);
  });

  it.each([
    ['/nodes/pve1/../access/users', 'dot segment'],
    ['/nodes/./qemu', 'dot segment'],
    ['/nodes/pve1%2F..%2Faccess/qemu', "'%'"],
    ['/nodes/pve1/qemu?x=1', "'?'"],
    ['/nodes/pve1/qemu#x', "'#'"],
    ['/nodes/pve1\n/qemu', 'control character'],
    ['/nodes/pve 1/qemu', 'whitespace'],
    ['/nodes//qemu', 'empty segment'],
    ['nodes/pve1/qemu', "must start with '/'"],
    ['/nodes/pve*/qemu', 'characters outside'],
    ['/nodes/x{node}/qemu', 'mixes text and a placeholder'],
  ])('rejects the path %j (%s)', (path, reason) => {
    expect(() => resolveRequest(model, 'GET', path, {})).toThrow(reason);
  });

  it('rejects unsafe placeholder values', () => {
    expect(() => resolveRequest(model, 'GET', '/nodes/{node}/qemu', { node: '../../src/access' })).toThrow(/outside|dot/);
    expect(() => resolveRequest(model, 'GET', '/nodes/{node}/qemu', { node: 'pve1/qemu' })).toThrow(/outside/);
    expect(() => resolveRequest(model, 'GET', '/nodes/{node}/qemu', { node: { toString: 'x' } })).toThrow(/string or a whole number/);
    expect(() => resolveRequest(model, 'GET', '/nodes/{node}/qemu', {})).toThrow(/\{node\} has no value/);
    expect(() => resolveRequest(model, 'GET', '/nodes/pve1/qemu/0101/config', {})).toThrow(/not a VMID/);
  });

  it('explains unknown paths and methods with hints', () => {
    try {
      resolveRequest(model, 'GET', '/nodes/pve1/qemu/101/confg', {});
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(InvalidCallError);
      // Edit distance: the misspelt segment's nearest path comes first.
      expect((err as Error).message).toMatch(/no API path matches \/nodes\/pve1\/qemu\/101\/confg\. Did you mean \/nodes\/\{node\}\/qemu\/\{vmid\}\/config, .*search_api/);
    }
    expect(() => resolveRequest(model, 'GET', '/cluster/resource', {})).toThrow(/Did you mean \/cluster\/resources[,?]/);
    expect(() => resolveRequest(model, 'PUT', '/nodes/pve1/qemu/101/status/start', {})).toThrow(/PUT is not an operation of .*supports POST/);
  });

  it('strips an /api2/json prefix', () => {
    expect(resolveRequest(model, 'GET', '/api2/json/version', undefined).operation.path).toBe('/version');
  });
});

describe('copyJsonData', () => {
  it('makes null-prototype copies and refuses prototype keys', () => {
    const parsed = JSON.parse('{"a":{"b":[1,{"c":true}]}}') as unknown;
    const copy = copyJsonData(parsed) as Record<string, Record<string, unknown>>;
    expect(Object.getPrototypeOf(copy)).toBeNull();
    expect(Object.getPrototypeOf(copy.a)).toBeNull();
    expect(() => copyJsonData(JSON.parse('{"__proto__":{"polluted":1}}'))).toThrow(/params\.__proto__ is a forbidden key/);
    expect(() => copyJsonData({ x: { constructor: { prototype: {} } } })).toThrow(/params\.x\.constructor/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses non-JSON values, accessors, deep nesting and non-plain objects', () => {
    expect(() => copyJsonData({ n: Number.NaN })).toThrow(/finite/);
    expect(() => copyJsonData({ f: () => 1 })).toThrow(/function/);
    expect(() => copyJsonData({ d: new Date() })).toThrow(/not a plain object/);
    const getter = Object.defineProperty({}, 'g', { get: () => 1, enumerable: true });
    expect(() => copyJsonData(getter)).toThrow(/accessor/);
    let deep: unknown = 1;
    for (let i = 0; i < 40; i++) deep = { deep };
    expect(() => copyJsonData(deep)).toThrow(/deeper than/);
  });

  it('rejects params that are not an object', () => {
    expect(() => resolveRequest(model, 'GET', '/version', [1, 2])).toThrow(/params must be an object/);
  });
});
