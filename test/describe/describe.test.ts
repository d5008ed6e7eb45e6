import { readFileSync } from 'node:fs';
import { encode } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { loadSchemaFromFile, loadSchemaFromString } from '../../src/schema/loader.js';
import { OFFICIAL_SCHEMA_SKIP_MESSAGE, hasOfficialSchema, officialSchemaFile } from '../../src/schema/official-schemas.js';
import { sdkDeclarationFiles } from '../../src/typegen/index.js';
import { strictCheck } from '../typegen/strict-check.js';
import { exampleCall } from '../../src/describe/example.js';
import { describeOperations } from '../../src/describe/index.js';
import { MAX_PARAM_LINES } from '../../src/describe/param-lines.js';

const fixture = readFileSync(new URL('../../src/schema/fixtures/mini-apidoc.js', import.meta.url), 'utf8');
const model = loadSchemaFromString(fixture);

describe('describeOperations on the fixture', () => {
  it('renders a compact signature with params, return type, permission, risk and an example', () => {
    const { operations, notFound } = describeOperations(model, ['POST /nodes/{node}/qemu/{vmid}/status/start']);
    expect(notFound).toEqual([]);
    expect(operations).toHaveLength(1);
    const [op] = operations;
    expect(op).toMatchObject({ method: 'POST', path: '/nodes/{node}/qemu/{vmid}/status/start', risk: 'write', permission: 'VM.PowerMgmt on /vms/{vmid}' });
    expect(op?.signature).toBe(
      [
        '// Power a machine on [risk: write]',
        '// permission: VM.PowerMgmt on /vms/{vmid}',
        "pve.post('/nodes/{node}/qemu/{vmid}/status/start', params: {",
        '  node: string;  // format pve-node',
        '  vmid: number;  // format pve-vmid',
        '  timeout?: number;  // 0..86400 — Seconds to wait',
        '}): Promise<string>  // usually a task UPID → await pve.waitTask(upid)',
        "// example: await pve.post('/nodes/{node}/qemu/{vmid}/status/start', { node: 'pve1', vmid: 100 })",
      ].join('\n'),
    );
  });

  it('folds indexed families and shows return objects', () => {
    const [create] = describeOperations(model, ['POST /nodes/{node}/qemu']).operations;
    expect(create?.signature).toContain('  net[n]?: string;  // n 0..31, keys: [model=], bridge — A network card');
    expect(create?.signature).toContain("  ostype?: 'l26' | 'win11' | 'other';  // Guest operating system");
    expect(create?.signature).toContain('  tags?: string | string[];  // format pve-tag-list — Labels for the machine');
    expect(create?.signature).not.toContain('net1');
    const [list] = describeOperations(model, ['GET /nodes/{node}/qemu']).operations;
    expect(list?.signature).toContain('params: {\n  node: string;');
    // Identity and status first: what the guest is, what it is called, its state, then its size.
    expect(list?.signature).toContain("Promise<{ vmid: number; name?: string; status: 'running' | 'stopped'; mem?: number; [key: string]: any; }[]>");
  });

  it('marks optional params objects and omits them when there are none', () => {
    expect(describeOperations(model, ['GET /cluster/resources']).operations[0]?.signature).toContain("pve.get('/cluster/resources', params?: {");
    const version = describeOperations(model, ['GET /version']).operations[0]?.signature;
    expect(version).toContain("pve.get('/version'): Promise<{ version: string; release: string; [key: string]: any; }>");
    expect(version).toContain("// example: await pve.get('/version')");
  });

  it('marks an operation the server behind the cluster does not answer, under its summary', () => {
    const unserved = { operations: new Set(['GET /version']), mark: 'not in simulator' };
    const [version, nodes] = describeOperations(model, ['GET /version', 'GET /nodes'], { unserved }).operations;
    expect(version?.signature.split('\n').slice(0, 2)).toEqual([expect.stringMatching(/^\/\/ .* \[risk: read\]$/), '// not in simulator: calling it answers 501; use another operation']);
    expect(nodes?.signature).not.toContain('not in simulator');
  });

  it('renders token restrictions and handler-checked permissions', () => {
    expect(describeOperations(model, ['PUT /access/password']).operations[0]?.permission).toBe('the caller is the user {userid} (not available with API tokens)');
    expect(describeOperations(model, ['GET /cluster/resources']).operations[0]?.permission).toBe('any authenticated user — Entries are filtered by what the caller may see.');
  });

  it('gives all methods of a path, in GET POST PUT DELETE order, without duplicates', () => {
    const { operations } = describeOperations(model, ['/nodes/{node}/qemu', 'POST /nodes/{node}/qemu', 'get /nodes/{node}/qemu/']);
    expect(operations.map((o) => `${o.method} ${o.path}`)).toEqual(['GET /nodes/{node}/qemu', 'POST /nodes/{node}/qemu']);
  });

  it('resolves concrete paths to their template', () => {
    const { operations } = describeOperations(model, ['DELETE /nodes/pve1/qemu/100']);
    expect(operations.map((o) => o.path)).toEqual(['/nodes/{node}/qemu/{vmid}']);
  });

  it('reports specs that name nothing, with suggestions', () => {
    const { operations, notFound } = describeOperations(model, [
      'GET /nodes/{node}/qemu/{vmid}', // path exists, method does not
      '/nodes/{node}/qemu/{vmid}/status/strat',
      'PATCH /nodes',
      'not a spec',
      '/cluster',
    ]);
    expect(operations).toEqual([]);
    expect(notFound[0]).toEqual({ spec: 'GET /nodes/{node}/qemu/{vmid}', suggestions: ['DELETE /nodes/{node}/qemu/{vmid}'] });
    expect(notFound[1]?.suggestions[0]).toBe('/nodes/{node}/qemu/{vmid}/status/start');
    expect(notFound[2]?.suggestions).toContain('/nodes');
    expect(notFound[3]?.suggestions).toHaveLength(3);
    expect(notFound[4]?.spec).toBe('/cluster');
  });
});

