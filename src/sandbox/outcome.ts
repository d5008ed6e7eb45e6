/**
 * What a run returns to its caller: always data, never a throw. `error.kind` says what the agent
 * can do about a failure (fix a syntax or type error, stay within a limit, ask for approval...),
 * and positions are in the agent's own TypeScript.
 */
import type { TruncationReport } from '../safety/truncate.js';
import type { Diagnostic } from '../script/diagnostics.js';
import type { KillReason } from './worker-protocol.js';

export type RunErrorKind =
  /** The script does not parse; it was not executed. */
  | 'syntax'
  /** The type-check found a provable mistake; it was not executed. */
  | 'typecheck'
  /** A limit stopped it: see `reason`. */
  | 'killed'
  /** The sandbox itself failed (worker died, isolate failed); the next run gets a fresh worker. */
  | 'crashed'
  | 'budget'
  | 'denied'
  | 'approval'
  | 'identity'
  /** Proxmox answered with an error (details: method, path, status, PVE's message). */
  | 'api'
  | 'task'
  /** A change was sent and no trustworthy answer came: it may have run (see the result's `changes`). */
  | 'unknown'
  /** The audit log cannot be written: the change was not sent. */
  | 'audit'
  /** An operator halted every change on this host (the kill switch): the change was not sent. */
  | 'halted'
  /** The script's own uncaught exception. */
  | 'exception'
  | 'cancelled'
  /** The tool call's whole deadline passed (queue, compile, preflight and run together). */
  | 'deadline'
  /** Bad input: a malformed call, an undeliverable result, invalid limits or options. */
  | 'invalid';

export interface RunError {
  kind: RunErrorKind;
  reason?: KillReason;
  message: string;
  /** 1-based position in the agent's script. */
  line?: number;
  col?: number;
  /** The agent's frames only, as `agent.ts:line:col`. */
  stack?: string;
  diagnostics?: Diagnostic[];
  /** For bridge errors: bridgeKind, outcome, method, path, status, errors, risk, cluster, upid, node, exitstatus. */
  details?: Record<string, unknown>;
}

export interface RunStats {
  /** Wall time of this execution: queueing and running (the compile before it is `typecheckMs`, once per run). */
  ms: number;
  cpuMs: number;
  bridgeCalls: number;
  /** Reply bytes that went into the sandbox. */
  bytesIn: number;
  /** Call, log and result bytes that came out of it. */
  bytesOut: number;
  typecheckMs?: number;
  queueMs?: number;
}

export interface OutcomeTruncation {
  result?: TruncationReport;
  /** Log lines dropped past the log budget. */
  logLines?: number;
}

export interface RunOutcome {
  ok: boolean;
  /** The script's return value (undefined when it returned nothing or failed). */
  result: unknown;
  /** Console output, returned even when the script failed. */
  logs: string[];
  stats: RunStats;
  error?: RunError;
  /** Type-check findings that did not block the run. */
  warnings?: Diagnostic[];
  truncated?: OutcomeTruncation;
}

export function emptyStats(ms: number): RunStats {
  return { ms, cpuMs: 0, bridgeCalls: 0, bytesIn: 0, bytesOut: 0 };
}

/** An outcome for a script that never ran. */
export function notExecuted(error: RunError, started: number, warnings?: Diagnostic[]): RunOutcome {
  return {
    ok: false,
    result: undefined,
    logs: [],
    stats: emptyStats(performance.now() - started),
    error,
    ...(warnings && warnings.length > 0 ? { warnings } : {}),
  };
}
