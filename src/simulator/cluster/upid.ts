/**
 * UPIDs as a PVE node mints and reads them, written for the simulator on its own (the product's
 * client has its own parser; end-to-end tests compare the two):
 * `UPID:<node>:<pid>:<pstart>:<starttime>:<type>:<id>:<user>:` with pid, pstart and starttime in
 * uppercase hex padded to 8 digits (pstart grows to 9 after about 497 days of uptime), and a
 * trailing colon. Reading accepts upper- or lowercase hex, 8 digits (pstart 8 or 9), a node name
 * of letters, digits and inner dashes, a type and user without whitespace or `/`, and an ID that
 * may be empty; anything else is `unable to parse worker upid`.
 */

export interface UpidFields {
  node: string;
  pid: number;
  pstart: number;
  /** Epoch seconds. */
  starttime: number;
  type: string;
  id: string;
  /** `user@realm` or `user@realm!token`. */
  user: string;
}

/** Hex of a non-negative integer, uppercase, at least 8 digits (printf `%08X`). */
function hex(n: number): string {
  return Math.max(0, Math.trunc(n)).toString(16).toUpperCase().padStart(8, '0');
}

export function encodeUpid(f: UpidFields): string {
  return ['UPID', f.node, hex(f.pid), hex(f.pstart), hex(f.starttime), f.type, f.id, f.user, ''].join(':');
}

const HOSTNAME = /^[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?$/;
const HEX = /^[0-9A-Fa-f]+$/;

function hexField(text: string, min: number, max: number): number | undefined {
  if (text.length < min || text.length > max || !HEX.test(text)) return undefined;
  return parseInt(text, 16);
}

function cleanField(text: string, mayBeEmpty: boolean): boolean {
  if (text === '') return mayBeEmpty;
  return !/[\s/]/.test(text);
}

/** The fields of a UPID, or undefined when PVE would not parse it. */
export function decodeUpid(upid: string): UpidFields | undefined {
  const parts = upid.split(':');
  if (parts.length !== 9 || parts[0] !== 'UPID' || parts[8] !== '') return undefined;
  const [, node = '', pidText = '', pstartText = '', startText = '', type = '', id = '', user = ''] = parts;
  if (!HOSTNAME.test(node)) return undefined;
  const pid = hexField(pidText, 8, 8);
  const pstart = hexField(pstartText, 8, 9);
  const starttime = hexField(startText, 8, 8);
  if (pid === undefined || pstart === undefined || starttime === undefined) return undefined;
  if (!cleanField(type, false) || !cleanField(id, true) || !cleanField(user, false)) return undefined;
  return { node, pid, pstart, starttime, type, id, user };
}
