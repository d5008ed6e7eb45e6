import { z } from 'zod';
import { SchemaShapeError, type SchemaShapeIssue } from './errors.js';
import { propertyAccess, readSchemaNode } from './schema-node.js';
import {
  HTTP_METHODS,
  templateParams,
  type HttpMethod,
  type Operation,
  type ParamSpec,
  type ParamType,
  type Permissions,
  type SchemaNode,
} from './model.js';
import { classifyRisk } from './risk.js';

/**
 * Raw apidoc tree → plain `Operation`s. The tree is untrusted input (a user-named file or URL), so
 * every path node and method is checked with zod and problems are reported by JSON path; inside the
 * product only the normalized, typed data circulates.
 */

// Real schemas write some flags as strings ("0", "1") and some optional fields as `null` (null = absent).
const flag = z.union([z.boolean(), z.number(), z.string().regex(/^-?\d+$/, 'a flag').transform(Number)]);
const maybe = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? undefined);

// JSON-schema fragments (parameters, returns) are checked by readSchemaNode, not here; see there for why.
const rawMethod = z.looseObject({
  method: maybe(z.enum(HTTP_METHODS)),
  name: maybe(z.string()),
  description: maybe(z.string()),
  parameters: maybe(
    z.looseObject({
      properties: maybe(z.record(z.string(), z.unknown())),
      additionalProperties: maybe(z.union([flag, z.record(z.string(), z.unknown())])),
    }),
  ),
  returns: z.unknown().optional(),
  permissions: maybe(
    z.looseObject({
      check: maybe(z.array(z.unknown())),
      description: maybe(z.string()),
      user: maybe(z.string()),
    }),
  ),
  allowtoken: maybe(flag),
  protected: maybe(flag),
  proxyto: maybe(z.string()),
});
type RawMethod = z.infer<typeof rawMethod>;

const rawPathNode = z.looseObject({
  path: z.string().regex(/^\/[^\s?#]*$/, 'a path template starting with "/" without spaces, "?" or "#"'),
  text: z.string().optional(),
  leaf: flag.optional(),
  info: z.partialRecord(z.enum(HTTP_METHODS), z.unknown()).optional(),
  children: z.array(z.unknown()).optional(),
});

/** Stop collecting after this many problems: the report is for a human, not a full lint. */
const MAX_ISSUES = 20;

export interface NormalizedSchema {
  operations: Operation[];
  /** Every path node in tree order, including ones without methods. */
  paths: string[];
}

export function normalizeSchema(tree: unknown, location?: string): NormalizedSchema {
  const issues: SchemaShapeIssue[] = [];
  const report = (jsonPath: string, error: z.ZodError) => {
    for (const issue of error.issues) issues.push({ jsonPath: jsonPath + formatPath(issue.path), message: issue.message });
  };
  if (!Array.isArray(tree)) throw new SchemaShapeError([{ jsonPath: '$', message: 'expected an array of path nodes' }], location);

  const operations: Operation[] = [];
  const paths: string[] = [];
  const seen = new Set<string>();
  // Explicit stack instead of recursion: depth is bounded by the extractor, but this keeps tree order cheaply.
  const stack: Array<{ node: unknown; jsonPath: string }> = tree.map((node, i) => ({ node, jsonPath: `$[${i}]` })).reverse();
  while (stack.length > 0 && issues.length < MAX_ISSUES) {
    const { node, jsonPath } = stack.pop() as { node: unknown; jsonPath: string };
    const parsed = rawPathNode.safeParse(node);
    if (!parsed.success) {
      report(jsonPath, parsed.error);
      continue;
    }
    const { path, info, children } = parsed.data;
    if (seen.has(path)) issues.push({ jsonPath: `${jsonPath}.path`, message: `duplicate path node ${path}` });
    seen.add(path);
    paths.push(path);
    for (const method of HTTP_METHODS) {
      if (info?.[method] === undefined) continue;
      const methodPath = `${jsonPath}.info.${method}`;
      const raw = rawMethod.safeParse(info[method]);
      if (!raw.success) {
        report(methodPath, raw.error);
      } else if (raw.data.method !== undefined && raw.data.method !== method) {
        issues.push({ jsonPath: `${methodPath}.method`, message: `says ${raw.data.method} but is listed under ${method}` });
      } else {
        const op = toOperation(method, path, raw.data, methodPath, issues);
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

function toOperation(
  method: HttpMethod,
  path: string,
  raw: RawMethod,
  jsonPath: string,
  issues: SchemaShapeIssue[],
): Operation | undefined {
  const before = issues.length;
  const properties: Record<string, SchemaNode> = {};
  for (const [name, value] of Object.entries(raw.parameters?.properties ?? {})) {
    const node = readSchemaNode(value, `${jsonPath}.parameters.properties${propertyAccess(name)}`, issues);
    if (node) properties[name] = node;
  }
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
  const fromPath = pathParams.map((name) => {
    const node = properties[name];
    return node ? toParam(name, node, true) : { name, type: 'string' as const, optional: false, inPath: true };
  });
  const rest = Object.entries(properties)
    .filter(([name]) => !inPath.has(name))
    .flatMap(([name, node]) => expandIndexed(name, node));
  return [...fromPath, ...rest];
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

/** `net[n]` → net0..net31, each tagged with its family so renderers can fold them back. */
function expandIndexed(name: string, node: SchemaNode): ParamSpec[] {
  const base = INDEXED_NAME.exec(name)?.[1];
  if (!base) return [toParam(name, node, false)];
  const stated = STATED_RANGE.exec(`${node.description ?? ''} ${node.verbose_description ?? ''}`)?.[1];
  const max = FAMILY_MAX_INDEX[base] ?? (stated !== undefined ? Number(stated) : UNKNOWN_FAMILY_MAX_INDEX);
  const template = toParam(name, node, false);
  return Array.from({ length: max + 1 }, (_, index) => ({ ...template, name: `${base}${index}`, family: { base, index } }));
}

function isTruthy(value: unknown): boolean {
  return value === true || (typeof value === 'number' && value !== 0) || (typeof value === 'object' && value !== null);
}

const SUMMARY_MAX = 200;

/** First sentence of a description, on one line, without its final period. */
export function firstSentence(description: string): string {
  const paragraph = (description.split(/\n\s*\n/)[0] ?? '').replace(/\s+/g, ' ').trim();
  // A period ends the sentence only before whitespace + something that can start a new one, so "e.g. foo" survives.
  const m = /^(.*?[.!?])(?=\s+[A-Z(`'"]|$)/.exec(paragraph);
  const sentence = (m?.[1] ?? paragraph).replace(/\.$/, '');
  return sentence.length > SUMMARY_MAX ? `${sentence.slice(0, SUMMARY_MAX - 1).trimEnd()}…` : sentence;
}

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path.map(propertyAccess).join('');
}
