/**
 * One instance of each client error, by its code: the unit tests of the codes and of their
 * mapping to bridge kinds go through every code with these. A code missing here fails those
 * tests (they compare the keys with `PVE_ERROR_CODES`).
 */
import type { PveErrorCode } from '../../src/client/error-codes.js';
import {
  PveAbortedError,
  PveConfigError,
  PveConnectionError,
  type PveError,
  PveInputError,
  PveOutcomeUnknownError,
  PveProtocolError,
  PveResponseTooLargeError,
  PveSchemaUnavailableError,
  PveTimeoutError,
  PveTlsError,
  TlsPinMismatchError,
} from '../../src/client/errors.js';
import { PveAuthError, PveHttpError, PveNodeOfflineError, PveNotFoundError, PvePermissionError } from '../../src/client/http-errors.js';
import { PveTaskFailedError, PveTaskUnknownError } from '../../src/client/task-errors.js';

const details = (status: number, pveMessage: string) => ({ status, pveMessage, method: 'GET' as const, path: '/nodes/pve1/qemu/100/config' });

/** Each error as a read (GET) would raise it: none of them is a write whose outcome is unknown. */
export const ERROR_SAMPLES: Record<PveErrorCode, () => PveError> = {
  'pve-config': () => new PveConfigError([{ key: 'clusters.prod.url', message: 'not a URL' }], '/etc/pve-code-mcp.json'),
  'pve-input': () => new PveInputError("GET /nodes/{node}/qemu: missing value for path parameter 'node'"),
  'pve-aborted': () => new PveAbortedError('GET', '/nodes', true, new Error('user cancelled')),
  'pve-timeout': () => new PveTimeoutError('headers', 60_000, 'GET', '/nodes'),
  'pve-connection': () => new PveConnectionError('GET /nodes: cannot talk to https://pve1:8006 (ECONNREFUSED): check …', 'ECONNREFUSED', true, 'GET', '/nodes'),
  'pve-outcome-unknown': () => new PveOutcomeUnknownError('POST', '/nodes/pve1/qemu/100/status/start', 'ECONNRESET'),
  'pve-tls': () => new PveTlsError('pve1:8006', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'AB:CD'),
  'pve-tls-pin': () => new TlsPinMismatchError('pve1:8006', 'AA:BB', 'CC:DD'),
  'pve-protocol': () => new PveProtocolError('GET', '/version', 200, 'text/html'),
  'pve-too-large': () => new PveResponseTooLargeError('GET', '/cluster/resources', 67_108_864, 67_125_000),
  'pve-http': () => new PveHttpError({ ...details(400, 'Parameter verification failed.'), errors: { memory: 'value must be at least 16' } }),
  'pve-auth': () => new PveAuthError(details(401, 'authentication failure')),
  'pve-permission': () => new PvePermissionError(details(403, 'Permission check failed (/vms/100, VM.Audit)'), '/vms/100', 'VM.Audit', 'grant VM.Audit on /vms/100'),
  'pve-not-found': () => new PveNotFoundError(details(500, "Configuration file 'nodes/pve1/qemu-server/100.conf' does not exist")),
  'pve-node-offline': () => new PveNodeOfflineError(details(595, 'Connection timed out'), 'pve1'),
  'pve-task-failed': () =>
    new PveTaskFailedError({ upid: 'UPID:pve1:00001234:00ABCDEF:65000000:qmstart:100:root@pam:', node: 'pve1', status: 'stopped', exitstatus: 'boom', ok: false, log: ['boom'] }),
  'pve-task-unknown': () =>
    new PveTaskUnknownError('UPID:pve1:00001234:00ABCDEF:65000000:qmstart:100:root@pam:', 'pve1', 'running', 'GET /nodes/pve1/tasks/…/status failed with HTTP 595: Connection refused'),
  'pve-schema-unavailable': () => new PveSchemaUnavailableError('prod', new Error('connect ECONNREFUSED')),
};
