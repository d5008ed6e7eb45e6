/**
 * Unique process IDs of PVE worker tasks: `UPID:<node>:<pid>:<pstart>:<starttime>:<type>:<id>:<user>:`
 * with 8 uppercase hex digits per number (pstart may have 9) and a trailing colon — clients split on
 * `:` and count. The product only reads them (the client, for waitTask); the simulator mints and
 * reads its own, written apart as an oracle, and a test checks that the two agree.
 */
export interface UpidParts {
  node: string;
  pid: number;
  pstart: number;
  /** Epoch seconds. */
  starttime: number;
  type: string;
  /** Guest ID or other object the task works on; may be empty. */
  id: string;
  /** `user@realm` or `user@realm!token`. */
  user: string;
}

const UPID_RE =
  /^UPID:([a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?):([0-9A-Fa-f]{8}):([0-9A-Fa-f]{8,9}):([0-9A-Fa-f]{8}):([^:\s/]+):([^:\s/]*):([^:\s/]+):$/;

/** Parses a UPID the way PVE does; `undefined` when it does not look like one. */
export function parseUpid(upid: string): UpidParts | undefined {
  const m = UPID_RE.exec(upid);
  if (!m) return undefined;
  return {
    node: m[1] as string,
    pid: parseInt(m[2] as string, 16),
    pstart: parseInt(m[3] as string, 16),
    starttime: parseInt(m[4] as string, 16),
    type: m[5] as string,
    id: m[6] as string,
    user: m[7] as string,
  };
}
