import { describe, expect, it } from 'vitest';
import { PveConnectionError, PveOutcomeUnknownError, PveTimeoutError } from './errors.js';
import { PveNotFoundError } from './http-errors.js';
import { outcomeUnknown } from './outcome.js';
import { readEnvelope } from './response.js';

const caller = { authId: 'mcp@pve!mcp', kind: 'token' as const };

function notFound(path: string, message: string): PveNotFoundError {
  try {
    readEnvelope({ status: 500, statusText: message, body: JSON.stringify({ data: null, message: `${message}\n` }) }, 'GET', path, caller);
  } catch (err) {
    return err as PveNotFoundError;
  }
  throw new Error('no error');
}

describe('hints that know what the path names', () => {
  it('a guest missing under qemu may be a container or on another node, and says where to look', () => {
    const err = notFound('/nodes/pve1/qemu/123/status/current', "Configuration file 'nodes/pve1/qemu-server/123.conf' does not exist");
    expect(err).toBeInstanceOf(PveNotFoundError);
    expect(err.message).toMatch(/no VM \(qemu\) 123 on node 'pve1': it may be a container \(lxc\), live on another node/);
    expect(err.message).toMatch(/GET \/cluster\/resources \{type: 'vm'\} \(fields node and type\)/);
    const ct = notFound('/nodes/pve2/lxc/200/config', "Configuration file 'nodes/pve2/lxc/200.conf' does not exist");
    expect(ct.message).toMatch(/no container \(lxc\) 200 on node 'pve2': it may be a VM \(qemu\)/);
    // Other objects keep the general hint.
    expect(notFound('/pools/web', "pool 'web' does not exist").message).toMatch(/list it again/);
  });
});

describe('writes whose outcome is unknown', () => {
  it('a write that lost its connection after sending may have run, and names where to look', () => {
    const reset = new PveConnectionError('POST /nodes/pve1/qemu/100/status/start: cannot talk to …', 'ECONNRESET', true, 'POST', '/nodes/pve1/qemu/100/status/start');
    const err = outcomeUnknown(reset);
    expect(err).toBeInstanceOf(PveOutcomeUnknownError);
    expect(err).toBeInstanceOf(PveConnectionError);
    expect(err?.message).toMatch(/was sent, but the connection failed before Proxmox answered \(ECONNRESET\): the outcome is unknown — it may have run/);
    expect(err?.message).toMatch(/GET \/nodes\/\{node\}\/tasks/);
    expect(err?.message).not.toMatch(/pveproxy is running/);
    const timeout = outcomeUnknown(new PveTimeoutError('headers', 60_000, 'PUT', '/nodes/pve1/qemu/100/config'));
    expect(timeout?.message).toMatch(/timed out \(headers\)/);
  });

  it('a read, a refused connection or a connect timeout is not one: nothing ran or it can be repeated', () => {
    expect(outcomeUnknown(new PveConnectionError('x', 'ECONNRESET', true, 'GET', '/nodes'))).toBeUndefined();
    expect(outcomeUnknown(new PveConnectionError('x', 'ECONNREFUSED', true, 'POST', '/nodes/pve1/qemu'))).toBeUndefined();
    expect(outcomeUnknown(new PveTimeoutError('connect', 10_000, 'POST', '/nodes/pve1/qemu'))).toBeUndefined();
    expect(outcomeUnknown(new Error('boom'))).toBeUndefined();
  });
});
