/**
 * The type-check against the real generated SDK (PVE 9.1 schema): what blocks and what passes
 * with the declarations agents actually get.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { loadSchemaFromFile } from '../../src/schema/loader.js';
import { OFFICIAL_SCHEMA_SKIP_MESSAGE, hasOfficialSchema, officialSchemaFile } from '../../src/schema/official-schemas.js';
import { formatDiagnostic } from '../../src/script/diagnostics.js';
import { ScriptChecker } from '../../src/script/typecheck.js';
import { sdkDeclarationFiles } from '../../src/typegen/index.js';

const present = hasOfficialSchema('9.1');
if (!present) console.warn(`typecheck-sdk: skipped — ${OFFICIAL_SCHEMA_SKIP_MESSAGE}`);

describe.skipIf(!present)('ScriptChecker with the PVE 9.1 SDK', () => {
  let checker: ScriptChecker;
  beforeAll(async () => {
    const model = await loadSchemaFromFile(officialSchemaFile('9.1'));
    checker = new ScriptChecker({ files: sdkDeclarationFiles(model), model, budgetMs: 30_000 });
    checker.warm();
  });

  it('passes a correct script with typed results', () => {
    const r = checker.check(
      [
        "const vms = await pve.get('/nodes/{node}/qemu', { node: 'pve1' });",
        "const running = vms.filter((v) => v.status === 'running').map((v) => v.vmid);",
        'for (const vmid of running) {',
        "  const upid = await pve.post('/nodes/{node}/qemu/{vmid}/status/shutdown', { node: 'pve1', vmid });",
        '  const task = await pve.waitTask(upid, { timeoutMs: 60_000 });',
        "  if (!task.ok) console.warn('failed', vmid, task.exitstatus);",
        '}',
        "const lab = await pve.cluster('lab').get('/version');",
        'return { running, release: lab.release };',
      ].join('\n'),
    );
    expect(r.errors.map(formatDiagnostic)).toEqual([]);
    expect(r.ok).toBe(true);
  });

  it('blocks provable mistakes with positions and hints', () => {
    const r = checker.check(
      [
        "await pve.post('/nodes/{node}/qemu/{vmid}/status/start', { node: 'pve1', vmid: 'one' });",
        "await pve.get('/nodes/{node}/qemu', { node: 'pve1', fulll: 1 });",
        "await pve.post('/nodes/{node}/qemu/{vmid}/status/start', { node: 'pve1' });",
        "await pve.gett('/nodes');",
        "await pve.get('/nodes/pve1/qemuu');",
      ].join('\n'),
    );
    expect(r.ok).toBe(false);
    expect(r.errors.map((d) => d.line)).toEqual([1, 2, 3, 4, 5]);
    expect(r.errors[1]?.message).toMatch(/fulll/);
    expect(r.errors[3]?.hint).toBe("did you mean 'get'?");
    expect(r.errors[4]?.hint).toBe("did you mean '/nodes/{node}/qemu'?");
  });
});
