/**
 * Turns a script's `(method, path, params)` into a validated request on a known operation.
 *
 * The path may be a template (`/nodes/{node}/qemu/{vmid}`, values taken out of params) or a
 * concrete path. Every segment is checked against a safe character set; dot segments,
 * percent-encoding, `?`/`#`, whitespace and control characters are refused, so a script cannot
 * reach an operation other than the one the policy sees. The URL actually sent is rebuilt from
 * the matched template and the validated values with `encodeURIComponent`.
 */
import type { ApiModel, HttpMethod, Operation, SchemaNode } from '../schema/model.js';
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

/**
 * The limits of a bridge call, one set for every place that checks one (the sandbox channel, the
 * handler, this resolution), so they cannot disagree.
 */
export const CALL_LIMITS = {
  /** A call's path, as written by the script. */
  pathChars: 2_048,
  /** A task ID (`UPID:node:…`). */
  upidChars: 512,
  /** `waitTask`'s `timeoutMs`: at least 1 ms, at most a day (the run's task-wait budget caps it further). */
  minTimeoutMs: 1,
  maxTimeoutMs: 86_400_000,
} as const;

const MAX_PATH_LENGTH = CALL_LIMITS.pathChars;
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
    checkPathFormat(match.operation, name, value);
    pathValues[name] = value;
    if (Object.hasOwn(params, name)) {
      if (String(params[name]) !== value) {
        throw new InvalidCallError(`params.${name} (${JSON.stringify(params[name])}) conflicts with '${value}' in the path`, 'Give each path value once');
      }
      delete params[name];
    }
  }
  checkParams(match.operation, params);
  const urlPath = buildUrlPath(match.operation.path, pathValues);
  return { method, operation: match.operation, concretePath, urlPath, pathValues, params };
}

// --- parameter values against the schema -------------------------------------------------------
//
// The product's own check, made before anything is planned or sent (live runs, dry-runs and the
// preflight): types, ranges, enums, lengths, the formats PVE identifiers use, and the syntax of
// property strings (`memory: '8G'` is not `[current=]<integer>` in MiB). It refuses only what PVE
// would refuse for certain; formats it does not know and Perl patterns are left to PVE.

/**
 * `pve-configid` is PVE's format for every identifier kept in a configuration file (snapshot names,
 * group and rule names, configuration keys): what a value stands for comes from the parameter.
 */
const CONFIG_ID_MEANING: Readonly<Record<string, string>> = {
  snapname: "a snapshot name, e.g. 'before_upgrade'",
  snapshot: "a snapshot name, e.g. 'before_upgrade'",
  delete: "a configuration key, e.g. 'net0'",
  revert: "a configuration key, e.g. 'net0'",
  idlist: "a configuration key, e.g. 'net0'",
  group: "a group name, e.g. 'web'",
  rule: "a rule name, e.g. 'web-on-pve1'",
  'fs-name': "a CephFS name, e.g. 'cephfs'",
  ds: "a data source name, e.g. 'cpu'",
};
const CONFIG_ID_SYNTAX = "a letter, then letters, digits, '-' or '_'";

function configIdExpected(param: string | undefined): string {
  const meaning = param !== undefined ? CONFIG_ID_MEANING[param] : undefined;
  return meaning ? meaning.replace(', e.g.', ` (${CONFIG_ID_SYNTAX}), e.g.`) : `an identifier (${CONFIG_ID_SYNTAX}), e.g. 'web1'`;
}

