import { describe, it, expect } from 'vitest';
import { sdkCallsOf, type SdkCall } from './calls.js';
import { lineCount, parseProgram } from './program.js';

/** The SDK calls of a source, read as the compile reads them. */
const extractSdkCalls = (source: string): SdkCall[] => sdkCallsOf(parseProgram(source), lineCount(source));

describe('extractSdkCalls', () => {
  it('reads method, literal path, literal params and 1-based position', () => {
    const src = ["const vms = await pve.get('/nodes/{node}/qemu', { node: 'pve1' });", "  await pve.post('/nodes/{node}/qemu/{vmid}/status/start', { node: 'pve1', vmid: 101, force: true });"].join(
      '\n',
    );
    expect(extractSdkCalls(src)).toEqual([
      {
        method: 'GET',
        path: '/nodes/{node}/qemu',
        pathIsTemplate: false,
        params: { node: 'pve1' },
        paramsComplete: true,
        unknownParams: [],
        line: 1,
        col: 19,
      },
      {
        method: 'POST',
        path: '/nodes/{node}/qemu/{vmid}/status/start',
        pathIsTemplate: false,
        params: { node: 'pve1', vmid: 101, force: true },
        paramsComplete: true,
        unknownParams: [],
        line: 2,
        col: 9,
      },
    ]);
  });

  it('treats a call without params as complete empty params', () => {
    const [call] = extractSdkCalls("await pve.delete('/pools/x');");
    expect(call).toMatchObject({ method: 'DELETE', params: {}, paramsComplete: true });
  });

  it('replaces run-time parts of template literals and concatenations with {?}', () => {
    const src = ['for (const id of ids) {', '  await pve.get(`/nodes/${n}/qemu/${id}/status/current`);', "  await pve.put('/nodes/' + n + '/qemu/' + id + '/config', { memory: 2048 });", '}'].join(
      '\n',
    );
    const calls = extractSdkCalls(src);
    expect(calls.map((c) => [c.method, c.path, c.pathIsTemplate])).toEqual([
      ['GET', '/nodes/{?}/qemu/{?}/status/current', true],
      ['PUT', '/nodes/{?}/qemu/{?}/config', true],
    ]);
  });

  it('inlines const literals in paths and params', () => {
    const src = ["const node = 'pve2';", 'const vmid = 105;', 'const opts = { node, vmid, timeout: -1 };', 'await pve.post(`/nodes/${node}/qemu/${vmid}/status/shutdown`, opts);'].join('\n');
    const [call] = extractSdkCalls(src);
    expect(call).toMatchObject({
      path: '/nodes/pve2/qemu/105/status/shutdown',
      pathIsTemplate: false,
      params: { node: 'pve2', vmid: 105, timeout: -1 },
      paramsComplete: true,
    });
  });

  it('omits unknown values, lists their keys and marks the params incomplete', () => {
    const src = "await pve.post('/nodes/{node}/qemu', { node: pick(), vmid: 100, ...extra, net0: ['a', x] });";
    const [call] = extractSdkCalls(src);
    expect(call?.params).toEqual({ vmid: 100 });
    expect(call?.unknownParams).toEqual(['node', 'net0']);
    expect(call?.paramsComplete).toBe(false);
  });

  it('reports a non-literal path and non-object params as null', () => {
    const [call] = extractSdkCalls('await pve.get(makePath(), params);');
    expect(call).toMatchObject({ path: null, pathIsTemplate: false, params: null, paramsComplete: false });
  });

  it('carries the cluster of pve.cluster(...) calls, directly and through const aliases', () => {
    const src = [
      "await pve.cluster('lab').get('/version');",
      "const lab = pve.cluster('lab2');",
      "await lab.post('/pools', { poolid: 'p' });",
      'const other = pve.cluster(name);',
      "await other.get('/nodes');",
      "await lab.cluster('prod').delete('/pools/p');",
    ].join('\n');
    const calls = extractSdkCalls(src);
    expect(calls.map((c) => [c.path, c.cluster, c.clusterUnknown])).toEqual([
      ['/version', 'lab', undefined],
      ['/pools', 'lab2', undefined],
      ['/nodes', undefined, true],
      ['/pools/p', 'prod', undefined],
    ]);
  });

  it('ignores look-alikes: other receivers, shadowed pve, unrelated members', () => {
    const src = ["await api.get('/nodes');", "pve.gett('/nodes');", "function f(pve: any) { return pve.get('/shadowed'); }", "map.get('/x');"].join('\n');
    expect(extractSdkCalls(src)).toEqual([]);
  });

  it('accepts element access and parenthesised receivers', () => {
    const calls = extractSdkCalls("await pve['get']('/a'); await (pve).delete('/b');");
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(['GET /a', 'DELETE /b']);
  });

  it('keeps a literal __proto__ key as own data, never as a prototype', () => {
    const [call] = extractSdkCalls("await pve.post('/x', { '__proto__': { polluted: 1 }, a: 1 });");
    expect(Object.getPrototypeOf(call?.params)).toBe(Object.prototype);
    expect(Object.keys(call?.params ?? {})).toEqual(['__proto__', 'a']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('finds calls inside nested functions, callbacks and Promise.all', () => {
    const src = ['const ids = [100, 101];', 'await Promise.all(ids.map((id) => pve.get(`/nodes/pve1/qemu/${id}/config`)));'].join('\n');
    expect(extractSdkCalls(src).map((c) => c.path)).toEqual(['/nodes/pve1/qemu/{?}/config']);
  });

  it('never throws on malformed source', () => {
    expect(() => extractSdkCalls("await pve.get('/a', { node: ")).not.toThrow();
    expect(extractSdkCalls("await pve.get('/a', { node: ")[0]?.path).toBe('/a');
  });
});

describe('waits for tasks', () => {
  it('are not requests: the preflight decides the writes that start the tasks', () => {
    const src = [
      "const upid = await pve.post('/nodes/pve1/qemu/100/status/start');",
      'await pve.waitTask(upid, { timeoutMs: 60000 });',
      "await pve.cluster('lab').waitTask(u2);",
      'await pve.waitTasks([upid]);',
    ].join('\n');
    expect(extractSdkCalls(src)).toEqual([expect.objectContaining({ method: 'POST', path: '/nodes/pve1/qemu/100/status/start', line: 1 })]);
  });
});
