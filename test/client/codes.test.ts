import { describe, expect, it, vi } from 'vitest';
import { ERROR_SAMPLES } from './error-samples.js';
import { causeCodeOf, httpStatusOf, isPveError, isPveErrorCode, PVE_ERROR_CODES } from '../../src/client/error-codes.js';
import { PveConnectionError, PveError, PveOutcomeUnknownError, PveTlsError, TlsPinMismatchError } from '../../src/client/errors.js';
import { PveHttpError } from '../../src/client/http-errors.js';
import { outcomeUnknown } from '../../src/client/outcome.js';

describe('stable error codes', () => {
  it('lists each code once, prefixed and kebab-case, and every code has a sample error', () => {
    expect(new Set(PVE_ERROR_CODES).size).toBe(PVE_ERROR_CODES.length);
    for (const code of PVE_ERROR_CODES) expect(code).toMatch(/^pve-[a-z]+(-[a-z]+)*$/);
    expect(Object.keys(ERROR_SAMPLES).sort()).toEqual([...PVE_ERROR_CODES].sort());
  });

  it('gives each class its own code, the most specific one, and a guard that accepts all of them', () => {
    for (const code of PVE_ERROR_CODES) {
      const err = ERROR_SAMPLES[code]();
      expect(err.code, err.name).toBe(code);
      expect(isPveError(err), code).toBe(true);
      expect(isPveErrorCode(err.code)).toBe(true);
      expect(err).toBeInstanceOf(PveError);
    }
    // Subclasses keep their place in the hierarchy; only the code is the most specific.
    const pin = ERROR_SAMPLES['pve-tls-pin']();
    expect(pin).toBeInstanceOf(PveTlsError);
    expect(pin).toBeInstanceOf(PveConnectionError);
    expect(ERROR_SAMPLES['pve-node-offline']()).toBeInstanceOf(PveHttpError);
  });

  it('keeps the code off the instance: JSON and own keys are unchanged', () => {
    for (const code of PVE_ERROR_CODES) {
      const err = ERROR_SAMPLES[code]();
      expect(Object.keys(err)).not.toContain('code');
      expect(JSON.parse(JSON.stringify(err))).not.toHaveProperty('code');
    }
  });

  it('rejects what is not a client error, including other errors with a code', () => {
    const econn = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8006'), { code: 'ECONNREFUSED' });
    for (const other of [
      undefined,
      null,
      'pve-http',
      42,
      new Error('boom'),
      econn,
      Object.assign(new Error('the state lock is held'), { code: 'state-locked' }),
      { code: 'pve-http' },
      { code: 'pve-unheard-of', message: 'x' },
      { code: 'http', message: 'x' },
    ]) {
      expect(isPveError(other), String(other)).toBe(false);
    }
    expect(isPveErrorCode('pve-tls-pin')).toBe(true);
    expect(isPveErrorCode('tls-pin')).toBe(false);
  });

  it('recognizes an error from another copy of the module, which instanceof does not', async () => {
    vi.resetModules();
    const copy = (await import('../../src/client/http-errors.js?copy')) as typeof import('../../src/client/http-errors.js');
    const foreign = new copy.PveHttpError({ status: 503, pveMessage: 'busy', method: 'GET', path: '/nodes' });
    expect(foreign).not.toBeInstanceOf(PveHttpError);
    expect(isPveError(foreign)).toBe(true);
    expect(foreign.code).toBe('pve-http');
  });

  it('keeps the Node/undici code of a connection failure in causeCode, apart from the product code', () => {
    const refused = ERROR_SAMPLES['pve-connection']() as PveConnectionError;
    expect(refused).toMatchObject({ code: 'pve-connection', causeCode: 'ECONNREFUSED', transient: true });
    expect(ERROR_SAMPLES['pve-tls']()).toMatchObject({ code: 'pve-tls', causeCode: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    expect(new TlsPinMismatchError('h:8006', 'AA', 'BB')).toMatchObject({ code: 'pve-tls-pin', causeCode: 'FINGERPRINT_MISMATCH' });
    const reset = new PveConnectionError('x', 'ECONNRESET', true, 'POST', '/nodes/pve1/qemu');
    const unknown = outcomeUnknown(reset);
    expect(unknown).toBeInstanceOf(PveOutcomeUnknownError);
    expect(unknown).toMatchObject({ code: 'pve-outcome-unknown', causeCode: 'ECONNRESET', transient: false, failure: 'ECONNRESET' });
  });

  it('reads the HTTP status and the cause code of the families that have them, and nothing of others', () => {
    const withStatus = PVE_ERROR_CODES.filter((code) => httpStatusOf(ERROR_SAMPLES[code]()) !== undefined);
    expect(withStatus).toEqual(['pve-http', 'pve-auth', 'pve-permission', 'pve-not-found', 'pve-node-offline']);
    expect(httpStatusOf(ERROR_SAMPLES['pve-node-offline']())).toBe(595);
    const withCause = PVE_ERROR_CODES.filter((code) => causeCodeOf(ERROR_SAMPLES[code]()) !== undefined);
    // The outcome-unknown sample has no cause; one made from a reset keeps its code (above).
    expect(withCause).toEqual(['pve-connection', 'pve-tls', 'pve-tls-pin']);
    const econn = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', status: 502 });
    expect(causeCodeOf(econn)).toBeUndefined();
    expect(httpStatusOf(econn)).toBeUndefined();
  });
});
