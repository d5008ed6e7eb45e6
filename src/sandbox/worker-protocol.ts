/**
 * Messages between the server process and the sandbox worker process. Both sides validate every
 * message with these schemas: the worker runs hostile code and is not trusted by the server, and
 * the worker refuses anything malformed rather than guessing.
 */
import { z } from 'zod';
import type { FrameLimits } from './frames.js';
import { secretScanSchema, transpiledSchema } from '../script/typecheck-protocol.js';
import { sandboxLimitsSchema } from './limits.js';

/** The worker's end of the server channel (see frames.ts). */
export const CHANNEL_FD = 3;

/** isolated-vm on Node >= 20 needs this flag; the worker refuses to start without it. */
export const NO_SNAPSHOT_FLAG = '--no-node-snapshot';

/** What the worker accepts from the server (trusted; the reply size is checked on its own). */
export const SERVER_FRAME_LIMITS: FrameLimits = { maxHeaderBytes: 16 * 1024 * 1024, maxPayloadBytes: 1024 * 1024 * 1024 };

/**
 * What the server accepts from a worker compiling a script of `codeBytes`: the JavaScript as the
 * payload, and a header holding the source map, the SDK calls and the secret spans (each a small
 * multiple of the source).
 */
export function compileFrameLimits(codeBytes: number): FrameLimits {
  return { maxHeaderBytes: 64 * 1024 + 48 * codeBytes, maxPayloadBytes: 64 * 1024 + 8 * codeBytes };
}

/**
 * What the server accepts from a worker running a script with these limits: its largest string
 * (call, log line or result, counted in UTF-16 units by the worker) as UTF-8, and headers large
 * enough for an exception's message and stack.
 */
export function workerFrameLimits(limits: Pick<WorkerLimits, 'maxCallBytes' | 'maxLogLineBytes' | 'maxResultBytes'>): FrameLimits {
  return { maxHeaderBytes: 4 * 1024 * 1024, maxPayloadBytes: 3 * Math.max(limits.maxCallBytes, limits.maxLogLineBytes, limits.maxResultBytes) };
}

/** One compile or one execution in a worker (a run may have several); not the audit's `runId`. */
const jobId = z.number().int().nonnegative();
const callId = z.number().int().positive();

export const workerLimitsSchema = sandboxLimitsSchema
  .omit({ maxCodeBytes: true, resultBudgetBytes: true })
  .extend({
    /** Worker RSS at which the running isolate is killed for memory. */
    maxRssMb: z.number().int().min(64).max(65_536),
  })
  .strict();
export type WorkerLimits = z.infer<typeof workerLimitsSchema>;

export const hostToWorkerSchema = z.discriminatedUnion('type', [
  /**
   * Compile this script (shape limits, transpile, SDK calls, secret literals) for a run that skips
   * the type-check process; answered by `compiled`. The worker loads TypeScript on its first one.
   */
  z.object({ type: z.literal('compile'), jobId, code: z.string() }).strict(),
  z.object({ type: z.literal('run'), jobId, js: z.string(), limits: workerLimitsSchema }).strict(),
  /** `json` is the reply payload the prelude parses: the data when ok, the BridgeError otherwise. */
  z.object({ type: z.literal('reply'), jobId, callId, ok: z.boolean(), json: z.string() }).strict(),
  z.object({ type: z.literal('cancel'), jobId }).strict(),
]);
export type HostToWorker = z.infer<typeof hostToWorkerSchema>;

export const killReasonSchema = z.enum(['wall', 'cpu', 'memory', 'entry-timeout']);
export type KillReason = z.infer<typeof killReasonSchema>;

const text = (max: number) => z.string().max(max);

/** The script's own exception, normalised inside the sandbox to strings. */
export const thrownSchema = z
  .object({
    name: text(1_000),
    message: text(100_000),
    stack: text(200_000).optional(),
    /** Set when the value is the rejection of that bridge call (the host knows its BridgeError). */
    bridgeCallId: callId.optional(),
    /** Set when the prelude refused a call itself (bad arguments, too many calls). */
    preludeKind: z.enum(['invalid', 'budget']).optional(),
  })
  .strict();
export type Thrown = z.infer<typeof thrownSchema>;

export const runEndSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('ok'), resultJson: z.string().optional() }).strict(),
  z.object({ status: z.literal('exception'), error: thrownSchema }).strict(),
  /** The JavaScript did not compile in the isolate (position in the transpiled JS). */
  z.object({ status: z.literal('syntax'), message: text(100_000), jsLine: z.number().int().optional(), jsCol: z.number().int().optional() }).strict(),
  z.object({ status: z.literal('killed'), reason: killReasonSchema, message: text(10_000) }).strict(),
  /** Nothing can settle the script any more: no bridge call pending, no code running. */
  z.object({ status: z.literal('deadlock') }).strict(),
  /** The script's return value cannot be delivered (not JSON, too large). */
  z.object({ status: z.literal('invalid'), message: text(10_000) }).strict(),
  z.object({ status: z.literal('cancelled') }).strict(),
  z.object({ status: z.literal('crashed'), message: text(10_000) }).strict(),
]);
export type RunEndStatus = z.infer<typeof runEndSchema>;

export const runStatsSchema = z
  .object({
    wallMs: z.number().nonnegative(),
    cpuMs: z.number().nonnegative(),
    logsDropped: z.number().int().nonnegative(),
    rssMb: z.number().nonnegative(),
  })
  .strict();
export type WorkerRunStats = z.infer<typeof runStatsSchema>;

export const workerToHostSchema = z.discriminatedUnion('type', [
  /**
   * `confined`: the worker checked that Node's permission model denies it writes, processes and
   * threads; `runtime`: the isolated-vm it loaded (`isolated-vm 5.0.4`).
   */
  z.object({ type: z.literal('ready'), pid: z.number().int(), confined: z.boolean(), runtime: text(200) }).strict(),
  /**
   * `compileScript`'s answer (src/script/compile.ts). `loadMs`: loading TypeScript, on the worker's
   * first compile only; `ms`: the whole compile, that load included.
   */
  z
    .object({
      type: z.literal('compiled'),
      jobId,
      transpiled: transpiledSchema,
      secrets: secretScanSchema,
      ms: z.number().nonnegative(),
      loadMs: z.number().nonnegative().optional(),
      rssMb: z.number().nonnegative(),
    })
    .strict(),
  z.object({ type: z.literal('call'), jobId, callId, json: z.string() }).strict(),
  z.object({ type: z.literal('log'), jobId, line: z.string() }).strict(),
  z.object({ type: z.literal('end'), jobId, end: runEndSchema, stats: runStatsSchema }).strict(),
  /** V8 lost control of an isolate (or the worker cannot work): kill the worker now. */
  z.object({ type: z.literal('fatal'), message: text(10_000), jobId: jobId.optional() }).strict(),
]);
export type WorkerToHost = z.infer<typeof workerToHostSchema>;
