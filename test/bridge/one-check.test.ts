/**
 * A call's shape is checked once: the contract reads the JSON's envelope, request resolution is
 * the one check of the path and the params (and matches the path against the schema, once), and
 * the client sends the resolved call without matching it again. docs/architecture.md counts on it.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { parseBridgeCall } from '../../src/bridge/contract.js';
import type { BridgeReply } from '../../src/bridge/protocol.js';
import type { PveClient } from '../../src/client/client.js';
import * as request from '../../src/policy/request.js';
import { ApiModel } from '../../src/schema/model.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { useSimBridge } from '../support/sim-bridge.js';

// Every importer of request.ts (the handler) gets this module: its resolutions are counted.
vi.mock('../../src/policy/request.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/policy/request.js')>();
  return { ...original, resolveRequest: vi.fn(original.resolveRequest) };
});

const bridge = useSimBridge();
let sim: RunningSimulator;
let client: PveClient;
beforeAll(() => void ({ sim, client } = bridge));
const handler = () => bridge.handler('one-check');

/** The call as the sandbox channel hands it over: JSON, through the contract, then the handler. */
async function call(h: ReturnType<typeof handler>, json: string): Promise<BridgeReply> {
  const parsed = parseBridgeCall(json, 100_000);
  return h(parsed.ok ? parsed.call : { kind: 'rejected', error: { kind: 'invalid', message: parsed.message } }, { signal: new AbortController().signal });
}

describe('one call, checked once', () => {
  it('resolves a live read once and matches its path against the schema once, from the JSON to PVE and back', async () => {
    const h = handler();
    const resolve = vi.mocked(request.resolveRequest);
    const match = vi.spyOn(ApiModel.prototype, 'matchPath');
    resolve.mockClear();
    const reply = await call(h, '{"kind":"request","method":"GET","path":"/nodes/{node}/qemu/{vmid}/status/current","params":{"node":"pve1","vmid":100}}');
    expect(reply).toMatchObject({ ok: true, data: { vmid: 100 } });
    expect(resolve).toHaveBeenCalledTimes(1);
    expect(match).toHaveBeenCalledTimes(1);
    match.mockRestore();
  });

  it('sends an array parameter as the resolved operation declares it, without matching the path again', async () => {
    const withArray = sim.model.paths.flatMap((p) => sim.model.byPath(p)).find((op) => op.params.some((p) => p.type === 'array' && !p.inPath));
    expect(withArray, 'the simulator declares an operation with a type: array param').toBeDefined();
    const arrayParam = withArray?.params.find((p) => p.type === 'array')?.name;
    // Path values that fit any template of the simulator's (a VMID, else a node-like name).
    const pathValues = Object.fromEntries((withArray?.path.match(/\{(\w+)\}/g) ?? []).map((m) => [m.slice(1, -1), m === '{vmid}' ? 100 : 'pve1']));
    const resolved = request.resolveRequest(sim.model, withArray!.method, withArray!.path, pathValues);
    expect([...resolved.arrayParams]).toContain(arrayParam);
    const send = vi.spyOn(client, 'send');
    const match = vi.spyOn(ApiModel.prototype, 'matchPath');
    await call(handler(), '{"kind":"request","method":"GET","path":"/version","params":{}}');
    expect(send).toHaveBeenCalledWith(expect.objectContaining({ urlPath: '/version', arrayParams: expect.any(Set) }), expect.anything());
    expect(match).toHaveBeenCalledTimes(1);
    send.mockRestore();
    match.mockRestore();
  });

  it('refuses what is inside the path and the params once, where the call is resolved, nothing sent', async () => {
    const h = handler();
    let deep = '1';
    for (let i = 0; i < 17; i++) deep = `{"a":${deep}}`;
    const cases: Array<[string, RegExp]> = [
      ['{"kind":"request","method":"GET","path":"/nodes/../x","params":{}}', /dot segment/],
      ['{"kind":"request","method":"GET","path":"/a%2e%2e/b","params":{}}', /'%'/],
      ['{"kind":"request","method":"GET","path":"/nodes?x=1","params":{}}', /'\?'/],
      ['{"kind":"request","method":"GET","path":"nodes","params":{}}', /must start with '\/'/],
      ['{"kind":"request","method":"POST","path":"/nodes/pve1/qemu/100/config","params":{"__proto__":{"x":1}}}', /forbidden key/],
      ['{"kind":"request","method":"POST","path":"/nodes/pve1/qemu/100/config","params":{"a":[{"constructor":{}}]}}', /params\.a\[0\]\.constructor/],
      [`{"kind":"request","method":"POST","path":"/nodes/pve1/qemu/100/config","params":${deep}}`, /nested deeper than 16/],
      ['{"kind":"waitTask","upid":"rm -rf"}', /not a task ID/],
      ['{"kind":"waitTask","upid":"UPID:pve1:000A:0000000B:65A0B1C2:qmstart:100:root@pam:"}', /not a task ID \(UPID:<node>/],
    ];
    for (const [json, message] of cases) {
      const reply = await call(h, json);
      expect(reply.ok, json).toBe(false);
      if (!reply.ok) {
        expect(reply.error, json).toMatchObject({ kind: 'invalid', outcome: 'not-sent' });
        expect(reply.error.message, json).toMatch(message);
      }
    }
  });
});
