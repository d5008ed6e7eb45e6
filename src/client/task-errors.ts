/**
 * How waiting on a started task can end without its result: the task failed (`PveTaskFailedError`,
 * with the `TaskOutcome` it ended with) or its status could not be read (`PveTaskUnknownError`).
 * Apart from the request's errors (errors.ts) because they describe the task on its node, not the
 * call that started it.
 */
import { PveError } from './errors.js';

export interface TaskOutcome {
  upid: string;
  node: string;
  status: string;
  exitstatus: string | undefined;
  ok: boolean;
  /** The last log lines (tail), oldest first. */
  log: string[];
  /** Why `log` may be incomplete (a log read failed after the final status); absent when it is whole. */
  note?: string;
}

export class PveTaskFailedError extends PveError {
  readonly upid: string;
  readonly node: string;
  readonly exitstatus: string;
  readonly log: string[];

  override get code(): 'pve-task-failed' {
    return 'pve-task-failed';
  }

  constructor(readonly result: TaskOutcome) {
    const exit = result.exitstatus ?? 'unknown exit status';
    const tail = result.log.slice(-5);
    const logPart = tail.length > 0 ? ` Last log lines:\n  ${tail.join('\n  ')}` : '';
    super(`Task ${result.upid} on node '${result.node}' failed: ${exit}.${logPart}`);
    this.upid = result.upid;
    this.node = result.node;
    this.exitstatus = exit;
    this.log = result.log;
  }
}

/**
 * A task was started, but its status could not be read (the node stopped answering, the reads
 * kept failing): it may still be running, have ended well, or have failed. Its outcome is unknown,
 * which is not a failure: the UPID says where to look.
 */
export class PveTaskUnknownError extends PveError {
  override get code(): 'pve-task-unknown' {
    return 'pve-task-unknown';
  }

  constructor(
    readonly upid: string,
    readonly node: string,
    /** The last status read before the reads failed (`running`…), undefined when none was read. */
    readonly lastStatus: string | undefined,
    /** Why the status could not be read: the last read's error message. */
    readonly reason: string,
    cause?: unknown,
  ) {
    const seen = lastStatus ? `its last status read was '${lastStatus}'` : 'no status was read';
    super(
      `Task ${upid} on node '${node}' was started, but its status could not be read (${reason}); ${seen}. ` +
        `Its outcome is unknown: it may still be running, or have ended either way. Read GET /nodes/${node}/tasks/{upid}/status ` +
        `again later (or the node's task list) before repeating the change.`,
      { cause },
    );
  }
}
