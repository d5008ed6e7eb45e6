/**
 * The one definition of a PVE task ID (UPID) in the product:
 * `UPID:<node>:<pid>:<pstart>:<starttime>:<type>:<id>:<user>:`, 8 hex digits per number (pstart may
 * have 9) and a trailing colon. `parseUpid` accepts exactly what PVE's own `upid_decode` accepts, so
 * a task ID it refuses PVE refuses too; the bridge contract, the handler, the policy's facts, the
 * dry-run plan, the client and the prompts all read UPIDs through it. The simulator mints and
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

/** The shape, as error messages name it. */
export const UPID_SHAPE = 'UPID:<node>:<pid>:<pstart>:<starttime>:<type>:<id>:<user>:';

const UPID_RE = /^UPID:([a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?):([0-9A-Fa-f]{8}):([0-9A-Fa-f]{8,9}):([0-9A-Fa-f]{8}):([^:\s/]+):([^:\s/]*):([^:\s/]+):$/;

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

/** Writes a UPID the way PVE mints one (uppercase hex); only the dry-run's planned tasks are minted in the product. */
export function formatUpid(parts: UpidParts): string {
  const hex = (n: number): string => n.toString(16).toUpperCase().padStart(8, '0');
  return `UPID:${parts.node}:${hex(parts.pid)}:${hex(parts.pstart)}:${hex(parts.starttime)}:${parts.type}:${parts.id}:${parts.user}:`;
}
