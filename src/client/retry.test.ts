import { describe, expect, it } from 'vitest';
import { PveConnectionError, PveTimeoutError, TlsPinMismatchError } from './errors.js';
import { PveHttpError } from './http-errors.js';
import { backoffDelayMs, beforeRetry, isRetryable } from './retry.js';

const http = (status: number): PveHttpError => new PveHttpError({ status, pveMessage: 'x', method: 'GET', path: '/nodes' });
const fast = { attempts: 3, baseDelayMs: 1, maxDelayMs: 2 };

/** The client's loop over its tries (PveClient), asking beforeRetry after each failure. */
async function withRetries<T>(method: 'GET' | 'POST', path: string, opts: typeof fast, once: () => Promise<T>): Promise<T> {
  for (let tried = 1; ; tried++) {
    try {
      return await once();
    } catch (err) {
      await beforeRetry(method, path, opts, err, tried);
    }
  }
}

describe('retry policy', () => {
  it('classifies transient failures as retryable and everything else not', () => {
    expect(isRetryable(new PveConnectionError('reset', 'ECONNRESET', true))).toBe(true);
    expect(isRetryable(new PveConnectionError('dns', 'ENOTFOUND', false))).toBe(false);
    expect(isRetryable(new TlsPinMismatchError('h:8006', 'AA', 'BB'))).toBe(false);
    expect(isRetryable(new PveTimeoutError('headers', 10, 'GET', '/x'))).toBe(true);
    expect(isRetryable(new PveTimeoutError('request', 10, 'GET', '/x'))).toBe(false);
    for (const s of [502, 503, 504, 595, 596]) expect(isRetryable(http(s))).toBe(true);
    for (const s of [400, 401, 403, 500, 501]) expect(isRetryable(http(s))).toBe(false);
  });

  it('keeps jittered delays within half and all of the capped exponential step', () => {
    const opts = { attempts: 5, baseDelayMs: 100, maxDelayMs: 1000 };
    expect(backoffDelayMs(0, opts, () => 0)).toBe(50);
    expect(backoffDelayMs(0, opts, () => 1)).toBe(100);
    expect(backoffDelayMs(2, opts, () => 0.5)).toBe(300);
    expect(backoffDelayMs(10, opts, () => 1)).toBe(1000);
  });

  it('retries a GET up to the attempt limit but runs a POST once', async () => {
    let gets = 0;
    await expect(
      withRetries('GET', '/x', fast, async () => {
        gets++;
        throw http(503);
      }),
    ).rejects.toThrow(PveHttpError);
    expect(gets).toBe(3);
    let posts = 0;
    await expect(
      withRetries('POST', '/x', fast, async () => {
        posts++;
        throw http(503);
      }),
    ).rejects.toThrow(PveHttpError);
    expect(posts).toBe(1);
  });

  it('returns the first success and does not retry a 4xx', async () => {
    let n = 0;
    expect(await withRetries('GET', '/x', fast, async () => (++n < 2 ? Promise.reject(http(502)) : 'ok'))).toBe('ok');
    expect(n).toBe(2);
    let m = 0;
    await expect(
      withRetries('GET', '/x', fast, async () => {
        m++;
        throw http(400);
      }),
    ).rejects.toThrow();
    expect(m).toBe(1);
  });
});
