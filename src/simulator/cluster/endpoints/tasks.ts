/**
 * Task endpoints: per-node task lists with PVE's filters, task status and log, stopping a task,
 * and the cluster-wide recent task list. Visibility follows PVE: callers see their own tasks
 * (a token sees only its own), Sys.Audit on the node shows all.
 */
import { decodeUpid as parseUpid } from '../upid.js';
import type { SimEndpoint, SimRequestContext } from '../../contract.js';
import { paramError, permissionDenied } from '../errors.js';
import type { ClusterState } from '../state.js';
import type { TaskRecord } from '../tasks.js';
import { flag, list, optInt, optStr, reqStr } from './params.js';
import { pathNode } from './path-targets.js';
import { arr, bool, int, NULL, obj, opt, P, str, VMID_RANGE } from './schema.js';

type Json = Record<string, unknown>;

/** `user@realm!token` → owner and token, as PVE reports token tasks. */
function splitUser(user: string): { user: string; tokenid?: string } {
  const bang = user.indexOf('!');
  return bang < 0 ? { user } : { user: user.slice(0, bang), tokenid: user.slice(bang + 1) };
}

function ownsTask(task: TaskRecord, authId: string): boolean {
  // A user sees their own and their tokens' tasks; a token sees only its own.
  return task.user === authId || splitUser(task.user).user === authId;
}

function baseFields(task: TaskRecord): Json {
  return {
    upid: task.upid,
    node: task.node,
    pid: task.pid,
    pstart: task.pstart,
    starttime: task.starttime,
    type: task.type,
    id: task.id,
    ...splitUser(task.user),
  };
}

/** A task list entry: end time and outcome once stopped. */
function historyEntry(task: TaskRecord): Json {
  const out = baseFields(task);
  if (task.state === 'stopped') {
    out.endtime = task.endtime;
    out.status = task.exitstatus;
  }
  return out;
}

/** A node task list entry: running tasks show `RUNNING` as their status. */
function listEntry(task: TaskRecord): Json {
  const out = historyEntry(task);
  if (task.state !== 'stopped') out.status = 'RUNNING';
  return out;
}

/** PVE's status classes for `statusfilter`/`errors`. */
function statusClass(task: TaskRecord): 'ok' | 'warning' | 'error' | 'unknown' {
  if (task.state !== 'stopped' || !task.exitstatus) return 'unknown';
  if (task.exitstatus === 'OK') return 'ok';
  if (task.exitstatus.startsWith('WARNINGS:')) return 'warning';
  return 'error';
}

/**
 * The task named by `{upid}`, or the 400 errors PVE gives for bad and unknown UPIDs; someone
 * else's task needs `othersNeed` on the node.
 */
function findTask(state: ClusterState, ctx: SimRequestContext, othersNeed: 'Sys.Audit' | 'Sys.Modify'): TaskRecord {
  const node = pathNode(state, ctx);
  const upid = reqStr(ctx, 'upid');
  if (!parseUpid(upid)) throw paramError('upid', 'unable to parse worker upid');
  const task = state.tasks.get(upid);
  // Task files live on the node that ran the task; asking another node finds nothing.
  if (!task || task.node !== node) throw paramError('upid', 'no such task');
  const nodePath = `/nodes/${task.node}`;
  if (!ownsTask(task, ctx.principal.authId) && !ctx.hasPriv(nodePath, othersNeed)) throw permissionDenied(nodePath, othersNeed);
  return task;
}

const TASK_ITEM = obj({
  upid: str('Task identifier.'),
  node: str('Node the task runs on.'),
  pid: int('Worker process ID.'),
  pstart: int('Process start time of the worker, in clock ticks since boot.'),
  starttime: int('Start time (epoch seconds).'),
  type: str('Task type, e.g. qmstart or vzdump.'),
  id: str('Object the task works on (often a VMID); may be empty.'),
  user: str('User who started the task.'),
  endtime: opt(int('End time (epoch seconds), once finished.')),
  status: opt(str('Outcome: OK, WARNINGS: n, the error text, or RUNNING while active.')),
});

