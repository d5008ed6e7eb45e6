/**
 * The error texts a PVE node produces for cluster-state problems, so clients that match on
 * messages (missing config file, hostname lookup, locks) behave as against a real node.
 * Messages end with a newline like Perl `die` strings; the wire layer keeps them verbatim.
 */
import { PveHttpError } from '../contract.js';
import type { GuestType } from './types.js';

export function configMissing(type: GuestType, node: string, vmid: number): PveHttpError {
  const dir = type === 'qemu' ? 'qemu-server' : 'lxc';
  return new PveHttpError(500, `Configuration file 'nodes/${node}/${dir}/${vmid}.conf' does not exist\n`);
}

export function unknownNode(node: string): PveHttpError {
  return new PveHttpError(500, `hostname lookup '${node}' failed - failed to get address info for: ${node}: Name or service not known\n`);
}

/** The lock message: qemu says `VM`, containers say `CT`. */
export function lockedText(type: GuestType, lock: string): string {
  return `${type === 'qemu' ? 'VM' : 'CT'} is locked (${lock})`;
}

export function locked(type: GuestType, lock: string): PveHttpError {
  return new PveHttpError(500, `${lockedText(type, lock)}\n`);
}

/** A 400 `Parameter verification failed.` for one parameter, as raised from handler code. */
export function paramError(param: string, text: string): PveHttpError {
  return new PveHttpError(400, 'Parameter verification failed.\n', { [param]: text });
}

/** Any other handler `die`: 500 with the message. */
export function fail(message: string): PveHttpError {
  return new PveHttpError(500, message.endsWith('\n') ? message : `${message}\n`);
}

/**
 * PVE's `assert_if_modified`: a change that names a digest other than the current one (someone
 * else changed the config in between) is refused.
 */
export function assertUnmodified(currentDigest: string, givenDigest: string | undefined): void {
  if (givenDigest !== undefined && givenDigest !== currentDigest) throw fail('detected modified configuration - file changed by other user? Try again.');
}

/** 403 from a permission check made inside a handler (as PVE's `$rpcenv->check`). */
export function permissionDenied(path: string, privilege: string): PveHttpError {
  return new PveHttpError(403, `Permission check failed (${path}, ${privilege})\n`);
}
