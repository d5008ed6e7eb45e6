import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { parseBridgeCall } from './contract.js';
import { BRIDGE_ERROR_KINDS } from './protocol.js';

const ok = (json: string) => {
  const r = parseBridgeCall(json, 10_000);
  if (!r.ok) throw new Error(r.message);
  return r.call;
};
const refused = (json: string) => {
  const r = parseBridgeCall(json, 10_000);
  expect(r.ok).toBe(false);
  return r.ok ? '' : r.message;
};

describe('parseBridgeCall', () => {
  it('accepts requests with templates, concrete paths and volume ids', () => {
    expect(ok('{"kind":"request","method":"GET","path":"/nodes/{node}/qemu","params":{"node":"pve1"}}')).toEqual({
      kind: 'request',
      method: 'GET',
      path: '/nodes/{node}/qemu',
      params: { node: 'pve1' },
    });
    expect(ok('{"kind":"request","method":"DELETE","path":"/nodes/pve1/storage/local/content/local:iso/debian-12.iso","params":{}}').kind).toBe('request');
    expect(ok('{"kind":"request","method":"GET","path":"/access/users/root@pam!tok","params":{},"cluster":"lab-2"}')).toMatchObject({ cluster: 'lab-2' });
  });

  it('accepts waitTask calls', () => {
    expect(ok('{"kind":"waitTask","upid":"UPID:pve1:0000000A:0000000B:65A0B1C2:qmstart:100:root@pam:","timeoutMs":1000}')).toMatchObject({ kind: 'waitTask', timeoutMs: 1000 });
  });

  it('leaves what is inside the path and the params to request resolution, the one check of them', () => {
    // Each of these is refused once, where the call is resolved (test/bridge/one-check.test.ts).
    expect(ok('{"kind":"request","method":"GET","path":"/nodes/../x","params":{}}').kind).toBe('request');
    expect(ok('{"kind":"request","method":"GET","path":"/a%2e%2e/b","params":{}}').kind).toBe('request');
    expect(ok('{"kind":"request","method":"POST","path":"/a","params":{"__proto__":{"x":1}}}').kind).toBe('request');
    let params = '1';
    for (let i = 0; i < 40; i++) params = `{"a":${params}}`;
    expect(ok(`{"kind":"request","method":"POST","path":"/a","params":${params}}`).kind).toBe('request');
    expect(ok('{"kind":"waitTask","upid":"rm -rf"}').kind).toBe('waitTask');
  });

  it('refuses prototype-bending keys on the envelope, where schema parsing would drop them', () => {
    expect(refused('{"kind":"request","method":"POST","path":"/a","params":{},"__proto__":{}}')).toMatch(/__proto__/);
  });

  it('refuses unknown methods, extra fields, bad clusters, long paths and task IDs, params that are no object, and oversized calls', () => {
    expect(refused('{"kind":"request","method":"PATCH","path":"/a","params":{}}')).toMatch(/method/);
    expect(refused('{"kind":"request","method":"GET","path":"/a","params":{},"url":"http://x"}')).toMatch(/invalid call/);
    expect(refused('{"kind":"request","method":"GET","path":"/a","params":{},"cluster":"../x"}')).toMatch(/cluster/);
    expect(refused('{"kind":"request","method":"GET","path":"/a","params":[]}')).toMatch(/params must be an object/);
    expect(refused(`{"kind":"request","method":"GET","path":"/${'a'.repeat(2_100)}","params":{}}`)).toMatch(/longer than 2048/);
    expect(refused(`{"kind":"waitTask","upid":"${'U'.repeat(600)}"}`)).toMatch(/upid/);
    expect(parseBridgeCall('{"kind":"request"}'.padEnd(20_000, ' '), 10_000)).toMatchObject({ ok: false });
    expect(refused('not json')).toMatch(/not valid JSON/);
  });
});

describe('the error kinds a script sees', () => {
  const root = new URL('../../', import.meta.url);
  it("are the contract's own: the prelude names each, the SDK typing lists exactly them", () => {
    const prelude = readFileSync(new URL('sandbox/prelude.js', root), 'utf8');
    const names = /const ERROR_NAMES = (?:ObjectFreeze\()?\{([^}]*)\}/.exec(prelude)?.[1] ?? '';
    const named = [...names.matchAll(/(\w+):/g)].map((m) => m[1]).filter((k) => k !== '__proto__');
    expect(new Set(named)).toEqual(new Set(BRIDGE_ERROR_KINDS));
    const typings = readFileSync(new URL('sdk-typings/pve.d.ts', root), 'utf8');
    const union = /\n\s*kind: ((?:'[a-z]+' \| )+'[a-z]+');/.exec(typings)?.[1] ?? '';
    expect(union.split(' | ').map((k) => k.slice(1, -1))).toEqual([...BRIDGE_ERROR_KINDS]);
  });
});

describe('the SDK a script sees', () => {
  const root = new URL('../../', import.meta.url);
  it('has the same members in the prelude, the typing and the static call scan', async () => {
    const { SDK_MEMBERS } = await import('../script/calls.js');
    const prelude = readFileSync(new URL('sandbox/prelude.js', root), 'utf8');
    const client = /function makeClient\(cluster\) \{\s*const client = \{([\s\S]*?)\n {4}\};/.exec(prelude)?.[1] ?? '';
    const inPrelude = [...client.matchAll(/^ {6}(\w+): /gm)].map((m) => m[1]);
    const typings = readFileSync(new URL('sdk-typings/pve.d.ts', root), 'utf8');
    const pve = /\ninterface Pve \{([\s\S]*?)\n\}/.exec(typings)?.[1] ?? '';
    const typed = [...new Set([...pve.matchAll(/^ {2}(\w+)[<(]/gm)].map((m) => m[1]))];
    expect(inPrelude.sort()).toEqual([...SDK_MEMBERS].sort());
    expect(typed.sort()).toEqual([...SDK_MEMBERS].sort());
  });
});
