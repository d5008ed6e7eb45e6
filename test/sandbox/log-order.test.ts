/**
 * A log line reaches the server before the bridge call the script makes after it: both leave in
 * the slice that made them, in order. Sent fire-and-forget, the line came after the call, and a
 * reply that started a long slice held it back until that slice ended (the operator saw nothing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BridgeHandler } from '../../src/bridge/protocol.js';
import { SandboxEngine } from '../../src/sandbox/engine.js';
import { fakeBridge } from './fake-bridge.js';

let engine: SandboxEngine;

beforeAll(async () => {
  engine = new SandboxEngine({ workers: 1 });
  await engine.warm();
});

afterAll(async () => {
  await engine.close();
});

describe('log lines and bridge calls', () => {
  it('reach the server in the order the script made them', async () => {
    const events: string[] = [];
    const bridge = fakeBridge();
    const handler: BridgeHandler = (call, ctx) => {
      events.push(`call ${call.kind === 'request' ? call.path : call.kind}`);
      return bridge.handler(call, ctx);
    };
    const code = "console.log('first');\nawait pve.get('/version');\nconsole.log('second');\nawait pve.get('/version');\nreturn 1;";
    const outcome = await engine.run({ code, typecheck: false, onLog: (line) => events.push(`log ${line}`) }, handler);
    expect(outcome.result).toBe(1);
    expect(events).toEqual(['log first', 'call /version', 'log second', 'call /version']);
  });
});