export function taskEndpoints(state: ClusterState): SimEndpoint[] {
  return [
    {
      method: 'GET',
      path: '/nodes/{node}/tasks',
      description: 'List tasks of one node, newest first, with optional filters; the envelope carries the total match count.',
      parameters: {
        node: P.node,
        start: opt(int('Skip this many matching tasks.', { minimum: 0, default: 0 })),
        limit: opt(int('Return at most this many tasks.', { minimum: 0, default: 50 })),
        userfilter: opt(str('Only tasks whose user contains this text (case-insensitive).')),
        typefilter: opt(str('Only tasks of exactly this type.')),
        vmid: opt(int('Only tasks working on this guest.', { ...VMID_RANGE })),
        errors: opt(bool('Leave out tasks that ended OK.', { default: 0 })),
        source: opt(str('Finished tasks (archive), running ones (active) or both (all).', { enum: ['archive', 'active', 'all'], default: 'archive' })),
        since: opt(int('Only tasks started at or after this epoch second.')),
        until: opt(int('Only tasks started at or before this epoch second.')),
        statusfilter: opt(str('Only tasks whose outcome is one of these classes (ok, warning, error, unknown).', { format: 'pve-task-status-type-list' })),
      },
      returns: arr(TASK_ITEM, { links: [{ rel: 'child', href: '{upid}' }] }),
      permissions: { user: 'all', description: 'Own tasks are always listed; all tasks of the node with Sys.Audit on /nodes/{node}.' },
      proxyto: 'node',
      handler: (ctx) => {
        const node = pathNode(state, ctx);
        const start = optInt(ctx, 'start') ?? 0;
        let limit = optInt(ctx, 'limit') ?? 50;
        const userfilter = optStr(ctx, 'userfilter')?.toLowerCase();
        const typefilter = optStr(ctx, 'typefilter');
        const vmid = optInt(ctx, 'vmid');
        const since = optInt(ctx, 'since');
        const until = optInt(ctx, 'until');
        const source = optStr(ctx, 'source') ?? 'archive';
        const errors = flag(ctx, 'errors') ?? false;
        const allowed = new Set(['ok', 'warning', 'error', 'unknown']);
        const statusfilter = optStr(ctx, 'statusfilter');
        if (statusfilter !== undefined && !errors) {
          allowed.clear();
          for (const s of list(statusfilter)) allowed.add(s.toLowerCase());
        } else if (errors) {
          allowed.delete('ok');
        }
        const auditor = ctx.hasPriv(`/nodes/${node}`, 'Sys.Audit');
        let count = 0;
        const out: Json[] = [];
        const consider = (task: TaskRecord): void => {
          if (userfilter && !task.user.toLowerCase().includes(userfilter)) return;
          if (!auditor && !ownsTask(task, ctx.principal.authId)) return;
          if (typefilter && task.type !== typefilter) return;
          if (vmid !== undefined && task.id !== String(vmid)) return;
          if (since !== undefined && task.starttime < since) return;
          if (until !== undefined && task.starttime > until) return;
          if (!allowed.has(statusClass(task))) return;
          if (count++ < start || limit <= 0) return;
          out.push(listEntry(task));
          limit--;
        };
        const tasks = state.tasks.listNode(node);
        if (source === 'active' || source === 'all') for (const t of tasks) if (t.state !== 'stopped') consider(t);
        if (source !== 'active') for (const t of tasks) if (t.state === 'stopped') consider(t);
        ctx.setTotal(count);
        return out;
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/tasks/{upid}',
      description: 'Sub-paths of one task (directory index: log, status).',
      parameters: { node: P.node, upid: P.upid },
      returns: arr(obj({}), { links: [{ rel: 'child', href: '{name}' }] }),
      permissions: { user: 'all' },
      handler: () => [{ name: 'log' }, { name: 'status' }],
    },
    {
      method: 'DELETE',
      path: '/nodes/{node}/tasks/{upid}',
      description: 'Stop a running task; its status then ends with an interruption error.',
      parameters: { node: P.node, upid: P.upid },
      returns: NULL,
      permissions: { user: 'all', description: "Stopping someone else's task needs Sys.Modify on /nodes/{node}." },
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        const task = findTask(state, ctx, 'Sys.Modify');
        state.tasks.abort(task.upid);
        return null;
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/tasks/{upid}/log',
      description: 'Read a task log as numbered lines; the envelope carries the total line count.',
      parameters: {
        node: P.node,
        upid: P.upid,
        start: opt(int('First line to return (0-based).', { minimum: 0, default: 0 })),
        limit: opt(int('Number of lines to return; 0 returns all.', { minimum: 0, default: 50 })),
        download: opt(bool('Return the whole log as a file (not combinable with start/limit).')),
      },
      returns: arr(obj({ n: int('Line number, starting at 1.'), t: str('Line text.') })),
      permissions: { user: 'all', description: "Reading someone else's task needs Sys.Audit on /nodes/{node}." },
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        const task = findTask(state, ctx, 'Sys.Audit');
        const start = optInt(ctx, 'start') ?? 0;
        const limit = optInt(ctx, 'limit') ?? 50;
        const lines = task.log;
        ctx.setTotal(lines.length);
        if (lines.length === 0) return [{ n: 1, t: 'no content' }];
        const slice = limit === 0 ? lines.slice(start) : lines.slice(start, start + limit);
        return slice.map((t, i) => ({ n: start + i + 1, t }));
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/tasks/{upid}/status',
      description: 'State of one task: running or stopped, and once stopped its exit status.',
      parameters: { node: P.node, upid: P.upid },
      returns: obj({
        upid: str('Task identifier.'),
        node: str('Node the task runs on.'),
        pid: int('Worker process ID.'),
        pstart: int('Process start time in clock ticks since boot.'),
        starttime: int('Start time (epoch seconds).'),
        type: str('Task type.'),
        id: str('Object the task works on.'),
        user: str('User who started the task.'),
        status: str('Whether the worker still runs.', { enum: ['running', 'stopped'] }),
        exitstatus: opt(str('Outcome once stopped: OK, WARNINGS: n, or the error text.')),
      }),
      permissions: { user: 'all', description: "Reading someone else's task needs Sys.Audit on /nodes/{node}." },
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        const task = findTask(state, ctx, 'Sys.Audit');
        const out = baseFields(task);
        out.status = task.state === 'stopped' ? 'stopped' : 'running';
        if (task.state === 'stopped') out.exitstatus = task.exitstatus;
        return out;
      },
    },
    {
      method: 'GET',
      path: '/cluster/tasks',
      description:
        'Recent tasks of every node in the cluster, newest first: what each did, who started it, when it started and ended, and whether it ended OK or failed (running ones have no status yet).',
      parameters: {},
      returns: arr(obj({ upid: str('Task identifier.') }, { additionalProperties: 1 })),
      permissions: { user: 'all', description: 'All tasks with Sys.Audit on /, otherwise only your own.' },
      handler: (ctx) => {
        const all = ctx.hasPriv('/', 'Sys.Audit');
        return state.tasks
          .listAll()
          .filter((t) => all || ownsTask(t, ctx.principal.authId))
          .slice(0, 2000)
          .map(historyEntry);
      },
    },
  ];
}
