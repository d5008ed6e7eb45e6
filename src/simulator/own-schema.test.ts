import { describe, expect, it } from 'vitest';
import { loadSchemaFromString } from '../schema/loader.js';
import type { SimEndpoint } from './contract.js';
import { buildApidocTree, DuplicateEndpointError, renderApidoc } from './own-schema.js';

const ep = (method: SimEndpoint['method'], path: string, extra: Partial<SimEndpoint> = {}): SimEndpoint => ({
  method,
  path,
  description: `Do ${method} on ${path}.`,
  parameters: {},
  returns: { type: 'null' },
  permissions: { user: 'all' },
  handler: () => null,
  ...extra,
});

describe('own schema rendering', () => {
  const endpoints = [
    ep('GET', '/widgets'),
    ep('POST', '/widgets/{id}/spin', {
      parameters: { id: { type: 'integer' }, fast: { type: 'boolean', optional: 1 } },
      permissions: { check: ['perm', '/widgets/{id}', ['Sys.Modify']] },
      proxyto: 'node',
      allowtoken: false,
    }),
  ];

  it('builds a path tree with grouping nodes and leaf flags', () => {
    const [root] = buildApidocTree(endpoints);
    expect(root?.path).toBe('/widgets');
    expect(root?.leaf).toBe(0);
    expect(root?.children?.[0]?.path).toBe('/widgets/{id}');
    expect(root?.children?.[0]?.info).toBeUndefined();
    expect(root?.children?.[0]?.children?.[0]).toMatchObject({ path: '/widgets/{id}/spin', text: 'spin', leaf: 1 });
  });

  it('renders apidoc text the schema loader reads back', () => {
    const model = loadSchemaFromString(renderApidoc(endpoints), { kind: 'simulator' });
    const spin = model.get('POST', '/widgets/{id}/spin');
    expect(spin).toMatchObject({ allowtoken: false, proxyto: 'node', permissions: { check: ['perm', '/widgets/{id}', ['Sys.Modify']] } });
    expect(spin?.params.map((p) => [p.name, p.optional])).toEqual([
      ['id', false],
      ['fast', true],
    ]);
    expect(model.hasPath('/widgets/{id}')).toBe(true);
  });

  it('refuses two endpoints for one method and path', () => {
    expect(() => buildApidocTree([ep('GET', '/a'), ep('GET', '/a')])).toThrow(DuplicateEndpointError);
  });
});
