/**
 * Turns a script's `(method, path, params)` into a validated request on a known operation.
 *
 * The path may be a template (`/nodes/{node}/qemu/{vmid}`, values taken out of params) or a
 * concrete path. Every segment is checked against a safe character set; dot segments,
 * percent-encoding, `?`/`#`, whitespace and control characters are refused, so a script cannot
 * reach an operation other than the one the policy sees. The URL actually sent is rebuilt from
 * the matched template and the validated values with `encodeURIComponent`.
 */
import type { ApiModel, HttpMethod, Operation } from '../schema/model.js';
import { isRestOfPathParam, splitPath } from '../schema/model.js';
import { copyJsonData, JsonDataError, type JsonValue } from './json-data.js';

export type Params = Record<string, JsonValue>;

export interface ResolvedRequest {
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

export class InvalidCallError extends Error {
  constructor(message: string, readonly hint?: string) {
    super(hint ? `${message}. ${hint}` : message);
    this.name = 'InvalidCallError';
  }
}

const MAX_PATH_LENGTH = 2048;
const MAX_SEGMENT_LENGTH = 512;
/** Characters PVE identifiers use (node, storage, snapshot, user@realm!token, UPID, pool…). */
const SAFE_SEGMENT = /^[A-Za-z0-9._~:@!+,=-]+$/;
const PLACEHOLDER = /^\{([A-Za-z][A-Za-z0-9_-]*)\}$/;
const FORBIDDEN = /[?#%\\\s\u0000-\u001f\u007f]/;
const CANONICAL_VMID = /^[1-9][0-9]{0,8}$/;

export function resolveRequest(model: ApiModel, method: HttpMethod, rawPath: string, rawParams: unknown): ResolvedRequest {
  const params = copyParams(rawParams);
  const segments = substitute(checkPathText(rawPath), params);
  const concretePath = '/' + segments.join('/');
  const match = model.matchPath(method, concretePath);
  if (!match) {
    throw new InvalidCallError(`no API path matches ${concretePath}`, suggest(model, segments));
  }
  if (!match.operation) {
    const methods = model.byPath(match.path).map((op) => op.method);
    throw new InvalidCallError(
      `${method} is not an operation of ${match.path}`,
      `That path supports ${methods.join(', ') || 'no methods'}; check the method, or use search_api to find the operation`,
    );
  }
  const pathValues = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(match.pathValues)) {
    checkValue(name, value, isRestOfPathParam(name));
    if (name === 'vmid' && !CANONICAL_VMID.test(value)) {
      throw new InvalidCallError(`path value vmid '${value}' is not a VMID`, 'Use the number as PVE shows it, e.g. 101');
    }
    pathValues[name] = value;
    if (Object.hasOwn(params, name)) {
      if (String(params[name]) !== value) {
        throw new InvalidCallError(`params.${name} (${JSON.stringify(params[name])}) conflicts with '${value}' in the path`, 'Give each path value once');
      }
      delete params[name];
    }
  }
  const urlPath = buildUrlPath(match.operation.path, pathValues);
  return { method, operation: match.operation, concretePath, urlPath, pathValues, params };
}

function copyParams(raw: unknown): Params {
  if (raw === undefined || raw === null) return Object.create(null) as Params;
  let copied: JsonValue;
  try {
    copied = copyJsonData(raw, 'params');
  } catch (err) {
    if (err instanceof JsonDataError) throw new InvalidCallError(err.message);
    throw err;
  }
  if (copied === null || typeof copied !== 'object' || Array.isArray(copied)) {
    throw new InvalidCallError('params must be an object of parameter names to values', "e.g. { node: 'pve1', vmid: 101 }");
  }
  return copied;
}

function checkPathText(rawPath: string): string[] {
  if (typeof rawPath !== 'string' || !rawPath.startsWith('/')) {
    throw new InvalidCallError(`path ${JSON.stringify(rawPath)} must start with '/'`, "e.g. '/nodes/{node}/qemu'");
  }
  if (rawPath.length > MAX_PATH_LENGTH) throw new InvalidCallError(`path is longer than ${MAX_PATH_LENGTH} characters`);
  if (FORBIDDEN.test(rawPath)) {
    throw new InvalidCallError(
      `path ${JSON.stringify(rawPath)} contains '?', '#', '%', a backslash, whitespace or a control character`,
      'Pass query parameters in params and values unencoded; the bridge encodes them',
    );
  }
  const stripped = rawPath.replace(/^\/api2\/json(?=\/|$)/, '');
  const parts = stripped.split('/').slice(1);
  if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

function substitute(parts: string[], params: Params): string[] {
  const out: string[] = [];
  parts.forEach((part, index) => {
    if (part === '') throw new InvalidCallError('path has an empty segment (//)');
    const m = PLACEHOLDER.exec(part);
    if (m?.[1]) {
      const name = m[1];
      const raw = Object.hasOwn(params, name) ? params[name] : undefined;
      if (raw === undefined || raw === null || raw === '') {
        throw new InvalidCallError(`path placeholder {${name}} has no value`, `Pass it in params: { ${name}: ... }`);
      }
      if (typeof raw !== 'string' && !(typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0)) {
        throw new InvalidCallError(`params.${name} fills a path segment and must be a string or a whole number`);
      }
      delete params[name];
      const value = String(raw);
      const restOfPath = isRestOfPathParam(name) && index === parts.length - 1;
      checkValue(name, value, restOfPath);
      out.push(...(restOfPath ? value.split('/') : [value]));
      return;
    }
    if (part.includes('{') || part.includes('}')) {
      throw new InvalidCallError(`path segment '${part}' mixes text and a placeholder`, 'A placeholder must be a whole segment, e.g. /{vmid}/');
    }
    checkSegment(part, `path segment '${part}'`);
    out.push(part);
  });
  return out;
}

function checkValue(name: string, value: string, restOfPath: boolean): void {
  if (FORBIDDEN.test(value)) {
    throw new InvalidCallError(`value of {${name}} contains '?', '#', '%', a backslash, whitespace or a control character`);
  }
  const pieces = restOfPath ? value.split('/') : [value];
  for (const piece of pieces) checkSegment(piece, `value of {${name}} (${JSON.stringify(value)})`);
}

function checkSegment(segment: string, what: string): void {
  if (segment === '') throw new InvalidCallError(`${what} has an empty segment`);
  if (segment === '.' || segment === '..') throw new InvalidCallError(`${what} is a dot segment; relative paths are not allowed`);
  if (segment.length > MAX_SEGMENT_LENGTH) throw new InvalidCallError(`${what} is longer than ${MAX_SEGMENT_LENGTH} characters`);
  if (!SAFE_SEGMENT.test(segment)) {
    throw new InvalidCallError(`${what} contains characters outside A-Z a-z 0-9 . _ ~ : @ ! + , = -`);
  }
}

/** The URL path to send: the template with each value percent-encoded as one segment. */
export function buildUrlPath(template: string, values: Record<string, string>): string {
  const out = splitPath(template).map((seg) => {
    const m = PLACEHOLDER.exec(seg);
    if (!m?.[1]) return encodeURIComponent(seg);
    const v = values[m[1]];
    if (v === undefined) throw new InvalidCallError(`path placeholder {${m[1]}} has no value`);
    return encodeURIComponent(v);
  });
  return '/' + out.join('/');
}

/** Up to three known paths nearest the failed one (edit distance over segments), for the error's hint. */
function suggest(model: ApiModel, segments: string[]): string {
  const shown = nearestPaths(model, segments, 3);
  const near = shown.length > 0 ? `Did you mean ${shown.join(', ')}? ` : '';
  return `${near}Use search_api to find the operation and get_schema for its exact path`;
}

/**
 * The `n` path templates (with at least one operation) nearest to the given segments: edit
 * distance over segments, a `{param}` segment matching any value, a near-miss name
 * (`resource` for `resources`) costing less than a wrong one.
 */
export function nearestPaths(model: ApiModel, segments: readonly string[], n: number): string[] {
  return model.paths
    .filter((path) => model.byPath(path).length > 0)
    .map((path) => ({ path, cost: segmentDistance(segments, splitPath(path)) }))
    .sort((a, b) => a.cost - b.cost || a.path.length - b.path.length)
    .slice(0, n)
    .map(({ path }) => path);
}

/** Edit distance over path segments; a `{param}` segment matches anything, near-miss names cost less than 1. */
function segmentDistance(a: readonly string[], b: readonly string[]): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + segmentCost(a[i - 1] as string, b[j - 1] as string);
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] as number;
}

function segmentCost(given: string, template: string): number {
  if (given === template) return 0;
  if (template.startsWith('{')) return given.startsWith('{') ? 0.1 : 0.3;
  return Math.min(1, charDistance(given.toLowerCase(), template) / Math.max(given.length, template.length));
}

function charDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
    }
    previous = current;
  }
  return previous[b.length] as number;
}
