import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SchemaShapeError } from './errors.js';
import { loadSchemaFromString } from './loader.js';
import { firstSentence } from './normalize.js';

const fixture = readFileSync(new URL('./fixtures/mini-apidoc.js', import.meta.url), 'utf8');
const model = loadSchemaFromString(fixture);

describe('normalizeSchema', () => {
  it('turns each method of each path node into an operation', () => {
    const create = model.get('POST', '/nodes/{node}/qemu');
    expect(create).toMatchObject({
      key: 'POST /nodes/{node}/qemu',
      method: 'POST',
      path: '/nodes/{node}/qemu',
      pathParams: ['node'],
      allowtoken: true,
      protected: true,
      proxyto: 'node',
      name: 'create_vm',
      summary: 'Make a new virtual machine',
      risk: 'write',
      permissions: { check: ['and', ['perm', '/vms/{vmid}', ['VM.Allocate']], expect.any(Array)] },
    });
    expect(create?.returns).toEqual({ type: 'string', description: 'Task ID.' });
  });

  it('puts path params first, required, and keeps every ParamSpec field', () => {
    const params = model.get('POST', '/nodes/{node}/qemu')?.params ?? [];
    expect(params[0]).toMatchObject({ name: 'node', inPath: true, optional: false, format: 'pve-node' });
    expect(params.find((p) => p.name === 'vmid')).toEqual({
      name: 'vmid',
      type: 'integer',
      format: 'pve-vmid',
      minimum: 100,
      maximum: 999999999,
      optional: false,
      inPath: false,
      description: 'Numeric machine ID.',
    });
    expect(params.find((p) => p.name === 'ostype')?.enum).toEqual(['l26', 'win11', 'other']);
    expect(params.find((p) => p.name === 'memory')).toMatchObject({ optional: true, default: 512, minimum: 16 });
  });

  it('expands indexed options into a family', () => {
    const params = model.get('POST', '/nodes/{node}/qemu')?.params ?? [];
    const nets = params.filter((p) => p.family?.base === 'net');
    expect(nets.map((p) => p.name)).toEqual(Array.from({ length: 32 }, (_, i) => `net${i}`));
    expect(nets[5]).toMatchObject({ name: 'net5', family: { base: 'net', index: 5 }, optional: true });
    expect(nets[0]?.format).toMatchObject({ model: { enum: ['virtio', 'e1000'] } });
    expect(params.filter((p) => p.family?.base === 'scsi')).toHaveLength(31);
    expect(params.some((p) => p.name.includes('['))).toBe(false);
  });

  it('sizes families PVE adds later from the stated range, else a default', () => {
    const text = JSON.stringify([
      {
        path: '/x',
        info: { POST: { parameters: { properties: { 'slot[n]': { type: 'string', description: 'A slot (n is 0 to 2).' }, 'port[n]': { type: 'string' } } } } },
      },
    ]);
    const params = loadSchemaFromString(text).get('POST', '/x')?.params ?? [];
    expect(params.filter((p) => p.family?.base === 'slot').map((p) => p.name)).toEqual(['slot0', 'slot1', 'slot2']);
    expect(params.filter((p) => p.family?.base === 'port')).toHaveLength(32);
  });

  it('defaults allowtoken to true, protected to false, and keeps an explicit allowtoken 0', () => {
    expect(model.get('GET', '/version')).toMatchObject({ allowtoken: true, protected: false });
    expect(model.get('PUT', '/access/password')?.allowtoken).toBe(false);
    expect(model.get('PUT', '/access/password')?.risk).toBe('privileged');
  });

  it('coerces numeric strings, drops nulls and records extra-param acceptance', () => {
    const text = JSON.stringify([
      {
        path: '/x/{id}',
        info: {
          POST: {
            proxyto: null,
            parameters: {
              additionalProperties: '1',
              properties: { id: { type: 'string', optional: '1' }, n: { type: 'integer', minimum: '2', enum: null, default: null } },
            },
          },
        },
      },
    ]);
    const op = loadSchemaFromString(text).get('POST', '/x/{id}');
    expect(op?.additionalParams).toBe(true);
    expect(op && 'proxyto' in op).toBe(false);
    expect(op?.params).toEqual([
      { name: 'id', type: 'string', optional: false, inPath: true },
      { name: 'n', type: 'integer', minimum: 2, optional: false, inPath: false },
    ]);
    expect(op?.returns).toEqual({});
  });

  it('rejects path nodes and methods of the wrong shape, naming every bad field', () => {
    const issuesOf = (tree: unknown): string[] => {
      try {
        loadSchemaFromString(JSON.stringify(tree));
      } catch (error) {
        if (error instanceof SchemaShapeError) return error.issues.map((i) => i.jsonPath);
        throw error;
      }
      throw new Error('the schema was accepted');
    };
    expect(issuesOf([5, { path: 'a b' }, { path: '/c', text: 1, leaf: 'yes', info: [], children: null }])).toEqual(['$[0]', '$[1].path', '$[2].text', '$[2].leaf', '$[2].info', '$[2].children']);
    expect(issuesOf([{ path: '/a', info: { PATCH: {} } }])).toEqual(['$[0].info']);
    expect(issuesOf([{ path: '/a', info: { GET: null } }])).toEqual(['$[0].info.GET']);
    const method = {
      method: 'PATCH',
      name: 5,
      description: [],
      parameters: { properties: 'x', additionalProperties: 'yes' },
      permissions: { check: {}, description: 1, user: false },
      allowtoken: 'x',
      protected: {},
      proxyto: 1,
    };
    expect(issuesOf([{ path: '/a', info: { GET: method } }]).map((p) => p.replace('$[0].info.GET.', ''))).toEqual([
      'method',
      'name',
      'description',
      'parameters.properties',
      'parameters.additionalProperties',
      'permissions.check',
      'permissions.description',
      'permissions.user',
      'allowtoken',
      'protected',
      'proxyto',
    ]);
    expect(issuesOf([{ path: '/a', info: { GET: { parameters: [] } } }])).toEqual(['$[0].info.GET.parameters']);
  });

  it('reads numeric-string flags as numbers and null method fields as absent', () => {
    const text = JSON.stringify([{ path: '/a', info: { GET: { allowtoken: '0', protected: '1', name: null, permissions: { user: 'all', check: null } } } }]);
    const op = loadSchemaFromString(text).get('GET', '/a');
    expect(op).toMatchObject({ allowtoken: false, protected: true, permissions: { user: 'all' } });
    expect(op && ('name' in op || 'check' in (op.permissions ?? {}))).toBe(false);
  });

  it('synthesizes path params the schema forgot to declare', () => {
    const op = loadSchemaFromString('[{"path": "/a/{b}", "info": {"GET": {}}}]').get('GET', '/a/{b}');
    expect(op?.params).toEqual([{ name: 'b', type: 'string', optional: false, inPath: true }]);
  });
});

describe('firstSentence', () => {
  it('cuts at the first sentence end, not at abbreviations', () => {
    expect(firstSentence('Start the guest. It boots.')).toBe('Start the guest');
    expect(firstSentence('Use e.g. virtio here. More text.')).toBe('Use e.g. virtio here');
    expect(firstSentence('One line\n\nSecond paragraph.')).toBe('One line');
    expect(firstSentence('Spread\nover lines.')).toBe('Spread over lines');
    expect(firstSentence('')).toBe('');
    expect(firstSentence('x'.repeat(300))).toHaveLength(200);
  });
});
