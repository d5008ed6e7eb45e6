import { describe, expect, it } from 'vitest';
import { TaskEngine, TaskFailure, type TaskFault } from './tasks.js';
import { decodeUpid as parseUpid } from './upid.js';

function engine(durationMs = 1000) {
  let now = Date.UTC(2026, 0, 10, 8, 0, 0);
  const faults: TaskFault[] = [];
  let pid = 1000;
  const tasks = new TaskEngine({ clock: () => now, durationMs, faults, process: () => ({ pid: pid++, pstart: 4242 }) });
  return { tasks, faults, advance: (ms: number) => void (now += ms), now: () => now };
}

describe('TaskEngine', () => {
  it('returns a UPID at once, runs, then stops with OK and a final log line', () => {
    const { tasks, advance } = engine();
    const effects: string[] = [];
    const upid = tasks.start({ node: 'pve1', type: 'qmstart', id: '101', user: 'root@pam', begin: (r) => r.log('starting'), finish: () => void effects.push('done') });
    expect(parseUpid(upid)).toMatchObject({ node: 'pve1', pid: 1000, pstart: 4242, type: 'qmstart', id: '101', user: 'root@pam' });
    expect(tasks.get(upid)?.state).toBe('running');
    expect(effects).toEqual([]);
    advance(999);
    expect(tasks.get(upid)?.state).toBe('running');
    advance(1);
    const t = tasks.get(upid);
    expect(t).toMatchObject({ state: 'stopped', exitstatus: 'OK', log: ['starting', 'TASK OK'] });
    expect(t?.endtime).toBeGreaterThanOrEqual(t?.starttime ?? Infinity);
    expect(effects).toEqual(['done']);
  });

  it('reports failures from hooks as the exit status, without applying the effect', () => {
    const { tasks, advance } = engine();
    let applied = false;
    const upid = tasks.start({
      node: 'pve1',
      type: 'qmstart',
      id: '101',
      user: 'root@pam',
      begin: () => {
        throw new TaskFailure('VM 101 already running');
      },
      finish: () => {
        applied = true;
      },
    });
    advance(1000);
    expect(tasks.get(upid)).toMatchObject({ exitstatus: 'VM 101 already running', log: ['TASK ERROR: VM 101 already running'] });
    expect(applied).toBe(false);
  });

  it('ends with WARNINGS: n when the task warned', () => {
    const { tasks, advance } = engine(0);
    const upid = tasks.start({ node: 'pve1', type: 'vzdump', id: '', user: 'root@pam', finish: (r) => r.warn('slow storage') });
    advance(0);
    expect(tasks.get(upid)).toMatchObject({ exitstatus: 'WARNINGS: 1', log: ['WARN: slow storage', 'TASK WARNINGS: 1'] });
  });

  it('with duration 0 completes only at the next settle, after the starting call returned', () => {
    const { tasks } = engine(0);
    let done = false;
    const upid = tasks.start({
      node: 'pve1',
      type: 'qmstop',
      id: '5',
      user: 'root@pam',
      finish: () => {
        done = true;
      },
    });
    expect(done).toBe(false);
    expect(tasks.get(upid)?.state).toBe('stopped');
    expect(done).toBe(true);
  });

  it('serializes tasks with the same key: the second begins when the first ends', () => {
    const { tasks, advance } = engine(1000);
    const order: string[] = [];
    const spec = (name: string) => ({
      node: 'pve1',
      type: 'qmstart',
      id: '7',
      user: 'root@pam',
      serialKey: 'guest:7',
      begin: () => void order.push(`${name} begin`),
      finish: () => void order.push(`${name} end`),
    });
    tasks.start(spec('a'));
    const b = tasks.start(spec('b'));
    expect(order).toEqual(['a begin']);
    expect(tasks.get(b)?.state).toBe('queued');
    advance(2500);
    tasks.settle();
    expect(order).toEqual(['a begin', 'a end', 'b begin', 'b end']);
  });

  it('applies faults: failure text, custom duration, limited repetitions', () => {
    const { tasks, faults, advance } = engine(100);
    faults.push({ type: 'qmstart', vmid: 101, fail: 'injected failure', durationMs: 5000, times: 1 });
    const first = tasks.start({ node: 'pve1', type: 'qmstart', id: '101', user: 'root@pam' });
    const other = tasks.start({ node: 'pve1', type: 'qmstart', id: '102', user: 'root@pam' });
    advance(100);
    expect(tasks.get(other)?.exitstatus).toBe('OK');
    expect(tasks.get(first)?.state).toBe('running');
    advance(4900);
    expect(tasks.get(first)?.exitstatus).toBe('injected failure');
    const second = tasks.start({ node: 'pve1', type: 'qmstart', id: '101', user: 'root@pam' });
    advance(100);
    expect(tasks.get(second)?.exitstatus).toBe('OK');
  });

  it('aborting a running task ends it as interrupted and runs cleanup but not the effect', () => {
    const { tasks } = engine(60_000);
    const calls: string[] = [];
    const upid = tasks.start({ node: 'pve1', type: 'vzdump', id: '', user: 'root@pam', finish: () => void calls.push('finish'), cleanup: () => void calls.push('cleanup') });
    tasks.abort(upid);
    expect(tasks.get(upid)).toMatchObject({ state: 'stopped', exitstatus: 'interrupted by signal' });
    expect(tasks.get(upid)?.log.at(-1)).toBe('TASK ERROR: interrupted by signal');
    expect(calls).toEqual(['cleanup']);
  });

  it('lists newest first, history included', () => {
    const { tasks, now } = engine(0);
    const sec = Math.floor(now() / 1000);
    tasks.addHistory({ node: 'pve1', type: 'vzdump', id: '', user: 'root@pam', starttime: sec - 100, endtime: sec - 50, exitstatus: 'OK', log: ['TASK OK'], pid: 1, pstart: 1 });
    const fresh = tasks.start({ node: 'pve1', type: 'qmstart', id: '1', user: 'root@pam' });
    expect(tasks.listNode('pve1').map((t) => t.type)).toEqual(['qmstart', 'vzdump']);
    expect(tasks.listAll()[0]?.upid).toBe(fresh);
  });
});
