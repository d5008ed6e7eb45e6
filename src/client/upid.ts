/**
 * Reading PVE task IDs on the client side: the wire format itself lives in src/pve/upid.ts; here a
 * malformed UPID is the caller's input error, reported as such.
 */
import { parseUpid as matchUpid, type UpidParts } from '../pve/upid.js';
import { PveInputError } from './errors.js';

export interface Upid extends UpidParts {
  upid: string;
}

export function parseUpid(upid: string): Upid {
  // Non-strings come from untyped callers (scripts); '' never matches, so they get the same error.
  const trimmed = typeof upid === 'string' ? upid.trim() : '';
  const parts = matchUpid(trimmed);
  if (!parts) {
    throw new PveInputError(
      `${JSON.stringify(upid)} is not a task ID: expected 'UPID:<node>:<pid>:<pstart>:<starttime>:<type>:<id>:<user>:' ` +
        `as returned by the call that started the task.`,
    );
  }
  return { upid: trimmed, ...parts };
}
