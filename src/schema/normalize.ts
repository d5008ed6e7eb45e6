/**
 * Raw apidoc tree → plain `Operation`s. The tree is untrusted input (a user-named file or URL), so
 * every path node and method is checked and problems are reported by JSON path; inside the product
 * only the normalized, typed data circulates.
 *
 * The checks are written by hand, like readSchemaNode's for the JSON-schema fragments: this runs at
 * every server start, and zod object schemas over the ~1100 path nodes and methods of PVE 9.1 cost
 * as much as all the rest of normalizing while the code is still cold.
 */
import { SchemaShapeError, type SchemaShapeIssue } from './errors.js';
import { isPlainObject, kindOf, readSchemaNode, readSchemaNodeMap } from './schema-node.js';
import { HTTP_METHODS, templateParams, type HttpMethod, type Operation, type ParamSpec, type ParamType, type Permissions, type SchemaNode } from './model.js';
import { classifyRisk } from './risk.js';

/** A path node as the schema writes it, after checking. */
interface RawPathNode {
  path: string;
  info?: Record<string, unknown>;
  children?: unknown[];
}

/** A method as the schema writes it, after checking. Real schemas write some absent fields as `null`: read as undefined. */
interface RawMethod {
  method?: HttpMethod;
  name?: string;
  description?: string;
  parameters?: { properties?: Record<string, unknown>; additionalProperties?: Flag | Record<string, unknown> };
  returns?: unknown;
  permissions?: { check?: unknown[]; description?: string; user?: string };
  allowtoken?: Flag;
  protected?: Flag;
  proxyto?: string;
}

/** Real schemas write some flags as strings ("0", "1"); those are read as numbers. */
type Flag = boolean | number;

/** Stop collecting after this many problems: the report is for a human, not a full lint. */
const MAX_ISSUES = 20;

export interface NormalizedSchema {
  operations: Operation[];
  /** Every path node in tree order, including ones without methods. */
  paths: string[];
}

export function normalizeSchema(tree: unknown, location?: string): NormalizedSchema {
  const issues: SchemaShapeIssue[] = [];
  if (!Array.isArray(tree)) throw new SchemaShapeError([{ jsonPath: '$', message: 'expected an array of path nodes' }], location);

  const operations: Operation[] = [];
  const paths: string[] = [];
  const seen = new Set<string>();
  // Explicit stack instead of recursion: depth is bounded by the extractor, but this keeps tree order cheaply.
  const stack: Array<{ node: unknown; jsonPath: string }> = tree.map((node, i) => ({ node, jsonPath: `$[${i}]` })).reverse();
  while (stack.length > 0 && issues.length < MAX_ISSUES) {
    const { node, jsonPath } = stack.pop() as { node: unknown; jsonPath: string };
    const parsed = readPathNode(node, jsonPath, issues);
    if (!parsed) continue;
    const { path, info, children } = parsed;
    if (seen.has(path)) issues.push({ jsonPath: `${jsonPath}.path`, message: `duplicate path node ${path}` });
    seen.add(path);
    paths.push(path);
    for (const method of HTTP_METHODS) {
      if (info?.[method] === undefined) continue;
      const methodPath = `${jsonPath}.info.${method}`;
      const raw = readMethod(info[method], methodPath, issues);
      if (!raw) continue;
      if (raw.method !== undefined && raw.method !== method) {
        issues.push({ jsonPath: `${methodPath}.method`, message: `says ${raw.method} but is listed under ${method}` });
      } else {
        const op = toOperation(method, path, raw, methodPath, issues);
        if (op) operations.push(op);
      }
    }
    (children ?? []).forEach((_, i, all) => {
      const j = all.length - 1 - i;
      stack.push({ node: all[j], jsonPath: `${jsonPath}.children[${j}]` });
    });
  }
  if (issues.length > 0) throw new SchemaShapeError(issues, location);
  return { operations, paths };
}

