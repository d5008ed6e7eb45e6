/**
 * PVE answered with an error status: `PveHttpError`, and the statuses that have a class of their
 * own (401, 403, not found, the target node offline), each built by response.ts from the
 * `HttpErrorDetails` of the answer. Apart from the exchange's failures (errors.ts) because here PVE
 * did answer, and its status and message are what the caller reads.
 */
import type { HttpMethod } from '../schema/model.js';
import type { PveHttpErrorCode } from './error-codes.js';
import { PveError } from './errors.js';

export interface HttpErrorDetails {
  status: number;
  /** PVE's message: the JSON `message`, else the HTTP reason phrase (trailing newline removed). */
  pveMessage: string;
  /** Per-parameter errors of a 400 `Parameter verification failed.` */
  errors?: Record<string, string>;
  method: HttpMethod;
  /** The API path as sent, without `/api2/json` and without the query string. */
  path: string;
}

export class PveHttpError extends PveError {
  readonly status: number;
  readonly pveMessage: string;
  readonly errors: Record<string, string> | undefined;
  readonly method: HttpMethod;
  readonly path: string;

  override get code(): PveHttpErrorCode {
    return 'pve-http';
  }

  constructor(details: HttpErrorDetails, hint?: string) {
    const params = details.errors
      ? ' ' +
        Object.entries(details.errors)
          .map(([k, v]) => `[${k}: ${v}]`)
          .join(' ')
      : '';
    const tail = hint ? ` ${hint}` : '';
    super(`${details.method} ${details.path} failed with HTTP ${details.status}: ${details.pveMessage}${params}.${tail}`);
    this.status = details.status;
    this.pveMessage = details.pveMessage;
    this.errors = details.errors;
    this.method = details.method;
    this.path = details.path;
  }
}

export class PveAuthError extends PveHttpError {
  override get code(): 'pve-auth' {
    return 'pve-auth';
  }
}

export class PvePermissionError extends PveHttpError {
  override get code(): 'pve-permission' {
    return 'pve-permission';
  }

  constructor(
    details: HttpErrorDetails,
    /** ACL path and privilege from `Permission check failed (/vms/100, VM.PowerMgmt)`, when PVE names them. */
    readonly aclPath: string | undefined,
    readonly privilege: string | undefined,
    hint: string,
  ) {
    super(details, hint);
  }
}

export class PveNotFoundError extends PveHttpError {
  override get code(): 'pve-not-found' {
    return 'pve-not-found';
  }
}

export class PveNodeOfflineError extends PveHttpError {
  override get code(): 'pve-node-offline' {
    return 'pve-node-offline';
  }

  constructor(
    details: HttpErrorDetails,
    /** The node taken from the `/nodes/{node}/…` path, when there is one. */
    readonly node: string | undefined,
  ) {
    const which = node ? `node '${node}'` : 'the target node';
    // PVE forwards the call to that node; a write may have reached it before the forwarding failed.
    const write =
      details.method === 'GET'
        ? ''
        : ` Whether this ${details.method} reached ${which} before the forwarding failed is unknown: ` +
          `once the node is back, look at its tasks (GET /nodes/{node}/tasks) and at the object before repeating it.`;
    super(details, `The API node could not reach ${which}: it is offline or its pveproxy is down. ` + `Check /cluster/status, or run the call on another node.${write}`);
  }
}
