import { describe, expect, it } from 'vitest';
import { ERROR_SAMPLES } from './error-samples.js';
import { PVE_ERROR_CODES, type PveErrorCode } from '../../src/client/error-codes.js';
import { PveAbortedError, PveConnectionError, PveTimeoutError } from '../../src/client/errors.js';
import { PveHttpError } from '../../src/client/http-errors.js';
import { type CallOutcome, callOutcomeOf } from '../../src/client/outcome.js';

/** Each sample (as a read raises it) classified for a GET and for a POST. */
const EXPECTED: Record<PveErrorCode, { GET: CallOutcome; POST: CallOutcome }> = {
  'pve-config': { GET: 'not-sent', POST: 'not-sent' },
  'pve-input': { GET: 'not-sent', POST: 'not-sent' },
  'pve-aborted': { GET: 'failed', POST: 'unknown' },
  'pve-timeout': { GET: 'failed', POST: 'unknown' },
  'pve-connection': { GET: 'not-sent', POST: 'not-sent' },
  'pve-outcome-unknown': { GET: 'failed', POST: 'unknown' },
  'pve-tls': { GET: 'not-sent', POST: 'not-sent' },
  'pve-tls-pin': { GET: 'not-sent', POST: 'not-sent' },
  'pve-protocol': { GET: 'failed', POST: 'unknown' },
  'pve-too-large': { GET: 'failed', POST: 'unknown' },
  'pve-http': { GET: 'failed', POST: 'failed' },
  'pve-auth': { GET: 'failed', POST: 'failed' },
  'pve-permission': { GET: 'failed', POST: 'failed' },
  'pve-not-found': { GET: 'failed', POST: 'failed' },
  'pve-node-offline': { GET: 'failed', POST: 'unknown' },
  'pve-task-failed': { GET: 'failed', POST: 'failed' },
  'pve-task-unknown': { GET: 'unknown', POST: 'unknown' },
  'pve-schema-unavailable': { GET: 'not-sent', POST: 'not-sent' },
};

describe('callOutcomeOf', () => {
  it('has an expected outcome for every code', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...PVE_ERROR_CODES].sort());
  });

  it.each(PVE_ERROR_CODES)('classifies %s for a read and for a write', (code) => {
    const err = ERROR_SAMPLES[code]();
    expect(callOutcomeOf(err, 'GET')).toBe(EXPECTED[code].GET);
    expect(callOutcomeOf(err, 'POST')).toBe(EXPECTED[code].POST);
    // PUT and DELETE are writes like POST.
    expect(callOutcomeOf(err, 'PUT')).toBe(EXPECTED[code].POST);
    expect(callOutcomeOf(err, 'DELETE')).toBe(EXPECTED[code].POST);
  });

  it('never calls a read unknown, except for the task codes, which describe the task', () => {
    for (const code of PVE_ERROR_CODES) {
      if (code === 'pve-task-unknown') continue;
      expect(callOutcomeOf(ERROR_SAMPLES[code](), 'GET'), code).not.toBe('unknown');
    }
    expect(callOutcomeOf(new PveTimeoutError('task', 1_000, undefined, 'task UPID:…'), 'GET')).toBe('unknown');
  });

  it('follows whether the request left', () => {
    expect(callOutcomeOf(new PveAbortedError('POST', '/x', false), 'POST')).toBe('not-sent');
    expect(callOutcomeOf(new PveAbortedError('POST', '/x', true), 'POST')).toBe('unknown');
    expect(callOutcomeOf(new PveAbortedError('GET', '/x', false), 'GET')).toBe('not-sent');
    expect(callOutcomeOf(new PveTimeoutError('connect', 10, 'POST', '/x'), 'POST')).toBe('not-sent');
    expect(callOutcomeOf(new PveTimeoutError('request', 10, 'POST', '/x', undefined, undefined, false), 'POST')).toBe('not-sent');
    expect(callOutcomeOf(new PveTimeoutError('request', 10, 'POST', '/x'), 'POST')).toBe('unknown');
    const reset = new PveConnectionError('reset', 'ECONNRESET', true, 'POST', '/x');
    expect(callOutcomeOf(reset, 'POST')).toBe('unknown');
    expect(callOutcomeOf(reset, 'GET')).toBe('failed');
    expect(callOutcomeOf(new PveConnectionError('reset', 'ECONNRESET', true, 'POST', '/x', undefined, false), 'POST')).toBe('not-sent');
  });

  it("treats AnyEvent's other proxy statuses like 595/596, and what is not a client error as possibly sent", () => {
    const proxyBody = new PveHttpError({ status: 597, pveMessage: 'Connection reset by peer', method: 'POST', path: '/x' });
    expect(callOutcomeOf(proxyBody, 'POST')).toBe('unknown');
    expect(callOutcomeOf(proxyBody, 'GET')).toBe('failed');
    expect(callOutcomeOf(new Error('boom'), 'POST')).toBe('unknown');
    expect(callOutcomeOf(new Error('boom'), 'GET')).toBe('failed');
  });
});
