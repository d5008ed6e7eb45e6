/**
 * An in-memory bridge handler for sandbox tests: makes the one check the real handler makes before
 * it acts on a call (request resolution's shape check, src/policy/call-shape.ts), answers a few
 * GETs from fixed data and refuses everything else, recording every call it acted on so tests can
 * prove hostile input never got past that check.
 */
import type { BridgeCall, BridgeHandler, BridgeReply } from '../../src/bridge/protocol.js';
import { callShape, InvalidCallError, taskNode } from '../../src/policy/call-shape.js';

export interface FakeBridge {
  handler: BridgeHandler;
  /** Calls that passed the shape check: what the handler acted on. */
  calls: BridgeCall[];
  /** Calls the shape check refused (or the channel did), with the refusal's message. */
  refused: Array<{ call: BridgeCall; message: string }>;
  /** Calls that are still waiting for an answer (for the never-answering path). */
  inFlight(): number;
}

const VMS = [
  { vmid: 100, name: 'web', status: 'running' },
  { vmid: 101, name: 'db', status: 'stopped' },
];

export function fakeBridge(options: { hangPaths?: string[]; delayMs?: number } = {}): FakeBridge {
  const calls: BridgeCall[] = [];
  const refused: FakeBridge['refused'] = [];
  let pending = 0;
  const shapeProblem = (call: BridgeCall): string | undefined => {
    if (call.kind === 'rejected') return call.error.message;
    try {
      if (call.kind === 'request') callShape(call.path, call.params);
      else taskNode(call.upid);
      return undefined;
    } catch (err) {
      if (err instanceof InvalidCallError) return err.message;
      throw err;
    }
  };
  const answer = (call: BridgeCall): BridgeReply => {
    if (call.kind === 'rejected') return { ok: false, error: call.error };
    if (call.kind === 'waitTask') {
      return { ok: true, data: { upid: call.upid, node: 'pve1', status: 'stopped', exitstatus: 'OK', ok: true, log: ['done'] } };
    }
    if (call.method !== 'GET') {
      return { ok: false, error: { kind: 'denied', message: `${call.method} ${call.path} is refused by the test policy`, method: call.method, path: call.path, risk: 'write' } };
    }
    switch (call.path) {
      case '/version':
        return { ok: true, data: { version: '9.1.1', release: '9.1' } };
      case '/nodes/{node}/qemu':
      case '/nodes/pve1/qemu':
        return { ok: true, data: VMS };
      case '/echo':
        return { ok: true, data: { params: call.params, cluster: call.cluster ?? null } };
      case '/proto':
        return { ok: true, data: JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"a":1}') };
      case '/big':
        return { ok: true, data: Array.from({ length: 3_000 }, (_, i) => ({ id: i, text: 'x'.repeat(200) })) };
      default:
        return { ok: false, error: { kind: 'api', message: `GET ${call.path}: 404 no such path`, method: 'GET', path: call.path, status: 404 } };
    }
  };
  const handler: BridgeHandler = async (call, ctx) => {
    const problem = shapeProblem(call);
    if (problem !== undefined) {
      refused.push({ call, message: problem });
      return call.kind === 'rejected' ? { ok: false, error: call.error } : { ok: false, error: { kind: 'invalid', message: problem } };
    }
    calls.push(call);
    if (call.kind === 'request' && options.hangPaths?.includes(call.path)) {
      pending++;
      // Never answers on its own; ends when the run ends, like an aborted HTTP request.
      return new Promise<BridgeReply>((resolve) =>
        ctx.signal.addEventListener('abort', () => {
          pending--;
          resolve({ ok: false, error: { kind: 'cancelled', message: 'run ended' } });
        }),
      );
    }
    if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
    return answer(call);
  };
  return { handler, calls, refused, inFlight: () => pending };
}

/** What a handler may receive: a clean path and JSON params without prototype-bending keys. */
export function assertSafeCall(call: BridgeCall): void {
  const bad = (why: string) => {
    throw new Error(`unsafe call reached the handler (${why}): ${JSON.stringify(call)}`);
  };
  if (call.kind === 'request') {
    if (!call.path.startsWith('/') || call.path.split('/').some((s) => s === '..' || s === '.')) bad('path');
    if (/[%?#\\\s]/.test(call.path)) bad('path characters');
    if (Object.getPrototypeOf(call.params) !== Object.prototype) bad('params prototype');
    const stack: unknown[] = [call.params];
    while (stack.length > 0) {
      const v = stack.pop();
      if (typeof v !== 'object' || v === null) continue;
      for (const key of Object.keys(v)) {
        if (key === '__proto__' || key === 'constructor' || key === 'prototype') bad(`key ${key}`);
        stack.push((v as Record<string, unknown>)[key]);
      }
    }
  }
  if (call.cluster !== undefined && !/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(call.cluster)) bad('cluster');
}
