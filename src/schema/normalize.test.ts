import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
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
