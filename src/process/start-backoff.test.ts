import { afterEach, describe, expect, it, vi } from 'vitest';
import { StartBackoff } from './start-backoff.js';

describe('StartBackoff', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('holds starts back with the reason for its time after a failure, then lets one be tried', () => {
    vi.useFakeTimers();
    const backoff = new StartBackoff(5_000);
    expect(backoff.holding()).toBeUndefined();
    backoff.failed('no C++ toolchain');
    expect(backoff.holding()).toBe('no C++ toolchain');
    vi.advanceTimersByTime(4_999);
    expect(backoff.holding()).toBe('no C++ toolchain');
    vi.advanceTimersByTime(1);
    expect(backoff.holding()).toBeUndefined();
  });

  it('forgets the failure once a start succeeds', () => {
    const backoff = new StartBackoff(60_000);
    backoff.failed('exit 1');
    backoff.started();
    expect(backoff.holding()).toBeUndefined();
  });
});
