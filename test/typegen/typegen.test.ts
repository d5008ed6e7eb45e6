import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadSchemaFromFile, loadSchemaFromString } from '../../src/schema/loader.js';
import { ApiModel, templateParams, type Operation, type ParamSpec } from '../../src/schema/model.js';
import { OFFICIAL_SCHEMA_SKIP_MESSAGE, OFFICIAL_VERSIONS, hasOfficialSchema, officialSchemaFile } from '../../src/schema/official-schemas.js';
import { apiMapDeclarations } from '../../src/typegen/api-map.js';
import { API_DECLARATIONS_FILE, SDK_SURFACE_FILE, generateApiDeclarations, sdkDeclarationFiles } from '../../src/typegen/index.js';
import { paramType } from '../../src/typegen/param-type.js';
import { nodeSyntax } from './node-syntax.js';
import { printNode, typeText } from './print.js';
import { returnType } from '../../src/typegen/return-type.js';
import { strictCheck } from './strict-check.js';
import type { TypeSyntax } from '../../src/typegen/syntax.js';
import { oneLine, textSyntax } from '../../src/typegen/text-syntax.js';

const fixture = readFileSync(new URL('../../src/schema/fixtures/mini-apidoc.js', import.meta.url), 'utf8');
const model = loadSchemaFromString(fixture);
const files = sdkDeclarationFiles(model);

describe('type transforms', () => {
  // get_schema prints one-line types with the text back-end; the TS printer is the reference.
  it('maps PVE parameter types and formats', () => {
    const t = (spec: Parameters<typeof paramType>[0]) => {
      const text = oneLine(paramType(spec, textSyntax));
      expect(text).toBe(typeText(paramType(spec, nodeSyntax)));
      return text;
    };
    expect(t({ type: 'integer', format: 'pve-vmid' })).toBe('number');
    expect(t({ type: 'string', format: 'pve-vmid' })).toBe('number');
    expect(t({ type: 'boolean' })).toBe('boolean | 0 | 1');
    expect(t({ type: 'number' })).toBe('number');
    expect(t({ type: 'string', enum: ['a', 'b'] })).toBe("'a' | 'b'");
    expect(t({ type: 'integer', enum: ['1', '2'] })).toBe('1 | 2');
    expect(t({ type: 'string', format: 'pve-configid-list' })).toBe('string | string[]');
    expect(t({ type: 'string', format: 'pve-vmid-list' })).toBe('string | (string | number)[]');
    expect(t({ type: 'string', format: { model: { type: 'string' } } })).toBe('string');
    expect(t({ type: 'array', items: { type: 'string', enum: ['x', 'y'] } })).toBe("('x' | 'y')[]");
    expect(t({ type: 'array' })).toBe('any[]');
    expect(t({ type: 'object' })).toBe('Record<string, any>');
    expect(t({ type: 'any' })).toBe('any');
  });

  it('maps return schemas generously, untyped to any', () => {
    const t = (node: Parameters<typeof returnType>[0]) => {
      const text = oneLine(returnType(node, textSyntax));
      expect(text).toBe(typeText(returnType(node, nodeSyntax)));
      return text;
    };
    expect(t({})).toBe('any');
    expect(t(undefined)).toBe('any');
    expect(t({ type: 'null' })).toBe('null');
    expect(t({ type: 'boolean' })).toBe('boolean | number');
    expect(t({ type: 'array', items: { type: 'string', enum: ['a', 'b'] } })).toBe("('a' | 'b')[]");
    expect(t({ type: 'object' })).toBe('Record<string, any>');
    expect(t({ type: 'object', properties: { 'odd-name': { type: 'integer', optional: 1 }, id: { type: 'string' } } })).toBe("{ 'odd-name'?: number; id: string; [key: string]: any; }");
  });
});

/** The declarations through the TS factory and printer, the reference the text back-end must match. */
function printedDeclarations(api: ApiModel): string[] {
  return apiMapDeclarations(api, nodeSyntax).map(printNode);
}

