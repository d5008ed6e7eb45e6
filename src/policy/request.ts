/**
 * Turns a script's `(method, path, params)` into a validated request on a known operation: the one
 * check of a call's path and params (the bridge contract reads only the call's envelope, and the
 * client sends what this returns without matching the path again), also for the preflight's
 * static calls.
 *
 * The path may be a template (`/nodes/{node}/qemu/{vmid}`, values taken out of params) or a
 * concrete path; its shape is checked first (call-shape.ts), so a script cannot reach an operation
 * other than the one the policy sees, then its values against the schema (param-values.ts). The
 * URL actually sent is rebuilt from the matched template and the validated values with
 * `encodeURIComponent`.
 *
 * Before anything reads the params they become what PVE's handler will read (pve-reading.ts):
 * the schema check, the policy, the plan, the preview, undo and the audit all see that one form.
 */
import type { ApiModel, HttpMethod, Operation } from '../schema/model.js';
import type { ResolvedCall } from '../client/client-like.js';
import { callShape, InvalidCallError, PLACEHOLDER, type Params } from './call-shape.js';
import { checkValues } from './param-values.js';
import { asPveReads } from './pve-reading.js';
import { suggest } from './path-suggest.js';

export { InvalidCallError };

/** A call resolved to one operation: what the policy decides on and, as a `ResolvedCall`, what the client sends. */
export interface ResolvedRequest extends ResolvedCall {
  method: HttpMethod;
  operation: Operation;
  /** Concrete path with raw (unencoded) values: `/nodes/pve1/storage/local/content/local:iso/x.iso`. */
  concretePath: string;
  /** The path to send, values percent-encoded: `/nodes/pve1/storage/local/content/local%3Aiso%2Fx.iso`. */
  urlPath: string;
  /** Values of the template's `{params}` (null-prototype). */
  pathValues: Record<string, string>;
  /** Remaining params (null-prototype, JSON data only, path params removed). */
  params: Params;
}

export function resolveRequest(model: ApiModel, method: HttpMethod, rawPath: string, rawParams: unknown): ResolvedRequest {
  const { segments, params } = callShape(rawPath, rawParams);
  const concretePath = '/' + segments.join('/');
  const match = model.matchPath(method, concretePath);
  if (!match) {
    throw new InvalidCallError(`no API path matches ${concretePath}`, suggest(model, segments));
  }
  if (!match.operation) {
    const methods = model.byPath(match.path).map((op) => op.method);
    throw new InvalidCallError(`${method} is not an operation of ${match.path}`, `That path supports ${methods.join(', ') || 'no methods'}; check the method, or use search_api to find the operation`);
  }
  asPveReads(match.operation, params, match.arrayParams);
  // The path values are the path's own segments, whose characters callShape checked: what is left is what only the schema says of them.
  const pathValues = checkValues(match.operation, match.pathValues, params);
  const urlPath = buildUrlPath(match.operation.path, pathValues);
  return { method, operation: match.operation, concretePath, urlPath, pathValues, params, arrayParams: match.arrayParams };
}

/** The URL path to send: the template with each value percent-encoded as one segment. */
export function buildUrlPath(template: string, values: Record<string, string>): string {
  const out = template
    .split('/')
    .slice(1)
    .map((seg) => {
      const m = PLACEHOLDER.exec(seg);
      if (!m?.[1]) return encodeURIComponent(seg);
      const v = values[m[1]];
      if (v === undefined) throw new InvalidCallError(`path placeholder {${m[1]}} has no value`);
      return encodeURIComponent(v);
    });
  return '/' + out.join('/');
}