const PATH_TEMPLATE = /^\/[^\s?#]*$/;

function readPathNode(node: unknown, at: string, issues: SchemaShapeIssue[]): RawPathNode | undefined {
  if (!isPlainObject(node)) {
    issues.push({ jsonPath: at, message: `expected a path node object, got ${kindOf(node)}` });
    return undefined;
  }
  const before = issues.length;
  const path = node.path;
  if (typeof path !== 'string' || !PATH_TEMPLATE.test(path)) {
    const got = path === undefined ? 'nothing' : kindOf(path);
    issues.push({ jsonPath: `${at}.path`, message: `expected a path template starting with "/" without spaces, "?" or "#", got ${got}` });
  }
  // In path nodes absent fields are left out, never null.
  field(node, 'text', at, issues, aString, false);
  field(node, 'leaf', at, issues, aFlag, false);
  const info = field(node, 'info', at, issues, anObject, false);
  for (const key in info) {
    if (!isHttpMethod(key)) issues.push({ jsonPath: `${at}.info`, message: `unknown method ${JSON.stringify(key)} (expected one of ${HTTP_METHODS.join(', ')})` });
  }
  const children = field(node, 'children', at, issues, aList, false);
  return issues.length > before ? undefined : { path: path as string, info, children };
}

// JSON-schema fragments (parameters, returns) are checked by readSchemaNode when the operation is built.
function readMethod(value: unknown, at: string, issues: SchemaShapeIssue[]): RawMethod | undefined {
  if (!isPlainObject(value)) {
    issues.push({ jsonPath: at, message: `expected a method object, got ${kindOf(value)}` });
    return undefined;
  }
  const before = issues.length;
  const raw: RawMethod = {
    method: field(value, 'method', at, issues, aMethodName),
    name: field(value, 'name', at, issues, aString),
    description: field(value, 'description', at, issues, aString),
    parameters: readParameters(value, at, issues),
    returns: value.returns,
    permissions: readPermissions(value, at, issues),
    allowtoken: field(value, 'allowtoken', at, issues, aFlag),
    protected: field(value, 'protected', at, issues, aFlag),
    proxyto: field(value, 'proxyto', at, issues, aString),
  };
  return issues.length > before ? undefined : raw;
}

function readParameters(method: Record<string, unknown>, at: string, issues: SchemaShapeIssue[]): RawMethod['parameters'] {
  const parameters = field(method, 'parameters', at, issues, anObject);
  if (!parameters) return undefined;
  return {
    properties: field(parameters, 'properties', `${at}.parameters`, issues, anObject),
    additionalProperties: field(parameters, 'additionalProperties', `${at}.parameters`, issues, aFlagOrObject),
  };
}

function readPermissions(method: Record<string, unknown>, at: string, issues: SchemaShapeIssue[]): RawMethod['permissions'] {
  const permissions = field(method, 'permissions', at, issues, anObject);
  if (!permissions) return undefined;
  return {
    check: field(permissions, 'check', `${at}.permissions`, issues, aList),
    description: field(permissions, 'description', `${at}.permissions`, issues, aString),
    user: field(permissions, 'user', `${at}.permissions`, issues, aString),
  };
}

/** What a field must hold, and how its value is read (undefined: it holds something else). */
interface FieldCheck<T> {
  expected: string;
  read(value: unknown): T | undefined;
}

const aString: FieldCheck<string> = { expected: 'a string', read: (v) => (typeof v === 'string' ? v : undefined) };
const aList: FieldCheck<unknown[]> = { expected: 'a list', read: (v) => (Array.isArray(v) ? v : undefined) };
const anObject: FieldCheck<Record<string, unknown>> = { expected: 'an object', read: (v) => (isPlainObject(v) ? v : undefined) };
const aMethodName: FieldCheck<HttpMethod> = { expected: `one of ${HTTP_METHODS.join(', ')}`, read: (v) => (isHttpMethod(v) ? v : undefined) };
const aFlag: FieldCheck<Flag> = { expected: 'a flag (a boolean, a number or a numeric string)', read: readFlag };
const aFlagOrObject: FieldCheck<Flag | Record<string, unknown>> = {
  expected: 'a flag or a schema object',
  read: (v) => (isPlainObject(v) ? v : readFlag(v)),
};

function readFlag(value: unknown): Flag | undefined {
  if (typeof value === 'boolean' || typeof value === 'number') return value;
  return typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : undefined;
}

function isHttpMethod(value: unknown): value is HttpMethod {
  return (HTTP_METHODS as readonly unknown[]).includes(value);
}

/**
 * An optional field of a raw object: absent reads as undefined, and so does null where `nullable`
 * (methods write absent fields as null); a value of the wrong kind is reported and reads as undefined.
 */
function field<T>(obj: Record<string, unknown>, key: string, at: string, issues: SchemaShapeIssue[], check: FieldCheck<T>, nullable = true): T | undefined {
  const value = obj[key];
  if (value === undefined || (nullable && value === null)) return undefined;
  const read = check.read(value);
  if (read === undefined) issues.push({ jsonPath: `${at}.${key}`, message: `expected ${check.expected}, got ${kindOf(value)}` });
  return read;
}

function toOperation(method: HttpMethod, path: string, raw: RawMethod, jsonPath: string, issues: SchemaShapeIssue[]): Operation | undefined {
  const before = issues.length;
  const properties = readSchemaNodeMap(raw.parameters?.properties ?? {}, `${jsonPath}.parameters.properties`, issues);
  const returns = raw.returns == null ? {} : readSchemaNode(raw.returns, `${jsonPath}.returns`, issues);
  const additional = raw.parameters?.additionalProperties;
  if (issues.length > before || !returns) return undefined;
  const pathParams = templateParams(path);
  const description = (raw.description ?? '').trim();
  const op: Omit<Operation, 'risk'> = {
    key: `${method} ${path}`,
    method,
    path,
    pathParams,
    params: toParams(pathParams, properties),
    returns,
    // Absent means allowed: PVE only writes `allowtoken => 0` on the few ticket-only endpoints.
    allowtoken: raw.allowtoken === undefined ? true : Boolean(raw.allowtoken),
    protected: Boolean(raw.protected),
    description,
    summary: firstSentence(description),
    ...(raw.permissions ? { permissions: toPermissions(raw.permissions) } : {}),
    ...(isTruthy(additional) ? { additionalParams: true } : {}),
    ...(raw.proxyto !== undefined ? { proxyto: raw.proxyto } : {}),
    ...(raw.name !== undefined ? { name: raw.name } : {}),
  };
  return { ...op, risk: classifyRisk(op) };
}

function toPermissions(raw: NonNullable<RawMethod['permissions']>): Permissions {
  const out: Permissions = {};
  if (raw.check !== undefined) out.check = raw.check;
  if (raw.description !== undefined) out.description = raw.description;
  if (raw.user !== undefined) out.user = raw.user;
  return out;
}

const PARAM_TYPES = new Set<string>(['string', 'boolean', 'integer', 'number', 'array', 'object', 'null', 'any']);

function toParams(pathParams: string[], properties: Record<string, SchemaNode>): ParamSpec[] {
  const inPath = new Set(pathParams);
  // Path params lead, in template order: that is how people read and write the call.
  const params: ParamSpec[] = pathParams.map((name) => {
    const node = properties[name];
    return node ? toParam(name, node, true) : { name, type: 'string' as const, optional: false, inPath: true };
  });
  for (const name in properties) {
    if (!inPath.has(name)) expandIndexed(name, properties[name] as SchemaNode, params);
  }
  return params;
}

function toParam(name: string, node: SchemaNode, inPath: boolean): ParamSpec {
  const spec: ParamSpec = {
    name,
    type: paramType(node.type),
    // A path segment can never be left out, whatever the schema says about it.
    optional: inPath ? false : isTruthy(node.optional),
    inPath,
  };
  if (node.format !== undefined) spec.format = node.format;
  if (node.enum !== undefined) spec.enum = node.enum.map(String);
  if (node.minimum !== undefined) spec.minimum = node.minimum;
  if (node.maximum !== undefined) spec.maximum = node.maximum;
  if (node.minLength !== undefined) spec.minLength = node.minLength;
  if (node.maxLength !== undefined) spec.maxLength = node.maxLength;
  if (node.pattern !== undefined) spec.pattern = node.pattern;
  if (node.default !== undefined && node.default !== null) spec.default = node.default;
  if (node.description !== undefined) spec.description = node.description;
  if (node.typetext !== undefined) spec.typetext = node.typetext;
  if (node.items !== undefined) spec.items = node.items;
  return spec;
}

function paramType(type: SchemaNode['type']): ParamType {
  return typeof type === 'string' && PARAM_TYPES.has(type) ? (type as ParamType) : type === undefined ? 'string' : 'any';
}

const INDEXED_NAME = /^(.+)\[n\]$/;
const STATED_RANGE = /\bn is 0 to (\d+)\b/;

/**
 * Highest index of each indexed option as PVE defines it in code (`$MAX_NETS` = 32 → net0..net31,
 * `$MAX_SCSI_DISKS` = 31, `$MAX_MOUNT_POINTS` = 256…). The apidoc only writes `net[n]` and states
 * the range for some families in prose, so the table is the primary source.
 */
const FAMILY_MAX_INDEX: Readonly<Record<string, number>> = {
  net: 31,
  ipconfig: 31,
  scsi: 30,
  ide: 3,
  sata: 5,
  virtio: 15,
  unused: 255,
  hostpci: 15,
  serial: 3,
  parallel: 2,
  numa: 7,
  usb: 13,
  virtiofs: 9,
  mp: 255,
  dev: 255,
  link: 7,
  acmedomain: 4,
};
/** For a family PVE adds later and the table does not know yet: wide enough for every current family but the 256-slot ones. */
const UNKNOWN_FAMILY_MAX_INDEX = 31;

/** Append the param, or for `net[n]` net0..net31, each tagged with its family so renderers can fold them back. */
function expandIndexed(name: string, node: SchemaNode, params: ParamSpec[]): void {
  const base = name.endsWith('[n]') ? INDEXED_NAME.exec(name)?.[1] : undefined;
  const template = toParam(name, node, false);
  if (!base) {
    params.push(template);
    return;
  }
  const stated = STATED_RANGE.exec(`${node.description ?? ''} ${node.verbose_description ?? ''}`)?.[1];
  const max = FAMILY_MAX_INDEX[base] ?? (stated !== undefined ? Number(stated) : UNKNOWN_FAMILY_MAX_INDEX);
  for (let index = 0; index <= max; index++) params.push({ ...template, name: `${base}${index}`, family: { base, index } });
}

function isTruthy(value: unknown): boolean {
  return value === true || (typeof value === 'number' && value !== 0) || (typeof value === 'object' && value !== null);
}

const SUMMARY_MAX = 200;

/** First sentence of a description, on one line, without its final period. */
export function firstSentence(description: string): string {
  const paragraphEnd = description.search(/\n\s*\n/);
  const paragraph = (paragraphEnd < 0 ? description : description.slice(0, paragraphEnd)).replace(/\s+/g, ' ').trim();
  // A period ends the sentence only before whitespace + something that can start a new one, so "e.g. foo" survives.
  const m = /^(.*?[.!?])(?=\s+[A-Z(`'"]|$)/.exec(paragraph);
  const sentence = (m?.[1] ?? paragraph).replace(/\.$/, '');
  return sentence.length > SUMMARY_MAX ? `${sentence.slice(0, SUMMARY_MAX - 1).trimEnd()}…` : sentence;
}
