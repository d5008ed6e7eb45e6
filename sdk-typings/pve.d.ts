/**
 * The `pve` SDK available to run_script programs.
 *
 * A script is the body of an async function: use `await` at the top level and `return` a JSON value.
 * This file is a global script declaration (no imports or exports); the generated `pve-api.d.ts`
 * (interface `PveApi`, one entry per path template of the connected server's API) plugs into it.
 *
 * Calls take a path template plus its parameters, path parameters included:
 *   await pve.post('/nodes/{node}/qemu/{vmid}/status/start', { node: 'pve1', vmid: 101 });
 * Concrete paths work too but are only loosely typed:
 *   await pve.get(`/nodes/${node}/qemu/${vmid}/status/current`);
 * Booleans may be given as true/false or 1/0; list parameters as a comma string or an array.
 */

type PveMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** The operation `M P` of the generated API map, or `never` when `P` is not a template with that method. */
type PveOperation<M extends PveMethod, P extends string> = P extends keyof PveApi ? (PveApi[P] extends { [K in M]: infer O } ? O : never) : never;

/** Parameters of a call: exactly typed for a known template (optional when nothing is required), loose otherwise. */
type PveArgs<M extends PveMethod, P extends string> = [PveOperation<M, P>] extends [never]
  ? [params?: Record<string, unknown>]
  : PveOperation<M, P> extends { params: infer A }
    ? {} extends A
      ? [params?: A]
      : [params: A]
    : [params?: Record<string, unknown>];

/** What a call resolves to: the operation's declared return type, `any` for concrete paths. */
type PveResult<M extends PveMethod, P extends string> = [PveOperation<M, P>] extends [never] ? any : PveOperation<M, P> extends { returns: infer R } ? R : any;

/** The values of a list's `type` filter that narrow its result (`'vm' | 'storage' | …`), or `never`. */
type PveTypeFilter<P extends string> = PveOperation<'GET', P> extends { byType: infer B } ? keyof B & string : never;

/** Rules the narrowing `get` out by arity, so a call it does not fit reports only the general signature's errors. */
type PveNoNarrowing = [never, never, never];

/**
 * Parameters of a call whose `type` filter narrows the result: `F` must be some but not all of the
 * filter's values (given as literals), else the general `get` takes the call.
 */
type PveNarrowArgs<P extends string, F extends string> = [F] extends [never]
  ? PveNoNarrowing
  : PveTypeFilter<P> extends F
    ? PveNoNarrowing
    : PveOperation<'GET', P> extends { params: infer A }
      ? [params: A & { type: F }]
      : PveNoNarrowing;

/** The result of a list narrowed by its `type` filter: `/cluster/resources` with `type: 'vm'` lists guests only. */
type PveNarrowResult<P extends string, F extends string> = PveOperation<'GET', P> extends { byType: infer B } ? B[F & keyof B] : never;

/** Outcome of a finished Proxmox task (`waitTask`). */
interface PveTaskResult {
  /** The task ID (UPID) that was waited for. */
  upid: string;
  /** Node the task ran on. */
  node: string;
  /** `stopped` once finished. */
  status: string;
  /** `OK`, `WARNINGS: n` or the error message. */
  exitstatus?: string;
  /** True when the task ended with OK or warnings. */
  ok: boolean;
  /** The last lines of the task log, oldest first. */
  log: string[];
  /**
   * Set in a dry-run: the write that started this task was planned, not sent, so nothing ran and
   * `ok`/`exitstatus` only stand in for the outcome. Check it before reading a result as done.
   */
  planned?: true;
}

/**
 * One task of a batch (`waitTasks`), reported whatever became of it. `outcome` is the task's:
 * `done` (it ended OK or with warnings), `failed` (it ended with an error: `exitstatus` and `log`
 * say why), `unknown` (it was started but its end is not known: still running at the timeout, its
 * status unreadable, or the wait itself refused — `kind` and `message` say which; look at the task
 * before repeating it), `not-sent` (the write meant to start it was refused before it left, or,
 * in a dry-run, it was only planned: `planned`). When the item was a write's promise that failed,
 * `outcome`, `kind` and `message` are the write's and there is no `upid`.
 */
