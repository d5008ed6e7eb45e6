/**
 * Retry policy. Only GET is retried: PVE's POST/PUT/DELETE start work (tasks, config writes) and a
 * lost response does not mean the work did not happen, so repeating them could run it twice.
 *
 * A GET is retried on failures that are plausibly transient:
 * - connection refused/reset, socket closed, DNS hiccups (`PveConnectionError.transient`);
 * - connect, headers and body timeouts (not the caller's overall `timeoutMs`);
 * - HTTP 502/503/504 (a proxy or pveproxy restarting) and 595/596 (the API node could not reach the
 *   target node, e.g. during a brief network blip).
 * Never on 4xx, never on 500/501 (PVE's handler errors are deterministic), never on TLS failures.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { HttpMethod } from '../schema/model.js';
import { httpStatusOf, isPveError } from './error-codes.js';
import { PveAbortedError } from './errors.js';

export interface RetryOptions {
  /** Total tries for a GET, including the first. 1 disables retries. */
  attempts: number;
  /** Delay cap before the first retry; doubles each retry up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { attempts: 3, baseDelayMs: 200, maxDelayMs: 2000 };

export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([502, 503, 504, 595, 596]);

export function isRetryable(err: unknown): boolean {
  if (!isPveError(err)) return false;
  switch (err.code) {
    case 'pve-connection':
    case 'pve-outcome-unknown':
    case 'pve-tls':
    case 'pve-tls-pin':
      // False for a write whose answer was lost and for TLS trust failures.
      return err.transient;
    case 'pve-timeout':
      return err.phase === 'connect' || err.phase === 'headers' || err.phase === 'body';
    default:
      // PVE answered: only a retryable status. Input, config, abort, protocol, task and schema
      // failures would fail the same way again; a code added later is not retried until it is
      // listed above (retrying is opt-in).
      return hasRetryableStatus(err);
  }
}

/** An error status of PVE after which trying again may help (`RETRYABLE_STATUSES`). */
export function hasRetryableStatus(err: unknown): boolean {
  const status = httpStatusOf(err);
  return status !== undefined && RETRYABLE_STATUSES.has(status);
}

/** "Equal jitter": half the exponential step fixed, half random, so retries neither bunch up nor hit 0 ms. */
export function backoffDelayMs(retry: number, opts: RetryOptions, random: () => number = Math.random): number {
  const step = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** retry);
  return Math.round(step / 2 + random() * (step / 2));
}

export interface RetryHooks {
  signal?: AbortSignal;
  onRetry?: (err: unknown, retry: number, delayMs: number) => void;
}

/**
 * After try number `tried` of a call failed with `err`: waits the backoff when the call may be
 * tried again, else throws the failure (saying how often it was tried). The caller loops over its
 * tries (PveClient), so a call that succeeds at once never enters this module.
 */
export async function beforeRetry(method: HttpMethod, path: string, opts: RetryOptions, err: unknown, tried: number, hooks: RetryHooks = {}): Promise<void> {
  const tries = method === 'GET' ? Math.max(1, opts.attempts) : 1;
  if (tried >= tries || !isRetryable(err) || hooks.signal?.aborted) throw tried > 1 ? withAttempts(err, tried) : err;
  const delay = backoffDelayMs(tried - 1, opts);
  hooks.onRetry?.(err, tried, delay);
  await sleep(delay, undefined, hooks.signal ? { signal: hooks.signal } : undefined).catch((abort: unknown) => {
    // Only GETs are retried, and the try before this pause went out.
    throw new PveAbortedError(method, path, true, abort);
  });
}

/** A retried call's last error says how often it was tried, so "node offline" reads as persistent, not a blip. */
function withAttempts(err: unknown, attempts: number): unknown {
  if (err instanceof Error) err.message = `${err.message} (gave up after ${attempts} attempts)`;
  return err;
}