/** Operations with everything the printer escapes or lays out specially, written for this test. */
function awkwardModel(): ApiModel {
  const param = (name: string, rest: Partial<ParamSpec> = {}): ParamSpec => ({ name, type: 'string', optional: true, inPath: false, ...rest });
  const op = (method: Operation['method'], path: string, rest: Partial<Operation>): Operation => ({
    key: `${method} ${path}`,
    method,
    path,
    pathParams: templateParams(path),
    params: templateParams(path).map((name) => param(name, { optional: false, inPath: true })),
    returns: {},
    allowtoken: true,
    protected: false,
    description: '',
    summary: '',
    risk: 'read',
    ...rest,
  });
  const family = (base: string) => [0, 1].map((index) => param(`${base}${index}`, { family: { base, index } }));
  const operations = [
    op('POST', '/odd/{name}', {
      summary: 'Closes */ early, then:\n\tindented\r\n  spaced \u2028 split\u2029\u200b zero-width\u0085 next-line\u2028\t \ttabbed\n   \n\u00a0non-breaking',
      permissions: { description: 'line one\n\n\tline\ttabbed\r\rafter two CRs' },
      allowtoken: false,
      risk: 'privileged',
      params: [
        param('name', { optional: false, inPath: true }),
        param('odd-name'),
        param("quote'd\\back"),
        param('ünï\u{1F600}'),
        param('tab\tname\u2028\0' + '1\0x'),
        param('flag', { type: 'boolean', optional: false }),
        param('level', { type: 'integer', enum: ['-3', '-0', '1.50', '007', 'high', "it's"] }),
        param('ids', { format: 'pve-vmid-list' }),
        param('matrix', { type: 'array', items: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } } }),
        param('any', { type: 'any' }),
        ...family('net'),
        ...family('a`${b}é\\\r\u0001'),
      ],
      additionalParams: true,
      returns: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            'odd key': { type: 'object', properties: { inner: { type: 'array', items: { type: 'object', properties: {} } } } },
            state: { type: 'integer', enum: [1, -2], optional: 1 },
            maybe: { type: 'null' },
          },
        },
      },
    }),
    op('GET', '/odd/{name}', { returns: { type: 'boolean' } }),
    op('GET', '/a-b', {}),
    op('GET', '/a/b', { returns: { type: 'array' } }),
  ];
  return new ApiModel(operations, 'awkward', { kind: 'string' });
}

describe('text back-end', () => {
  it('writes what the TypeScript printer prints for the fixture schema', () => {
    expect(apiMapDeclarations(model, textSyntax)).toEqual(printedDeclarations(model));
  });

  it('escapes names, literals and comments and lays them out as the printer does', () => {
    const awkward = awkwardModel();
    const text = apiMapDeclarations(awkward, textSyntax);
    expect(text).toEqual(printedDeclarations(awkward));
    expect(text.join('\n')).toContain("interface PveGetABParams2 {\n    '(takes no parameters)'?: never;\n}");
  });

  it('writes empty type literals and nested unions as the printer does', () => {
    expect(textSyntax.typeLiteral([]).text).toBe(printNode(nodeSyntax.typeLiteral([])));
    const nested = <T, M>(s: TypeSyntax<T, M>) => s.array(s.union([s.union([s.keyword('string'), s.nullType()]), s.union([s.keyword('number')]), s.keyword('any')]));
    expect(nested(textSyntax).text).toBe(printNode(nested(nodeSyntax)));
  });
});