interface PveTaskOutcome {
  upid?: string;
  node?: string;
  outcome: 'done' | 'failed' | 'not-sent' | 'unknown';
  /** True when the task ended OK or with warnings (in a dry-run: the planned stand-in, as `waitTask`'s). */
  ok: boolean;
  status?: string;
  /** `OK`, `WARNINGS: n` or the task's error. */
  exitstatus?: string;
  /** The last lines of the task log, oldest first. */
  log: string[];
  /** Why it is not done, as `PveError.kind`: `task` for a failed task. */
  kind?: PveError['kind'];
  message?: string;
  planned?: true;
}

interface PveWaitTaskOptions {
  /** Give up after this many milliseconds (the run's task-wait budget still applies). */
  timeoutMs?: number;
}

/**
 * What SDK calls reject with. Branch on `outcome` to know what became of the call:
 * `not-sent` (nothing left the server: policy, budget, approval, a malformed call, the audit
 * unavailable, changes halted by an operator, the run ended first), `failed` (Proxmox answered with an error, or the task failed:
 * nothing was changed by this call, or the task's log says how far it got), `unknown` (a change
 * was sent and no trustworthy answer came: it may have run — look at the node's tasks or the
 * object before repeating it; `upid` is set when a task was started).
 * `kind` says why: `api` (Proxmox answered with an error `status`, or a read got no answer),
 * `task` (the task failed: `upid`, `node`, `exitstatus`, `log`), `unknown` (outcome unknown),
 * `denied` (policy), `budget`, `approval`, `identity` (the guest changed), `timeout`, `invalid`
 * (a malformed call, or a parameter value the schema does not accept), `cancelled` (the run ended
 * first), `audit` (the audit log cannot be written), `halted` (an operator halted all changes: reads
 * go on; do not retry until they lift it), `internal`.
 */
interface PveError extends Error {
  kind: 'invalid' | 'denied' | 'budget' | 'approval' | 'identity' | 'api' | 'task' | 'timeout' | 'cancelled' | 'unknown' | 'audit' | 'halted' | 'internal';
  /** What became of the call. */
  outcome: 'done' | 'failed' | 'not-sent' | 'unknown';
  /** HTTP status for `api` errors. */
  status?: number;
  /** Per-parameter messages from Proxmox (400 Parameter verification failed). */
  errors?: Record<string, string>;
  method?: PveMethod;
  path?: string;
  /** The call's risk class as the policy saw it: the operation's, raised by its parameters. */
  risk?: 'read' | 'write' | 'destructive' | 'privileged';
  /** The cluster the call went to, when the script named one. */
  cluster?: string;
  /** The task a failed or unknown `waitTask` is about, its node, exit status and last log lines. */
  upid?: string;
  node?: string;
  exitstatus?: string;
  log?: string[];
}

/** What `pve.undo(runId)` did: the reversals made, in order, and what it could not undo (and why). */
interface PveUndoResult {
  runId: string;
  undone: string[];
  cannot: string[];
}

/** A guest as `pve.guests()` and `pve.findGuest()` give it: where it runs and what it is. */
interface PveGuest {
  node: string;
  vmid: number;
  type: 'qemu' | 'lxc';
  name?: string;
  status: string;
  template: boolean;
}

