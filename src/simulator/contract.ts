/**
 * How the simulator's HTTP layer (wire protocol, auth, validation, permissions, faults) and its
 * endpoint implementations (cluster state, guests, tasks…) meet.
 *
 * Each implemented operation is one `SimEndpoint`: its description in the project's own words
 * (parameters, returns, permissions — rendered to apidoc format, this is the simulator's own
 * schema) together with its handler. The HTTP layer validates parameters and checks permissions
 * against whichever schema is loaded (the own one by default, an official file when given) before
 * the handler runs, so handlers only see valid, coerced parameters.
 */
import type { HttpMethod, SchemaNode } from '../schema/model.js';

/** A failure PVE reports with an HTTP status and message (500 for most handler `die`s). */
export class PveHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Per-parameter errors (400 `Parameter verification failed.`). */
    readonly errors?: Record<string, string>,
  ) {
    super(message);
    this.name = 'PveHttpError';
  }
}

export interface SimPrincipal {
  /** `user@realm` — the owner, also for tokens. */
  userid: string;
  /** Token name when authenticated by API token (`mcp` in `root@pam!mcp`). */
  tokenid?: string;
  /** `user@realm` or `user@realm!token`: what UPIDs and task lists carry. */
  authId: string;
}

export interface SimRequestContext {
  method: HttpMethod;
  /** The matched path template. */
  template: string;
  /** Validated, coerced parameters: path values merged with query/body. Booleans as 0/1 numbers. */
  params: Record<string, unknown>;
  principal: SimPrincipal;
  /** Effective privilege check for this principal (token privsep applied, root bypass). */
  hasPriv(aclPath: string, privilege: string): boolean;
  /** Set the envelope's `total` (task list, task log). */
  setTotal(total: number): void;
}

export type SimHandler = (ctx: SimRequestContext) => unknown | Promise<unknown>;

export interface SimPermissions {
  check?: unknown;
  user?: 'all' | 'world';
  description?: string;
}

export interface SimEndpoint {
  method: HttpMethod;
  path: string;
  /** The project's own words; first sentence is the summary. */
  description: string;
  /** Parameters in PVE's JSON-schema dialect (include path params). */
  parameters: Record<string, SchemaNode>;
  returns: SchemaNode;
  permissions: SimPermissions;
  allowtoken?: boolean;
  protected?: boolean;
  /** `node` when the call is proxied to the node in the path (offline node → 595). */
  proxyto?: 'node';
  handler: SimHandler;
}
