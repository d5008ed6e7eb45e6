import { describe, expect, it, vi } from 'vitest';
import { ERROR_SAMPLES } from '../client/error-samples.js';
import { PVE_ERROR_CODES, type PveErrorCode } from '../../src/client/error-codes.js';
import { PveAbortedError, PveConnectionError, PveTimeoutError } from '../../src/client/errors.js';
import { toBridgeError } from '../../src/bridge/errors.js';
import { BRIDGE_ERROR_KINDS, type BridgeErrorKind } from '../../src/bridge/protocol.js';

/** The kind scripts see for each code, of a read (a change whose outcome is unknown is `unknown`). */
const EXPECTED_KIND: Record<PveErrorCode, BridgeErrorKind> = {
  'pve-config': 'internal',
  'pve-input': 'invalid',
  'pve-aborted': 'cancelled',
  'pve-timeout': 'timeout',
  'pve-connection': 'api',
  'pve-outcome-unknown': 'api',
  'pve-tls': 'api',
  'pve-tls-pin': 'api',
  'pve-protocol': 'api',
  'pve-too-large': 'api',
  'pve-http': 'api',
  'pve-auth': 'api',
  'pve-permission': 'api',
  'pve-not-found': 'api',
  'pve-node-offline': 'api',
  'pve-task-failed': 'task',
  'pve-task-unknown': 'unknown',
  'pve-schema-unavailable': 'internal',
};

const call = { method: 'GET' as const, path: '/nodes/pve1/qemu/100/config', risk: 'read' as const };

describe('client error codes → bridge error kinds', () => {
  it('has an expected kind for every code, and each is a bridge kind', () => {
    expect(Object.keys(EXPECTED_KIND).sort()).toEqual([...PVE_ERROR_CODES].sort());
    for (const kind of Object.values(EXPECTED_KIND)) expect(BRIDGE_ERROR_KINDS).toContain(kind);
  });

  it.each(PVE_ERROR_CODES)('maps %s to its kind', (code) => {
    const err = ERROR_SAMPLES[code]();
    expect(toBridgeError(err, call).kind).toBe(EXPECTED_KIND[code]);
  });

  it('keeps messages, statuses and per-parameter errors as scripts saw them', () => {
    const http = toBridgeError(ERROR_SAMPLES['pve-http'](), call);
    expect(JSON.stringify(http)).toBe(
      JSON.stringify({
        kind: 'api',
        message: 'GET /nodes/pve1/qemu/100/config failed with HTTP 400: Parameter verification failed. [memory: value must be at least 16].',
        status: 400,
        errors: { memory: 'value must be at least 16' },
        ...call,
        outcome: 'failed',
      }),
    );
    expect(toBridgeError(ERROR_SAMPLES['pve-node-offline'](), call)).toMatchObject({ kind: 'api', status: 595 });
    // A read aborted after it left got no answer (failed, safe to repeat); one aborted before it left was not sent.
    expect(toBridgeError(new PveAbortedError('GET', call.path, true), call)).toMatchObject({ kind: 'cancelled', outcome: 'failed', ...call });
    expect(toBridgeError(new PveAbortedError('GET', call.path, false), call)).toMatchObject({ kind: 'cancelled', outcome: 'not-sent', ...call });
    const config = ERROR_SAMPLES['pve-config']();
    expect(toBridgeError(config, {})).toEqual({ kind: 'internal', message: `internal bridge error: ${config.message}`, outcome: 'not-sent' });
    for (const code of PVE_ERROR_CODES) {
      if (code === 'pve-aborted') continue;
      const err = ERROR_SAMPLES[code]();
      expect(toBridgeError(err, call).message).toContain(err.message);
    }
  });

  it('makes a write that may have run kind and outcome `unknown`, never `timeout` or `cancelled`', () => {
    const path = '/nodes/pve1/qemu/100/status/start';
    const timedOut = toBridgeError(new PveTimeoutError('headers', 60_000, 'POST', path), { method: 'POST', path });
    expect(timedOut).toMatchObject({ kind: 'unknown', outcome: 'unknown', message: expect.stringMatching(/outcome is unknown/) });
    expect(timedOut).not.toHaveProperty('status');
    const reset = toBridgeError(new PveConnectionError('cannot talk', 'ECONNRESET', true, 'POST', path), { method: 'POST', path });
    expect(reset).toMatchObject({ kind: 'unknown', outcome: 'unknown' });
    expect(reset.message).toMatch(/\(ECONNRESET\)/);
    expect(toBridgeError(ERROR_SAMPLES['pve-node-offline'](), { method: 'POST', path })).toMatchObject({ kind: 'unknown', outcome: 'unknown' });
    // A connect timeout of the same write sent nothing.
    expect(toBridgeError(new PveTimeoutError('connect', 10_000, 'POST', path), { method: 'POST', path })).toMatchObject({ kind: 'timeout', outcome: 'not-sent' });
  });

  it("a change that failed before its own request left is not sent, whatever the lookup's failure was", () => {
    const path = '/nodes/pve1/qemu/100/status/start';
    const lookup = new PveConnectionError('GET /cluster/resources: cannot talk', 'ECONNRESET', true, 'GET', '/cluster/resources');
    const e = toBridgeError(lookup, { method: 'POST', path, risk: 'write' }, false);
    expect(e).toMatchObject({ kind: 'api', outcome: 'not-sent', method: 'POST', path });
    expect(e.message).toMatch(/^POST \/nodes\/pve1\/qemu\/100\/status\/start was not sent: /);
  });

  it("carries a failed task's upid, node, exit status and log tail; a task it could not read is unknown", () => {
    const failed = toBridgeError(ERROR_SAMPLES['pve-task-failed'](), {});
    expect(failed).toMatchObject({ kind: 'task', outcome: 'failed', upid: expect.stringMatching(/^UPID:/), node: expect.any(String), exitstatus: expect.any(String) });
    expect(Array.isArray(failed.log)).toBe(true);
    const unknown = toBridgeError(ERROR_SAMPLES['pve-task-unknown'](), {});
    expect(unknown).toMatchObject({ kind: 'unknown', outcome: 'unknown', upid: expect.stringMatching(/^UPID:/) });
  });

  it('classifies an error of another copy of the client module by its code', async () => {
    vi.resetModules();
    const copy = (await import('../../src/client/errors.js?copy')) as typeof import('../../src/client/errors.js');
    const httpCopy = (await import('../../src/client/http-errors.js?copy')) as typeof import('../../src/client/http-errors.js');
    const foreign = new httpCopy.PveNotFoundError({ status: 500, pveMessage: 'no such VM', method: 'GET', path: '/x' });
    expect(toBridgeError(foreign, {})).toMatchObject({ kind: 'api', status: 500 });
    expect(toBridgeError(new copy.PveInputError('bad UPID'), {}).kind).toBe('invalid');
  });

  it('maps what is not a client error as before: aborts, status-bearing errors, the rest internal', () => {
    expect(toBridgeError(new DOMException('aborted', 'AbortError'), {})).toMatchObject({ kind: 'cancelled', outcome: 'not-sent' });
    expect(toBridgeError(Object.assign(new Error('bad gateway'), { status: 502 }), {})).toEqual({ kind: 'api', message: 'bad gateway', status: 502, outcome: 'failed' });
    expect(toBridgeError(new Error('boom'), {})).toEqual({ kind: 'internal', message: 'internal bridge error: boom', outcome: 'failed' });
    expect(toBridgeError(new Error('boom'), { method: 'DELETE', path: '/x' })).toMatchObject({ kind: 'internal', outcome: 'unknown' });
  });
});