interface Pve {
  /** Read, narrowed by a `type` filter: `(await pve.get('/cluster/resources', { type: 'vm' })).map((g) => g.vmid)`. */
  get<P extends string, const F extends PveTypeFilter<P> = never>(path: P, ...params: PveNarrowArgs<P, F>): Promise<PveNarrowResult<P, F>>;
  /** Read: `await pve.get('/nodes/{node}/qemu', { node: 'pve1' })`. */
  get<P extends string>(path: P, ...params: PveArgs<'GET', P>): Promise<PveResult<'GET', P>>;
  /** Create or act: `await pve.post('/nodes/{node}/qemu/{vmid}/status/start', { node: 'pve1', vmid: 101 })`. */
  post<P extends string>(path: P, ...params: PveArgs<'POST', P>): Promise<PveResult<'POST', P>>;
  /** Change: `await pve.put('/nodes/{node}/qemu/{vmid}/config', { node: 'pve1', vmid: 101, memory: 4096 })`. */
  put<P extends string>(path: P, ...params: PveArgs<'PUT', P>): Promise<PveResult<'PUT', P>>;
  /** Remove: `await pve.delete('/nodes/{node}/qemu/{vmid}', { node: 'pve1', vmid: 101 })`. */
  delete<P extends string>(path: P, ...params: PveArgs<'DELETE', P>): Promise<PveResult<'DELETE', P>>;
  /**
   * Wait for a task (the UPID string most POSTs return) to finish. Resolves with its result when it
   * ends OK or with warnings. Rejects when it does not: kind `task` (outcome `failed`, with `upid`,
   * `exitstatus` and the log tail) when the task failed, `unknown` when its status could not be
   * read, `timeout` when it is still running. In a batch use `waitTasks`, which reports every task.
   */
  waitTask(upid: string, options?: PveWaitTaskOptions): Promise<PveTaskResult>;
  /**
   * Wait for a batch of tasks, a few at a time, and report each in the order given; never rejects
   * for a task's failure, so no outcome hides behind another. Give the UPIDs, or the writes'
   * promises themselves (a write that fails is reported too): `timeoutMs` applies to each task.
   *   const results = await pve.waitTasks(vms.map((v) => pve.post('/nodes/{node}/qemu/{vmid}/snapshot', { node: v.node, vmid: v.vmid, snapname: 'pre' })));
   *   return results.map((r, i) => ({ vmid: vms[i].vmid, outcome: r.outcome, error: r.exitstatus ?? r.message }));
   */
  waitTasks(upids: ReadonlyArray<string | null | PromiseLike<string | null>>, options?: PveWaitTaskOptions): Promise<PveTaskOutcome[]>;
  /**
   * Reverse what an earlier run changed (its id: the `changes.runId` of its answer): previous
   * config values put back, snapshots it took deleted, a safety snapshot rolled back to. Each
   * reversing write goes through policy and approval like any other (dry-run it first to see the
   * plan, which also says what cannot be undone). `cannot`: what was not reversed, and why.
   *   const r = await pve.undo('0f8e6a2c-…'); return r.cannot;
   */
  undo(runId: string): Promise<PveUndoResult>;
  /** The same SDK bound to another configured cluster: `pve.cluster('lab').get('/nodes')`. */
  cluster(name: string): Pve;
  /** Every guest (one `GET /cluster/resources?type=vm`): `(await pve.guests()).filter((g) => g.status === 'running')`. */
  guests(): Promise<PveGuest[]>;
  /** The guest with this VMID or name, or undefined: `const g = await pve.findGuest('web-01'); g && g.node`. */
  findGuest(nameOrVmid: string | number): Promise<PveGuest | undefined>;
}

interface PveConsole {
  log(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
  debug(...args: unknown[]): void;
}

/** The Proxmox VE API of the default cluster. */
declare const pve: Pve;
/** Output is captured and returned with the script's result. */
declare var console: PveConsole;

/**
 * One argument a script file declares (`export const args = { pool: { type: 'string' } } as const`).
 * The run checks what it is given against it before the script starts.
 */
interface PveScriptArg {
  readonly type: 'string' | 'integer' | 'number' | 'boolean';
  readonly description?: string;
  readonly enum?: readonly (string | number)[];
  /** The whole string must match. */
  readonly pattern?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly default?: string | number | boolean;
  readonly optional?: boolean;
}
type PveScriptArgs = { readonly [name: string]: PveScriptArg };
type PveArgValue<S extends PveScriptArg> = S extends { readonly enum: readonly (infer E)[] } ? E : S['type'] extends 'string' ? string : S['type'] extends 'boolean' ? boolean : number;
/** The values a script receives for its declared arguments. */
type PveArgsOf<T extends PveScriptArgs> = { readonly [K in keyof T as T[K] extends { readonly optional: true } ? never : K]: PveArgValue<T[K]> } & {
  readonly [K in keyof T as T[K] extends { readonly optional: true } ? K : never]?: PveArgValue<T[K]>;
};
/**
 * A script file's default export:
 *   export default (async (pve, { pool }) => { … }) satisfies PveScript<typeof args>;
 */
type PveScript<T extends PveScriptArgs = {}> = (pve: Pve, args: PveArgsOf<T>) => Promise<unknown>;
/** The run's argument values (a script in the body form reads them here). */
declare var args: Readonly<Record<string, any>>;
