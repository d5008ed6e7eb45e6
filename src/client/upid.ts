/**
 * PVE task IDs: `UPID:<node>:<pid>:<pstart>:<starttime>:<type>:<id>:<user>:` (trailing colon; the
 * id may be empty; pstart may have 9 hex digits; the user may be a token `user@realm!name`).
 */
import { PveInputError } from './errors.js';

export interface Upid {
  upid: string;
  node: string;
  pid: number;
  pstart: number;
  /** Epoch seconds. */
  starttime: number;
  type: string;
  id: string;
  user: string;
}

const UPID =
  /^UPID:([a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?):([0-9A-Fa-f]{8}):([0-9A-Fa-f]{8,9}):([0-9A-Fa-f]{8}):([^:\s/]+):([^:\s/]*):([^:\s/]+):$/;

export function parseUpid(upid: string): Upid {
  const m = typeof upid === 'string' ? UPID.exec(upid.trim()) : null;
  if (!m) {
    throw new PveInputError(
      `${JSON.stringify(upid)} is not a task ID: expected 'UPID:<node>:<pid>:<pstart>:<starttime>:<type>:<id>:<user>:' ` +
        `as returned by the call that started the task.`,
    );
  }
  const [, node, pid, pstart, starttime, type, id, user] = m as unknown as string[];
  return {
    upid: upid.trim(),
    node: node!,
    pid: parseInt(pid!, 16),
    pstart: parseInt(pstart!, 16),
    starttime: parseInt(starttime!, 16),
    type: type!,
    id: id!,
    user: user!,
  };
}