describe('generated declarations for the fixture schema', () => {
  it('puts summary, risk and permission into the JSDoc of each operation', () => {
    const text = generateApiDeclarations(model);
    expect(text).toContain("'/nodes/{node}/qemu/{vmid}/status/start': {");
    expect(text).toMatch(/\* Power a machine on\n\s+\*\n\s+\* @risk write\n\s+\* @permission VM\.PowerMgmt on \/vms\/\{vmid\}/);
    expect(text).toContain('@remarks not available with API tokens');
    expect(text).toContain('[key: `net${number}`]: string;');
    expect(text).toContain('params: PvePostNodesNodeQemuVmidStatusStartParams;');
    expect(text).toMatch(/interface PvePostNodesNodeQemuVmidStatusStartParams \{\n\s+node: string;\n\s+vmid: number;\n\s+timeout\?: number;\n\}/);
    expect(text).not.toContain("'/cluster': {");
    expect(files.map((f) => f.fileName)).toEqual([API_DECLARATIONS_FILE, SDK_SURFACE_FILE]);
  });

  it('accepts a correct script', () => {
    const script = `
      const vms = await pve.get('/nodes/{node}/qemu', { node: 'pve1', full: true });
      const running = vms.filter((v) => v.status === 'running').map((v) => v.vmid + 1);
      const upid: string = await pve.post('/nodes/{node}/qemu', {
        node: 'pve1', vmid: 120, name: 'web', memory: 2048, start: 1, ostype: 'l26', tags: ['a', 'b'],
        net0: 'virtio,bridge=vmbr0', scsi1: 'local:32',
      });
      const task = await pve.waitTask(upid, { timeoutMs: 60000 });
      if (!task.ok) console.log(task.exitstatus, task.log.join('\\n'));
      await pve.post('/nodes/{node}/qemu/{vmid}/status/start', { node: 'pve1', vmid: 120 });
      const st = await pve.get('/nodes/{node}/qemu/{vmid}/status/current', { node: 'pve1', vmid: 120 });
      const ha = st.ha.managed;
      const loose = await pve.get(\`/nodes/\${'pve1'}/qemu/\${120}/status/current\`);
      const other = pve.cluster('lab');
      const version = await other.get('/version');
      await pve.get('/cluster/resources');
      return { running, state: st.status, ha, loose: loose.whatever, release: version.release };
    `;
    expect(strictCheck(files, script)).toEqual([]);
  });

  it.each([
    ['wrong param type', "await pve.post('/nodes/{node}/qemu/{vmid}/status/start', { node: 'pve1', vmid: 'abc' });", /TS2322/],
    ['missing required param', "await pve.post('/nodes/{node}/qemu/{vmid}/status/start', { node: 'pve1' });", /TS2345.*'vmid' is missing .* 'PvePostNodesNodeQemuVmidStatusStartParams'/s],
    ['missing params object', "await pve.post('/nodes/{node}/qemu/{vmid}/status/start');", /TS2554/],
    ['unknown param', "await pve.post('/nodes/{node}/qemu/{vmid}/status/start', { node: 'pve1', vmid: 1, fast: true });", /TS2353.*fast/s],
    ['bad family index', "await pve.post('/nodes/{node}/qemu', { node: 'pve1', vmid: 1, netx: 'a' });", /TS2353.*netx/s],
    ['misspelled SDK member', "await pve.gett('/version');", /TS2551.*gett/s],
    ['wrong enum value', "await pve.post('/nodes/{node}/qemu', { node: 'pve1', vmid: 1, ostype: 'dos' });", /TS2322/],
    ['misused return type', "const v = await pve.get('/nodes/{node}/qemu', { node: 'n' }); v.toUpperCase();", /TS2339.*toUpperCase/s],
  ])('reports a %s', (_name, script, expected) => {
    const diagnostics = strictCheck(files, script);
    expect(diagnostics.join('\n')).toMatch(expected);
  });
});

describe.skipIf(!OFFICIAL_VERSIONS.every(hasOfficialSchema))(`declarations of the official schemas (skipped when absent: ${OFFICIAL_SCHEMA_SKIP_MESSAGE})`, () => {
  it.each(OFFICIAL_VERSIONS)('PVE %s compiles under --strict with zero diagnostics', async (version) => {
    const official = await loadSchemaFromFile(officialSchemaFile(version));
    const script = `
        const vms = await pve.get('/nodes/{node}/qemu', { node: 'pve1' });
        await pve.post('/nodes/{node}/qemu/{vmid}/status/start', { node: 'pve1', vmid: 100 });
        await pve.post('/nodes/{node}/qemu', { node: 'pve1', vmid: 101, net0: 'virtio,bridge=vmbr0', scsi0: 'local-lvm:8', unused3: 'x' });
        return vms.map((v) => v.vmid);
      `;
    expect(strictCheck(sdkDeclarationFiles(official), script)).toEqual([]);
  });

  it.each(OFFICIAL_VERSIONS)('PVE %s: the text back-end writes what the TypeScript printer prints', async (version) => {
    const official = await loadSchemaFromFile(officialSchemaFile(version));
    expect(apiMapDeclarations(official, textSyntax)).toEqual(printedDeclarations(official));
  });
});
