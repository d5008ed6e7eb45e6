import { readFileSync } from 'node:fs';
import { describe, it, expect, beforeAll } from 'vitest';
import { loadSchemaFromString } from '../../src/schema/loader.js';
import { sdkDeclarationFiles } from '../../src/typegen/index.js';
import { ScriptChecker } from '../../src/script/typecheck.js';
import { declarationsHash } from '../../src/script/checker.js';
import { formatDiagnostic } from '../../src/script/diagnostics.js';
import { miniModel, miniSdkFiles } from '../sandbox/fixtures/mini-sdk.js';

let checker: ScriptChecker;
beforeAll(() => {
  checker = new ScriptChecker({ files: miniSdkFiles, model: miniModel() });
  checker.warm();
});

function errorsOf(source: string): string[] {
  return checker.check(source).errors.map(formatDiagnostic);
}

describe('ScriptChecker: what blocks', () => {
  it('accepts a correct script with typed results', () => {
    const result = checker.check(
      [
        "const vms = await pve.get('/nodes/{node}/qemu', { node: 'pve1' });",
        "const running = vms.filter((v) => v.status === 'running');",
        "await pve.post('/nodes/{node}/qemu/{vmid}/status/start', { node: 'pve1', vmid: running[0]?.vmid ?? 100 });",
        'return running.length;',
      ].join('\n'),
    );
    expect(result.errors).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it('blocks syntax errors with line:col', () => {
    expect(errorsOf('const a = 1;\nconst b = ;')).toEqual(['2:11 Expression expected. [TS1109]']);
  });

  it('blocks misspelled SDK members with a did-you-mean hint', () => {
    const [d] = checker.check("const x = 1;\nawait pve.gett('/version');").errors;
    expect(d).toMatchObject({ line: 2, col: 11, hint: "did you mean 'get'?" });
    expect(checker.check("await pve.cluster('lab').waitTsk('UPID:x');").errors[0]?.hint).toBe("did you mean 'waitTask'?");
  });

  it('blocks unknown literal paths and methods the path does not have', () => {
    const [unknown] = checker.check("await pve.get('/nodes/{node}/qemus', { node: 'a' });").errors;
    expect(unknown).toMatchObject({ line: 1, col: 7, message: 'unknown API path /nodes/{node}/qemus' });
    expect(unknown?.hint).toBe("did you mean '/nodes/{node}/qemu'?");
    const [method] = checker.check("await pve.delete('/nodes/pve1/qemu');").errors;
    expect(method?.message).toBe('DELETE is not available on /nodes/{node}/qemu');
    expect(method?.hint).toBe('it supports GET, POST');
    const [concrete] = checker.check("await pve.get('/nodes/pve1/qemuu');").errors;
    expect(concrete?.hint).toBe("did you mean '/nodes/{node}/qemu'?");
  });

  it('only warns about template paths that match nothing', () => {
    const result = checker.check('const n = String(1);\nawait pve.get(`/nodez/${n}/qemu`);');
    expect(result.ok).toBe(true);
    expect(result.warnings.map((w) => w.message)).toContain('no API path matches /nodez/{?}/qemu');
  });

  it('blocks unknown params', () => {
    const [d] = checker.check("await pve.get('/nodes/{node}/qemu', { node: 'a', fulll: true });").errors;
    expect(d?.message).toMatch(/Object literal may only specify known properties/);
    expect(d?.hint).toBe('use get_schema to see the params of GET /nodes/{node}/qemu');
  });

  it('blocks missing required params and a missing params argument', () => {
    expect(checker.check("await pve.post('/nodes/{node}/qemu', { node: 'a' });").ok).toBe(false);
    const [arity] = checker.check("await pve.post('/nodes/{node}/qemu');").errors;
    expect(arity?.code).toBe(2554);
  });

  it('blocks wrong types of literal values but only warns for computed ones', () => {
    const literal = checker.check("await pve.post('/nodes/{node}/qemu', { node: 'a', vmid: 'one hundred' });");
    expect(literal.ok).toBe(false);
    expect(literal.errors[0]).toMatchObject({ line: 1, code: 2322 });
    const computed = checker.check("const ids: Array<string | number> = [100];\nawait pve.post('/nodes/{node}/qemu', { node: 'a', vmid: ids[0]! });");
    expect(computed.ok).toBe(true);
    expect(computed.warnings.some((w) => w.code === 2322)).toBe(true);
  });

  it('treats a params object with a spread as possibly complete', () => {
    const result = checker.check("const base = JSON.parse('{}');\nawait pve.post('/nodes/{node}/qemu', { node: 'a', ...base });");
    expect(result.ok).toBe(true);
  });

  it('does not blame the SDK call for errors in nested calls or callbacks', () => {
    const result = checker.check(
      ['function pick(a: number): number { return a; }', "await pve.post('/nodes/{node}/qemu', { node: 'a', vmid: pick('x' as unknown as number, 2 as never) });"].join('\n'),
    );
    expect(result.ok).toBe(true);
    expect(result.warnings.some((w) => w.code === 2554)).toBe(true);
  });
});

describe('ScriptChecker: what only warns', () => {
  it('reports other type errors as warnings and runs', () => {
    const result = checker.check("const vms = await pve.get('/nodes/{node}/qemu', { node: 'a' });\nreturn vms[0]!.nme;");
    expect(result.ok).toBe(true);
    expect(result.warnings[0]).toMatchObject({ line: 2, severity: 'warning', code: 2551 });
  });

  it('explains names the sandbox does not have', () => {
    const result = checker.check("setTimeout(() => {}, 10);\nconst fs = require('fs');");
    expect(result.ok).toBe(true);
    expect(result.warnings.map((w) => w.line)).toEqual([1, 2]);
    expect(result.warnings[0]?.hint).toMatch(/no timers/);
  });

  it('infers arrays built up in the script and stays quiet about untyped helpers', () => {
    const script = "const rows = [];\nfor (const n of ['a', 'b']) rows.push({ n });\nfunction pct(x, y) { return Math.round((x / y) * 100); }\nreturn { rows, p: pct(1, 4) };";
    expect(checker.check(script)).toMatchObject({ ok: true, warnings: [] });
  });

  it('knows console from the sandbox globals', () => {
    expect(checker.check("console.log('x'); console.warn(1, 2);").warnings).toEqual([]);
  });

  it('accepts concrete paths with loose params', () => {
    expect(checker.check("await pve.get('/nodes/pve1/qemu', { anything: 1 });").ok).toBe(true);
  });

  it('skips the semantic phase when over budget and says so', () => {
    const result = checker.check("await pve.gett('/version');\nconst x: number = 'a';", { budgetMs: -1 });
    expect(result.timedOut).toBe(true);
    expect(result.ok).toBe(false);
    expect(result.warnings.map((w) => w.message).join()).toMatch(/type-check skipped/);
    expect(result.warnings.some((w) => w.code === 2322)).toBe(false);
  });
});

describe('ScriptChecker identity and generated declarations', () => {
  it('is keyed by its declaration set, plus the schema when paths are checked', () => {
    const other = [{ fileName: 'pve.d.ts', text: 'declare const pve: { get(path: string): Promise<unknown> };' }];
    const loose = new ScriptChecker({ files: other });
    expect(loose.hash).toBe(declarationsHash(other));
    expect(checker.hash).toBe(`${declarationsHash(miniSdkFiles)}:${miniModel().hash}`);
    loose.dispose();
  });

  it('checkers in one process never see each other’s declarations or scripts', () => {
    // Same file names, different contents, and their checks interleaved at equal versions.
    const model = miniModel();
    const loose = new ScriptChecker({ files: [{ fileName: 'pve-api.d.ts', text: 'declare const pve: { get(path: string, params?: object): Promise<any> };' }] });
    const generated = new ScriptChecker({ files: sdkDeclarationFiles(model), model });
    for (let i = 0; i < 2; i++) {
      expect(loose.check("await pve.get('/anything', { bogus: 1 });").ok).toBe(true);
      expect(generated.check("await pve.get('/nodes/{node}/qemu', { node: 'pve1' });").errors).toEqual([]);
      expect(generated.check("await pve.get('/nodes/{node}/qemu', { node: 'pve1', bogus: 1 });").ok).toBe(false);
      expect(loose.check("await pve.get('/nodes/{node}/qemu');").ok).toBe(true);
    }
    loose.dispose();
    generated.dispose();
  });
});

describe('ScriptChecker: a list narrowed by its type filter', () => {
  it('judges and words a failed call by the general signature, not the narrowing one', () => {
    const model = loadSchemaFromString(readFileSync(new URL('../../src/schema/fixtures/mini-apidoc.js', import.meta.url), 'utf8'));
    const generated = new ScriptChecker({ files: sdkDeclarationFiles(model), model });
    try {
      const ordinary = generated.check("const vms = await pve.get('/cluster/resources', { type: 'vm' });\nreturn vms.map((r) => r.vmid.toFixed());");
      expect([...ordinary.errors, ...ordinary.warnings]).toEqual([]);
      // A computed value of an unknown param blocks as it does on any other call ("No overload matches" never shows).
      const [unknown] = generated.check("const v = 1;\nawait pve.get('/cluster/resources', { type: 'vm', ful: v });").errors;
      expect(unknown).toMatchObject({ code: 2353, hint: 'use get_schema to see the params of GET /cluster/resources' });
      expect(unknown?.message).toBe("Object literal may only specify known properties, and 'ful' does not exist in type 'PveGetClusterResourcesParams'.");
      const unfiltered = generated.check("return (await pve.get('/cluster/resources')).map((r) => r.vmid.toFixed());");
      expect(unfiltered.ok).toBe(true);
      expect(unfiltered.warnings.map(formatDiagnostic)).toEqual(["1:57 'r.vmid' is possibly 'undefined'. [TS18048]"]);
    } finally {
      generated.dispose();
    }
  });
});