describe('huge operations', () => {
  const properties: Record<string, unknown> = { node: { type: 'string', format: 'pve-node' }, vmid: { type: 'integer', format: 'pve-vmid' } };
  for (let i = 0; i < 40; i++) properties[`opt${String.fromCharCode(97 + (i % 26))}${i}`] = { type: 'string', optional: 1 };
  Object.assign(properties, {
    memory: { type: 'integer', optional: 1 },
    'net[n]': { type: 'string', optional: 1, format: { model: { type: 'string', default_key: 1 } }, typetext: '[model=]<model>' },
    'disk[n]': { type: 'string', optional: 1, description: 'A disk (n is 0 to 3).' },
  });
  const big = loadSchemaFromString(JSON.stringify([{ path: '/nodes/{node}/big', info: { POST: { parameters: { properties } } } }]));

  it('shows required and popular params first and names the rest', () => {
    const [op] = describeOperations(big, ['POST /nodes/{node}/big']).operations;
    const lines = op?.signature.split('\n') ?? [];
    const paramLines = lines.filter((l) => /^ {2}\S/.test(l) && !l.startsWith('  //'));
    expect(paramLines.length).toBeLessThanOrEqual(MAX_PARAM_LINES);
    expect(paramLines.slice(0, 4).map((l) => l.trim().split(/[?:]/)[0])).toEqual(['node', 'vmid', 'memory', 'net[n]']);
    expect(op?.signature).toMatch(/\/\/ \d+ more optional: .*disk\[n\].* \(ask get_schema with params/);
  });

  it('shows requested params in full, by family name or member', () => {
    for (const name of ['disk[n]', 'disk2', 'disk']) {
      const [op] = describeOperations(big, ['POST /nodes/{node}/big'], { params: [name] }).operations;
      expect(op?.signature).toContain('  disk[n]?: string;  // n 0..3 — A disk (n is 0 to 3).');
    }
    const [net] = describeOperations(big, ['POST /nodes/{node}/big'], { params: ['net[n]', 'nope'] }).operations;
    expect(net?.signature).toContain('syntax [model=]<model>');
    expect(net?.signature).toContain('// no such params: nope');
  });
});

describe.skipIf(!hasOfficialSchema('9.1'))(`every operation of PVE 9.1 (skipped when absent: ${OFFICIAL_SCHEMA_SKIP_MESSAGE})`, () => {
  it('renders without error, within a generous token bound', async () => {
    const official = await loadSchemaFromFile(officialSchemaFile('9.1'));
    const { operations, notFound } = describeOperations(
      official,
      official.operations.map((op) => op.key),
    );
    expect(notFound).toEqual([]);
    expect(operations).toHaveLength(649);
    const tokens = operations.map((op) => ({ key: `${op.method} ${op.path}`, n: encode(op.signature).length })).sort((a, b) => a.n - b.n);
    const at = (q: number) => (tokens[Math.floor(q * (tokens.length - 1))] as { n: number }).n;
    const typical = operations.find((op) => op.path === '/nodes/{node}/qemu/{vmid}/status/current');
    console.log(
      `get_schema tokens over ${tokens.length} ops: median ${at(0.5)}, p90 ${at(0.9)}, max ${at(1)} (${tokens.at(-1)?.key}); ` +
        `GET …/status/current ${typical ? encode(typical.signature).length : '?'}`,
    );
    expect(at(0.5)).toBeLessThan(400);
    expect(at(1)).toBeLessThan(3000);
  });

  it('gives example calls that type-check against the generated declarations', async () => {
    const official = await loadSchemaFromFile(officialSchemaFile('9.1'));
    const script = official.operations.map((op) => `${exampleCall(op)};`).join('\n');
    expect(strictCheck(sdkDeclarationFiles(official), script)).toEqual([]);
  });
});

describe.skipIf(!hasOfficialSchema('9.1'))(`what matters on PVE 9.1 (skipped when absent: ${OFFICIAL_SCHEMA_SKIP_MESSAGE})`, () => {
  it('types identity and status fields first, names every other field, and types a field asked for', async () => {
    const official = await loadSchemaFromFile(officialSchemaFile('9.1'));
    const [resources] = describeOperations(official, ['GET /cluster/resources']).operations;
    const sig = resources?.signature ?? '';
    const returned = /Promise<(.*)>/.exec(sig)?.[1] ?? '';
    for (const field of ['node', 'vmid', 'name', 'status', 'maxmem', 'template']) expect(returned).toMatch(new RegExp(`\\b${field}\\?: `));
    // Every field name appears, typed or listed.
    const all = Object.keys(official.get('GET', '/cluster/resources')?.returns.items?.properties ?? {});
    expect(all.length).toBeGreaterThan(30);
    for (const field of all) expect(sig).toContain(field);
    expect(sig).toMatch(/14 of \d+ fields typed; also: .*netin/);
    const [expanded] = describeOperations(official, ['GET /cluster/resources'], { params: ['netin', 'diskwrite'] }).operations;
    expect(/Promise<(.*)>/.exec(expanded?.signature ?? '')?.[1]).toMatch(/netin\?: number;.*|diskwrite\?: number;/);
    expect(expanded?.signature).not.toContain('no such params');
  });

  it('shows units and the keys of property strings asked for', async () => {
    const official = await loadSchemaFromFile(officialSchemaFile('9.1'));
    const [config] = describeOperations(official, ['PUT /nodes/{node}/qemu/{vmid}/config'], { params: ['memory', 'net[n]'] }).operations;
    const sig = config?.signature ?? '';
    expect(sig).toMatch(/ {2}memory\?: string;.*in MiB/);
    expect(sig).toMatch(/\/\/ {3}\[current=\] integer, ≥ 16, default 512, in MiB — Current amount of online RAM/);
    expect(sig).toMatch(/\/\/ {3}bridge\? string.* — Bridge to attach the network device to/);
    const [plain] = describeOperations(official, ['POST /nodes/{node}/qemu']).operations;
    expect(plain?.signature).toMatch(/ {2}memory\?: string;  \/\/ keys: \[current=\], in MiB/);
  });
});
