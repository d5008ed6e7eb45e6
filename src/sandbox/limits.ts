/**
 * Per-run limits of the sandbox. Every limit is enforced in the worker process and the ones that
 * guard the host again in the server process, because a compromised worker is not trusted.
 */
import { z } from 'zod';

const ms = (max: number) => z.number().int().min(1).max(max);

export const sandboxLimitsSchema = z
  .object({
    /** Total run time, awaited bridge calls included. */
    wallMs: ms(3_600_000),
    /** CPU time the isolate may burn (polled, so it can overshoot by ~10 ms). */
    cpuMs: ms(3_600_000),
    /** Each synchronous slice: the first run and every continuation after a bridge reply. */
    entryTimeoutMs: ms(600_000),
    /** isolated-vm heap limit; a soft limit, backed by the worker RSS watchdog. */
    memoryMb: z.number().int().min(8).max(4_096),
    /** Source size of the script. */
    maxCodeBytes: z.number().int().min(1).max(10_000_000),
    /** Log text kept per run; lines past it are counted as dropped. */
    maxLogBytes: z.number().int().min(0).max(100_000_000),
    /** One log line; longer lines are cut. */
    maxLogLineBytes: z.number().int().min(16).max(10_000_000),
    /** The return value as JSON crossing out of the sandbox; above it the run fails. */
    maxResultBytes: z.number().int().min(2).max(500_000_000),
    /** What the outcome keeps of the result: larger results are truncated structurally to this. */
    resultBudgetBytes: z.number().int().min(64).max(500_000_000),
    /** Bridge calls executing at once; more wait in the worker's queue. */
    maxParallelCalls: z.number().int().min(1).max(1_000),
    /** Bridge calls started but not settled (executing + queued); past it calls fail at once. */
    maxPendingCalls: z.number().int().min(1).max(100_000),
    /** Bridge calls per run, denied ones included. */
    maxCalls: z.number().int().min(0).max(1_000_000),
    /** One call's JSON (path + params). */
    maxCallBytes: z.number().int().min(64).max(100_000_000),
    /** One reply's JSON going into the sandbox. */
    maxReplyBytes: z.number().int().min(64).max(500_000_000),
  })
  .strict();

export type SandboxLimits = z.infer<typeof sandboxLimitsSchema>;

export const DEFAULT_LIMITS: SandboxLimits = Object.freeze({
  wallMs: 60_000,
  cpuMs: 10_000,
  entryTimeoutMs: 2_000,
  memoryMb: 128,
  maxCodeBytes: 100_000,
  maxLogBytes: 64 * 1024,
  maxLogLineBytes: 4 * 1024,
  maxResultBytes: 8 * 1024 * 1024,
  resultBudgetBytes: 48 * 1024,
  maxParallelCalls: 16,
  maxPendingCalls: 1_000,
  maxCalls: 10_000,
  maxCallBytes: 1024 * 1024,
  maxReplyBytes: 16 * 1024 * 1024,
});

export class InvalidLimitsError extends Error {
  constructor(message: string) {
    super(`invalid sandbox limits: ${message}; see DEFAULT_LIMITS in src/sandbox/limits.ts for names and ranges`);
    this.name = 'InvalidLimitsError';
  }
}

/**
 * `base` overlaid with `overrides`, validated. Throws `InvalidLimitsError` with the offending field.
 * `base` is valid already (`DEFAULT_LIMITS`, or what this function returned for the engine), so a
 * run without overrides takes it as it is instead of parsing it again.
 */
export function resolveLimits(base: SandboxLimits = DEFAULT_LIMITS, overrides?: Partial<SandboxLimits>): SandboxLimits {
  if (overrides === undefined) return base;
  const parsed = sandboxLimitsSchema.safeParse({ ...base, ...overrides });
  if (!parsed.success) {
    throw new InvalidLimitsError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  }
  return parsed.data;
}
