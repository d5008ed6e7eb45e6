import { describe, it, expect } from 'vitest';
import { miniModel } from '../sandbox/fixtures/mini-sdk.js';
import { ApiModel, type Operation } from '../../src/schema/model.js';
import { pathCatalogModel, pathCatalogOf, pathCatalogSchema } from '../../src/script/path-catalog.js';

describe('path catalog', () => {
  const model = miniModel();
  const rebuilt = pathCatalogModel(pathCatalogSchema.parse(JSON.parse(JSON.stringify(pathCatalogOf(model)))));

  it('survives JSON and answers path lookups as the full model does', () => {
    expect(rebuilt.hash).toBe(model.hash);
    expect([...rebuilt.paths].sort()).toEqual([...model.paths].sort());
    const probes: Array<[Operation['method'], string]> = [
      ['GET', '/nodes/pve1/qemu'],
      ['POST', '/nodes/{node}/qemu/{vmid}/status/start'],
      ['DELETE', '/nodes/pve1/qemu'],
      ['GET', '/nodes/pve1/qemuu'],
      ['PUT', '/nodes/pve1/qemu/100/config'],
    ];
    const verdict = (m: ReturnType<ApiModel['matchPath']>) => (m?.operation ? { op: m.operation.key } : m && { pathOnly: m.path });
    for (const [method, path] of probes) expect(verdict(rebuilt.matchPath(method, path))).toEqual(verdict(model.matchPath(method, path)));
    expect(rebuilt.byPath('/nodes/{node}/qemu').map((op) => op.method)).toEqual(['GET', 'POST']);
  });

  it('keeps path nodes that only group sub-paths', () => {
    const grouped = new ApiModel([], 'h', { kind: 'string' }, ['/nodes', '/nodes/{node}']);
    expect(pathCatalogModel(pathCatalogOf(grouped)).matchPath('GET', '/nodes/pve1')).toEqual({ path: '/nodes/{node}' });
  });

  it('rejects a malformed catalog', () => {
    expect(pathCatalogSchema.safeParse({ hash: 'h', paths: ['nodes'], operations: [] }).success).toBe(false);
    expect(pathCatalogSchema.safeParse({ hash: 'h', paths: [], operations: [{ method: 'PATCH', path: '/x' }] }).success).toBe(false);
  });
});
