import { describe, expect, it } from 'vitest';
import { ApiModel, templateParams, type Operation } from './model.js';

function op(method: Operation['method'], path: string): Operation {
  return {
    key: `${method} ${path}`,
    method,
    path,
    pathParams: templateParams(path),
    params: [],
    returns: {},
    allowtoken: true,
    protected: false,
    description: '',
    summary: '',
    risk: method === 'GET' ? 'read' : 'write',
  };
}

const model = new ApiModel(
  [
    op('GET', '/nodes'),
    op('GET', '/nodes/{node}'),
    op('GET', '/nodes/{node}/qemu'),
    op('POST', '/nodes/{node}/qemu'),
    op('GET', '/nodes/{node}/qemu/{vmid}/status/current'),
    op('POST', '/nodes/{node}/qemu/{vmid}/status/start'),
    op('GET', '/nodes/{node}/storage/{storage}/content/{volume}'),
    op('GET', '/cluster/firewall/ipset/{name}/{cidr}'),
    op('GET', '/nodes/{node}/{kind}'),
  ],
  'hash',
  { kind: 'string' },
);

describe('ApiModel.matchPath', () => {
  it('resolves a concrete path and extracts the path values', () => {
    const m = model.matchPath('POST', '/nodes/pve1/qemu/101/status/start');
    expect(m?.operation?.key).toBe('POST /nodes/{node}/qemu/{vmid}/status/start');
    expect(m && 'pathValues' in m ? m.pathValues : undefined).toEqual({ node: 'pve1', vmid: '101' });
  });

  it('prefers literal segments over parameters', () => {
    expect(model.matchPath('GET', '/nodes/pve1/qemu')?.operation?.path).toBe('/nodes/{node}/qemu');
    expect(model.matchPath('GET', '/nodes/pve1/lxc')?.operation?.path).toBe('/nodes/{node}/{kind}');
  });

  it('matches templates given as-is', () => {
    expect(model.matchPath('GET', '/nodes/{node}/qemu')?.operation?.path).toBe('/nodes/{node}/qemu');
  });

  it('lets the volume parameter take the rest of the path', () => {
    const m = model.matchPath('GET', '/nodes/pve1/storage/local/content/local:iso/debian.iso');
    expect(m && 'pathValues' in m ? m.pathValues.volume : undefined).toBe('local:iso/debian.iso');
  });

  it('lets an IPset entry take the rest of the path (a CIDR or a scoped alias has a slash)', () => {
    const m = model.matchPath('GET', '/cluster/firewall/ipset/office/10.0.0.0/24');
    expect(m && 'pathValues' in m ? m.pathValues : undefined).toEqual({ name: 'office', cidr: '10.0.0.0/24' });
    const plain = model.matchPath('GET', '/cluster/firewall/ipset/office/10.0.0.7');
    expect(plain && 'pathValues' in plain ? plain.pathValues.cidr : undefined).toBe('10.0.0.7');
  });

  it('reports a known path with an unknown method', () => {
    const m = model.matchPath('DELETE', '/nodes/pve1/qemu');
    expect(m).toEqual({ path: '/nodes/{node}/qemu' });
  });

  it('returns undefined for unknown paths', () => {
    expect(model.matchPath('GET', '/cluster/nothing')).toBeUndefined();
    expect(model.matchPath('GET', '/nodes/pve1/qemu/101/status/current/extra')).toBeUndefined();
  });
});
