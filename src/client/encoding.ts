/**
 * Turns `(method, path, params)` into what pveproxy accepts on the wire:
 * `{name}` placeholders filled from params and percent-encoded, booleans as 1/0, lists comma-joined
 * (repeated keys for `type: array` params), GET/DELETE params in the query string (PVE rejects a
 * body on them), POST/PUT params as an `application/x-www-form-urlencoded` body.
 */
import type { HttpMethod } from '../schema/model.js';
import { PveInputError } from './errors.js';

export interface EncodedRequest {
  /** Concrete API path below `/api2/json`, placeholders substituted and encoded. */
  path: string;
  /** Query string without `?` (GET/DELETE), empty when there are no params. */
  query: string;
  /** Form body (POST/PUT), undefined when there are no params. */
  body: string | undefined;
}

const API_PREFIX = /^\/api2\/json(?=\/|$)/;
const PLACEHOLDER = /\{([^{}/]+)\}/g;
// Characters that would change the request line or be cut by the server: params belong in `params`.
const FORBIDDEN_IN_PATH = /[?#\s\u0000-\u001f\u007f]/;

export function encodeRequest(
  method: HttpMethod,
  path: string,
  params: Record<string, unknown> = {},
  /** Names of params declared `type: array` by the schema: sent as repeated keys. */
  arrayParams: ReadonlySet<string> = new Set(),
): EncodedRequest {
  const rest: Record<string, unknown> = { ...params };
  const concrete = substitutePath(normalizeApiPath(path), rest);
  return encodeParams(method, concrete, rest, arrayParams);
}

/**
 * The params of a call whose path is already concrete and encoded (a resolved call): into the
 * query (GET/DELETE) or the form body (POST/PUT); the path is taken as it is.
 */
export function encodeParams(method: HttpMethod, path: string, params: Readonly<Record<string, unknown>>, arrayParams: ReadonlySet<string>): EncodedRequest {
  const pairs = toPairs(params, arrayParams);
  const form = new URLSearchParams(pairs).toString();
  if (method === 'GET' || method === 'DELETE') return { path, query: form, body: undefined };
  return { path, query: '', body: pairs.length > 0 ? form : undefined };
}

/** Drop an `/api2/json` prefix and trailing slashes; reject paths carrying a query or fragment. */
export function normalizeApiPath(path: string): string {
  if (typeof path !== 'string' || !path.startsWith('/')) {
    throw new PveInputError(`API path ${JSON.stringify(path)} must start with '/', e.g. '/nodes/{node}/qemu'.`);
  }
  const stripped = path.replace(API_PREFIX, '') || '/';
  if (FORBIDDEN_IN_PATH.test(stripped)) {
    throw new PveInputError(`API path ${JSON.stringify(path)} contains whitespace, '?' or '#': pass query parameters in params, not in the path.`);
  }
  return stripped.length > 1 ? stripped.replace(/\/+$/, '') : stripped;
}

function substitutePath(template: string, params: Record<string, unknown>): string {
  return template.replace(PLACEHOLDER, (_match, name: string) => {
    const value = params[name];
    delete params[name];
    if (value === undefined || value === null || value === '') {
      throw new PveInputError(`Path ${template} needs a value for {${name}}: pass it as params.${name}.`);
    }
    if (typeof value !== 'string' && typeof value !== 'number') {
      throw new PveInputError(`Path parameter {${name}} must be a string or number, got ${describe(value)}.`);
    }
    return encodeURIComponent(String(value));
  });
}

function toPairs(params: Readonly<Record<string, unknown>>, arrayParams: ReadonlySet<string>): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) {
      if (arrayParams.has(name)) {
        value.forEach((item, i) => pairs.push([name, scalar(`${name}[${i}]`, item)]));
      } else {
        pairs.push([name, joinedList(name, value)]);
      }
      continue;
    }
    pairs.push([name, scalar(name, value)]);
  }
  return pairs;
}

/**
 * A list given as an array to a parameter that is not `type: array`: one comma-joined string,
 * which PVE splits again. The request resolver gives the policy this same string.
 */
export function joinedList(name: string, items: readonly unknown[]): string {
  return items.map((item, i) => scalar(`${name}[${i}]`, item)).join(',');
}

function scalar(name: string, value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'boolean':
      return value ? '1' : '0';
    case 'number':
      if (!Number.isFinite(value)) throw new PveInputError(`Parameter ${name} is ${value}: give a finite number.`);
      return String(value);
    case 'bigint':
      return value.toString();
    default:
      throw new PveInputError(
        `Parameter ${name} is ${describe(value)}: PVE takes strings, numbers, booleans or lists of them; ` + `nested settings are property strings such as 'virtio,bridge=vmbr0'.`,
      );
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