const NAMED_FORMATS: Readonly<Record<string, { test: (v: string) => boolean; expected: string | ((param: string | undefined) => string) }>> = {
  'pve-vmid': { test: (v) => /^[1-9][0-9]{2,8}$/.test(v), expected: 'a VMID (100..999999999), e.g. 101' },
  'pve-node': { test: (v) => /^[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?$/.test(v), expected: "a node name, e.g. 'pve1'" },
  'pve-storage-id': { test: (v) => /^[a-z][a-z0-9_.-]*[a-z0-9]$/i.test(v), expected: "a storage ID, e.g. 'local-lvm'" },
  'pve-configid': { test: (v) => /^[a-z][a-z0-9_-]*$/i.test(v), expected: configIdExpected },
  'pve-poolid': { test: (v) => /^[A-Za-z0-9_/-]+$/.test(v), expected: "a pool ID, e.g. 'web'" },
  'mac-addr': { test: (v) => /^[0-9a-f]{2}(?::[0-9a-f]{2}){5}$/i.test(v), expected: "a MAC address, e.g. 'BC:24:11:00:00:01'" },
  ipv4: { test: isIpv4, expected: "an IPv4 address, e.g. '192.0.2.10'" },
  'disk-size': { test: (v) => /^\d+(?:\.\d+)?[KMGT]?$/.test(v), expected: "a size: a number with an optional K, M, G or T suffix, e.g. '32G'" },
};

function isIpv4(v: string): boolean {
  const parts = v.split('.');
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
}

/** A schema node or parameter spec, as far as a value check needs it. */
interface ValueSpec {
  type?: string | string[] | undefined;
  format?: string | Record<string, SchemaNode> | undefined;
  enum?: ReadonlyArray<string | number> | undefined;
  minimum?: number | undefined;
  maximum?: number | undefined;
  maxLength?: number | undefined;
  description?: string | undefined;
  typetext?: string | undefined;
  items?: SchemaNode | undefined;
  /** The parameter's name, where the spec is one (a format's meaning can depend on it). */
  name?: string | undefined;
}

function expectedFor(format: string, param: string | undefined): string | undefined {
  const named = NAMED_FORMATS[format];
  if (!named) return undefined;
  return typeof named.expected === 'string' ? named.expected : named.expected(param);
}

function checkParams(op: Operation, params: Params): void {
  const problems: string[] = [];
  for (const [name, value] of Object.entries(params)) {
    const spec = op.params.find((p) => p.name === name && !p.inPath);
    if (!spec || value === null) continue;
    const problem = checkParamValue(spec, value);
    if (problem) problems.push(`${name}: ${problem}`);
  }
  if (problems.length === 0) return;
  throw new InvalidCallError(
    `invalid parameter${problems.length === 1 ? '' : 's'} for ${op.key}: ${problems.join('; ')}`,
    `Nothing was sent. get_schema with params: [${problems.map((p) => `'${p.slice(0, p.indexOf(':'))}'`).join(', ')}] shows the expected form`,
  );
}

function checkParamValue(spec: ValueSpec, value: JsonValue): string | undefined {
  const type = Array.isArray(spec.type) ? undefined : spec.type;
  if (typeof spec.format === 'object' && spec.format !== null) return checkPropertyString(spec.format, value, spec.typetext);
  if (type === 'array') {
    if (!Array.isArray(value)) return undefined;
    for (const item of value) {
      const problem = spec.items ? checkParamValue(spec.items, item) : undefined;
      if (problem) return `item ${JSON.stringify(item)}: ${problem}`;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    return type === 'object' || type === undefined ? undefined : `got an object, expected ${expectedOf(spec)}`;
  }
  switch (type) {
    case 'integer':
    case 'number':
      return checkNumber(spec, value, type);
    case 'boolean':
      return isBooleanValue(value) ? undefined : `got ${JSON.stringify(value)}, expected a boolean (true/false or 1/0)`;
    case 'string':
      return checkString(spec, value);
    default:
      return undefined;
  }
}

function checkNumber(spec: ValueSpec, value: JsonValue, type: 'integer' | 'number'): string | undefined {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : undefined;
  const pattern = type === 'integer' ? /^[+-]?\d+$/ : /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;
  if (text === undefined || !pattern.test(text)) return `got ${JSON.stringify(value)}, expected ${expectedOf(spec)}`;
  const n = Number(text);
  if ((spec.minimum !== undefined && n < spec.minimum) || (spec.maximum !== undefined && n > spec.maximum)) {
    return `${text} is out of range, expected ${expectedOf(spec)}`;
  }
  if (spec.enum && spec.enum.length > 0 && !spec.enum.map(String).includes(text)) return `got ${text}, expected one of ${spec.enum.join(', ')}`;
  return undefined;
}

function checkString(spec: ValueSpec, value: JsonValue): string | undefined {
  if (Array.isArray(value)) {
    // The SDK takes lists as arrays too; each item must be a valid list member.
    if (typeof spec.format !== 'string' || !spec.format.endsWith('-list')) return undefined;
    for (const item of value) {
      const problem = typeof item === 'string' || typeof item === 'number' ? checkListItem(spec.format, String(item), spec.name) : `got ${JSON.stringify(item)} in the list`;
      if (problem) return problem;
    }
    return undefined;
  }
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return undefined;
  const text = String(value);
  if (spec.maxLength !== undefined && text.length > spec.maxLength) return `is ${text.length} characters long, at most ${spec.maxLength} allowed`;
  const format = typeof spec.format === 'string' ? spec.format : undefined;
  if (format?.endsWith('-list')) {
    for (const item of text.split(/[,;\s]+/).filter(Boolean)) {
      const problem = checkListItem(format, item, spec.name);
      if (problem) return problem;
    }
    return undefined;
  }
  if (spec.enum && spec.enum.length > 0 && !spec.enum.map(String).includes(text)) {
    const shown = spec.enum.length > 12 ? `${spec.enum.slice(0, 12).join(', ')}, …` : spec.enum.join(', ');
    return `got ${JSON.stringify(text)}, expected one of ${shown}`;
  }
  const named = format !== undefined ? NAMED_FORMATS[format] : undefined;
  if (format !== undefined && named && !named.test(text)) return `got ${JSON.stringify(text)}, expected ${expectedFor(format, spec.name)}`;
  return undefined;
}

function checkListItem(listFormat: string, item: string, param: string | undefined): string | undefined {
  const format = listFormat.slice(0, -'-list'.length);
  const named = NAMED_FORMATS[format];
  return named && !named.test(item) ? `list item ${JSON.stringify(item)} is not ${expectedFor(format, param)}` : undefined;
}

function isBooleanValue(value: JsonValue): boolean {
  if (typeof value === 'boolean') return true;
  if (typeof value === 'number') return value === 0 || value === 1;
  return typeof value === 'string' && /^(?:0|1|true|false|yes|no|on|off)$/i.test(value);
}

/** `an integer ≥ 16, in MiB`: what a valid value looks like. */
function expectedOf(spec: ValueSpec): string {
  const type = Array.isArray(spec.type) ? undefined : spec.type;
  const kind = type === 'integer' ? 'an integer' : type === 'number' ? 'a number' : type === 'boolean' ? 'a boolean' : type === 'string' ? 'a string' : 'a value';
  const range =
    spec.minimum !== undefined && spec.maximum !== undefined
      ? ` ${spec.minimum}..${spec.maximum}`
      : spec.minimum !== undefined
        ? ` ≥ ${spec.minimum}`
        : spec.maximum !== undefined
          ? ` ≤ ${spec.maximum}`
          : '';
  const unit = UNIT_IN.exec(spec.description ?? '')?.[1];
  return `${kind}${range}${unit ? `, in ${unit}` : ''}`;
}

const UNIT_IN = /\b(?:in|In)\s+(KiB|MiB|GiB|TiB|KB|MB|GB|TB|bytes?|seconds?|milliseconds|minutes?|hours?|days?|percent)\b/;

/** `key=value,key2=value2` with the default key's name optional, values possibly double-quoted. */
function checkPropertyString(format: Record<string, SchemaNode>, value: JsonValue, typetext: string | undefined): string | undefined {
  const syntax = typetext ? ` (syntax ${typetext})` : '';
  const defaultKey = Object.entries(format).find(([, node]) => node.default_key)?.[0];
  if (typeof value === 'number' || typeof value === 'boolean') {
    if (!defaultKey) return `got ${JSON.stringify(value)}, expected a property string${syntax}`;
    const problem = checkParamValue(format[defaultKey] as SchemaNode, value);
    return problem ? `${defaultKey} (its default key) ${problem}${syntax}` : undefined;
  }
  if (typeof value !== 'string') return Array.isArray(value) ? undefined : `got ${JSON.stringify(value)}, expected a property string${syntax}`;
  const seen = new Set<string>();
  for (const [index, item] of splitItems(value).entries()) {
    if (item === '') continue;
    const eq = item.indexOf('=');
    let key: string;
    let raw: string;
    if (eq < 0) {
      if (index !== 0 || !defaultKey) {
        // A bare word is only the default key's value, and only first.
        if (Object.hasOwn(format, item) && (format[item] as SchemaNode).type === 'boolean') continue;
        return `'${item}' has no key${defaultKey ? ` (only the first item may omit '${defaultKey}=')` : ''}${syntax}`;
      }
      key = defaultKey;
      raw = item;
    } else {
      key = item.slice(0, eq).trim();
      raw = item.slice(eq + 1);
    }
    if (!Object.hasOwn(format, key)) {
      const keys = Object.keys(format).filter((k) => (format[k] as SchemaNode).alias === undefined);
      return `unknown key '${key}'; known keys: ${keys.join(', ')}`;
    }
    if (seen.has(key)) return `key '${key}' is given twice${syntax}`;
    seen.add(key);
    const node = format[key] as SchemaNode;
    const target = typeof node.alias === 'string' && Object.hasOwn(format, node.alias) ? (format[node.alias] as SchemaNode) : node;
    const text = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
    const problem = checkParamValue(target, text);
    if (problem) return `${key === defaultKey && eq < 0 ? `${key} (its default key)` : key} ${problem}${syntax}`;
  }
  return undefined;
}

function splitItems(value: string): string[] {
  const items: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i] as string;
    if (c === '\\' && quoted && i + 1 < value.length) {
      current += c + (value[i + 1] as string);
      i++;
    } else if (c === '"') {
      quoted = !quoted;
      current += c;
    } else if (c === ',' && !quoted) {
      items.push(current.trim());
      current = '';
    } else {
      current += c;
    }
  }
  items.push(current.trim());
  return items;
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

/** A path value in a named format (`{snapname}` is a `pve-configid`) must read as one, and the hint says what it stands for. */
function checkPathFormat(op: Operation, name: string, value: string): void {
  const spec = op.params.find((p) => p.inPath && p.name === name);
  const format = typeof spec?.format === 'string' ? spec.format : undefined;
  const named = format !== undefined ? NAMED_FORMATS[format] : undefined;
  if (format === undefined || !named || named.test(value)) return;
  throw new InvalidCallError(`path value ${name} '${value}' is not ${expectedFor(format, name)}`, `Use the ${name} as PVE lists it`);
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
