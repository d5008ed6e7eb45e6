/**
 * The type-check against the real generated SDK (PVE 9.1 schema): what blocks and what passes
 * with the declarations agents actually get.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { loadSchemaFromFile } from '../../src/schema/loader.js';
import { OFFICIAL_SCHEMA_SKIP_MESSAGE, hasOfficialSchema, officialSchemaFile } from '../../src/schema/official-schemas.js';
import type { RemoteScriptChecker } from '../../src/script/remote-checker.js';
import { TypeCheckService } from '../../src/script/typecheck-service.js';
import { formatDiagnostic } from '../../src/script/diagnostics.js';
import { ScriptChecker } from '../../src/script/typecheck.js';
import { type CheckResult } from '../../src/script/checker.js';
import { sdkDeclarationFiles } from '../../src/typegen/index.js';

const present = hasOfficialSchema('9.1');
if (!present) console.warn(`typecheck-sdk: skipped — ${OFFICIAL_SCHEMA_SKIP_MESSAGE}`);

const CORRECT = [
  "const vms = await pve.get('/nodes/{node}/qemu', { node: 'pve1' });",
  "const running = vms.filter((v) => v.status === 'running').map((v) => v.vmid);",
  'for (const vmid of running) {',
  "  const upid = await pve.post('/nodes/{node}/qemu/{vmid}/status/shutdown', { node: 'pve1', vmid });",
  '  const task = await pve.waitTask(upid, { timeoutMs: 60_000 });',
  "  if (!task.ok) console.warn('failed', vmid, task.exitstatus);",
  '}',
  "const lab = await pve.cluster('lab').get('/version');",
  "const guests = (await pve.guests()).filter((g) => g.type === 'qemu');",
  "const batch = await pve.waitTasks(guests.map((g) => pve.post('/nodes/{node}/qemu/{vmid}/snapshot', { node: g.node, vmid: g.vmid, snapname: 'pre' })));",
  'const outcomes = batch.map((r, i) => ({ vmid: guests[i]?.vmid, outcome: r.outcome, error: r.exitstatus ?? r.message, log: r.log.slice(-1) }));',
  'return { running, release: lab.release, outcomes };',
].join('\n');

const MISTAKES = [
  "await pve.post('/nodes/{node}/qemu/{vmid}/status/start', { node: 'pve1', vmid: 'one' });",
  "await pve.get('/nodes/{node}/qemu', { node: 'pve1', fulll: 1 });",
  "await pve.post('/nodes/{node}/qemu/{vmid}/status/start', { node: 'pve1' });",
  "await pve.gett('/nodes');",
  "await pve.get('/nodes/pve1/qemuu');",
].join('\n');

describe.skipIf(!present)('ScriptChecker with the PVE 9.1 SDK', () => {
  let checker: ScriptChecker;
  let checkers: TypeCheckService;
  let remote: RemoteScriptChecker;
  beforeAll(async () => {
    const model = await loadSchemaFromFile(officialSchemaFile('9.1'));
    const files = sdkDeclarationFiles(model);
    checker = new ScriptChecker({ files, model, budgetMs: 30_000 });
    checker.warm();
    checkers = new TypeCheckService({ budgetMs: 30_000 });
    remote = checkers.checker(files, model);
    await checkers.warm();
  });
  afterAll(async () => {
    await checkers?.close();
  });

  it('passes a correct script with typed results', () => {
    const r = checker.check(CORRECT);
    expect(r.errors.map(formatDiagnostic)).toEqual([]);
    expect(r.ok).toBe(true);
  });

  it('blocks provable mistakes with positions and hints', () => {
    const r = checker.check(MISTAKES);
    expect(r.ok).toBe(false);
    expect(r.errors.map((d) => d.line)).toEqual([1, 2, 3, 4, 5]);
    expect(r.errors[1]?.message).toMatch(/fulll/);
    expect(r.errors[3]?.hint).toBe("did you mean 'get'?");
    expect(r.errors[4]?.hint).toBe("did you mean '/nodes/{node}/qemu'?");
  });

  it('an operation without parameters takes none: an unknown one is a mistake, none or {} are fine', () => {
    expect(checker.check("await pve.get('/version');\nawait pve.get('/version', {});").errors.map(formatDiagnostic)).toEqual([]);
    const r = checker.check("await pve.get('/version', { full: 1 });");
    expect(r.ok).toBe(false);
    expect(r.errors[0]?.message).toMatch(/full/);
  });

  it('the checker process, given the SDK and only a path catalog of the schema, answers the same', async () => {
    const withoutTime = ({ ms: _ms, ...rest }: CheckResult) => rest;
    for (const code of [CORRECT, MISTAKES]) expect(withoutTime(await remote.check(code))).toEqual(withoutTime(checker.check(code)));
    expect(checkers.stats).toMatchObject({ processesStarted: 1, coldWaits: 0, skipped: 0 });
  });
});
