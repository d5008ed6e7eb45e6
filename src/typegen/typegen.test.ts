import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadSchemaFromFile, loadSchemaFromString } from '../schema/loader.js';
import { OFFICIAL_SCHEMA_SKIP_MESSAGE, OFFICIAL_VERSIONS, hasOfficialSchema, officialSchemaFile } from '../schema/official-schemas.js';
import { API_DECLARATIONS_FILE, SDK_SURFACE_FILE, generateApiDeclarations, sdkDeclarationFiles } from './index.js';
import { paramTypeNode } from './param-type.js';
import { typeText } from './print.js';
import { returnTypeNode } from './return-type.js';
import { strictCheck } from './strict-check.js';

const fixture = readFileSync(new URL('../schema/fixtures/mini-apidoc.js', import.meta.url), 'utf8');
const model = loadSchemaFromString(fixture);
const files = sdkDeclarationFiles(model);

describe('type transforms', () => {
  it('maps PVE parameter types and formats', () => {
    const t = (spec: Parameters<typeof paramTypeNode>[0]) => typeText(paramTypeNode(spec));
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
    const t = (node: Parameters<typeof returnTypeNode>[0]) => typeText(returnTypeNode(node));
    expect(t({})).toBe('any');
    expect(t(undefined)).toBe('any');
    expect(t({ type: 'null' })).toBe('null');
    expect(t({ type: 'boolean' })).toBe('boolean | number');
    expect(t({ type: 'array', items: { type: 'string', enum: ['a', 'b'] } })).toBe("('a' | 'b')[]");
    expect(t({ type: 'object' })).toBe('Record<string, any>');
    expect(t({ type: 'object', properties: { 'odd-name': { type: 'integer', optional: 1 }, id: { type: 'string' } } })).toBe(
      "{ 'odd-name'?: number; id: string; [key: string]: any; }",
    );
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
    [
      'missing required param',
      "await pve.post('/nodes/{node}/qemu/{vmid}/status/start', { node: 'pve1' });",
      /TS2345.*'vmid' is missing .* 'PvePostNodesNodeQemuVmidStatusStartParams'/s,
    ],
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

describe.skipIf(!OFFICIAL_VERSIONS.every(hasOfficialSchema))(
  `declarations of the official schemas (skipped when absent: ${OFFICIAL_SCHEMA_SKIP_MESSAGE})`,
  () => {
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
  },
);
