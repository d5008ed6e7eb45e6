import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { strictCheck } from './strict-check.js';
import { loadSchemaFromFile, loadSchemaFromString } from '../../src/schema/loader.js';
import { hasOfficialSchema, OFFICIAL_SCHEMA_SKIP_MESSAGE, officialSchemaFile } from '../../src/schema/official-schemas.js';
import { generateApiDeclarations, sdkDeclarationFiles } from '../../src/typegen/index.js';

const model = loadSchemaFromString(readFileSync(new URL('../../src/schema/fixtures/mini-apidoc.js', import.meta.url), 'utf8'));
const files = sdkDeclarationFiles(model);

/** What an operator's inventory script does with `/cluster/resources`, which must check without a word. */
const INVENTORY = [
  "const vms = await pve.get('/cluster/resources', { type: 'vm' });",
  'for (const r of vms) r.vmid.toString();',
  "const qemu = vms.filter((r) => r.type === 'qemu').map((r) => r.vmid + 1);",
  "const all = await pve.get('/cluster/resources');",
  "const fromAll = all.filter((r) => r.type === 'lxc').map((r) => r.vmid.toFixed());",
  "const lab = await pve.cluster('lab').get('/cluster/resources', { type: 'vm' });",
  'return { qemu, fromAll, lab: lab.map((r) => r.vmid) };',
].join('\n');

describe('a list whose entries come in kinds', () => {
  it('types the entries as a union by kind, the fields each kind carries required, from the schema', () => {
    const text = generateApiDeclarations(model);
    expect(text).toContain('returns: (PveGetClusterResourcesQemu | PveGetClusterResourcesLxc | PveGetClusterResourcesStorage | PveGetClusterResourcesNode)[];');
    expect(text).toContain('vm: (PveGetClusterResourcesQemu | PveGetClusterResourcesLxc)[];');
    expect(text).toMatch(/interface PveGetClusterResourcesQemu \{\n {4}id: string;\n {4}type: 'qemu';\n {4}vmid: number;\n {4}maxmem: number;/);
    // A storage entry has no VMID: the field stays as optional as the schema says.
    expect(text).toMatch(/interface PveGetClusterResourcesStorage \{\n {4}id: string;\n {4}type: 'storage';\n {4}vmid\?: number;/);
  });

  it('checks an ordinary inventory script without a diagnostic', () => {
    expect(strictCheck(files, INVENTORY)).toEqual([]);
  });

  it.each([
    ['a guest field read on an unfiltered entry', "(await pve.get('/cluster/resources')).map((r) => r.vmid.toFixed());", /TS18048: 'r.vmid' is possibly 'undefined'/],
    ['a guest field of a storage entry', "(await pve.get('/cluster/resources', { type: 'storage' })).map((r) => r.vmid.toFixed());", /TS18048/],
    ['the filter value compared with the kind', "(await pve.get('/cluster/resources', { type: 'vm' })).filter((r) => r.type === 'vm');", /TS2367/],
    ['an unknown filter value', "await pve.get('/cluster/resources', { type: 'vms' });", /TS2322: Type '"vms"' is not assignable/],
  ])('still reports %s', (_name, script, expected) => {
    expect(strictCheck(files, script).join('\n')).toMatch(expected);
  });
});

describe.skipIf(!hasOfficialSchema('9.1'))(`the official 9.1 /cluster/resources (${OFFICIAL_SCHEMA_SKIP_MESSAGE} to run)`, () => {
  it('types guests, storages, nodes and SDN entries by kind', async () => {
    const official = sdkDeclarationFiles(await loadSchemaFromFile(officialSchemaFile('9.1')));
    const script = [
      INVENTORY.replace(/^return .*$/m, ''),
      "const guests = (await pve.get('/cluster/resources', { type: 'vm' })).map((g) => `${g.node}/${g.vmid} ${g.name.trim()} ${g.status} ${g.mem / g.maxmem}`);",
      "const storages = (await pve.get('/cluster/resources', { type: 'storage' })).map((s) => `${s.node}:${s.storage} ${s.disk / s.maxdisk} ${s.content.split(',')}`);",
      "const nodes = (await pve.get('/cluster/resources', { type: 'node' })).map((n) => n.node.length + n.maxcpu);",
      "const sdn = (await pve.get('/cluster/resources', { type: 'sdn' })).map((z) => (z.type === 'sdn' ? z.sdn : z.network));",
      'return { guests, storages, nodes, sdn };',
    ].join('\n');
    expect(strictCheck(official, script)).toEqual([]);
  });
});
