/**
 * Parameter values against the schema: the product's own check, made before anything is planned
 * or sent (live runs, dry-runs and the preflight) — types, ranges, enums, lengths, the formats PVE
 * identifiers use, and the syntax of property strings (`memory: '8G'` is not `[current=]<integer>`
 * in MiB). It refuses only what PVE would refuse for certain; formats it does not know and Perl
 * patterns are left to PVE.
 */
import type { Operation, SchemaNode } from '../schema/model.js';
import { InvalidCallError, type JsonValue, type Params } from './call-shape.js';
import { listOf } from '../pve/list-value.js';

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
  // A list given to a parameter arrives here joined, as it is sent (request.ts); an array left is
  // an item of a `type: array` parameter, which PVE takes only as text.
  if (Array.isArray(value)) return `got a list inside the list, expected ${expectedOf(spec)}`;
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return undefined;
  const text = String(value);
  if (spec.maxLength !== undefined && text.length > spec.maxLength) return `is ${text.length} characters long, at most ${spec.maxLength} allowed`;
  const format = typeof spec.format === 'string' ? spec.format : undefined;
  if (format?.endsWith('-list')) {
    for (const item of listOf(text)) {
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

/** A path value in a named format (`{snapname}` is a `pve-configid`) must read as one, and the hint says what it stands for. */
const CANONICAL_VMID = /^[1-9][0-9]{0,8}$/;

/**
 * The values of a matched call against its operation, path values first: each in its named
 * format (a VMID as PVE writes it), given once (a param that repeats one must agree with it, and
 * is dropped), then the params. Returns the path values (null-prototype); `params` loses the
 * path's ones.
 */
export function checkValues(op: Operation, matched: Readonly<Record<string, string>>, params: Params): Record<string, string> {
  const pathValues = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(matched)) {
    if (name === 'vmid' && !CANONICAL_VMID.test(value)) {
      throw new InvalidCallError(`path value vmid '${value}' is not a VMID`, 'Use the number as PVE shows it, e.g. 101');
    }
    checkPathFormat(op, name, value);
    pathValues[name] = value;
    if (Object.hasOwn(params, name)) {
      if (String(params[name]) !== value) {
        throw new InvalidCallError(`params.${name} (${JSON.stringify(params[name])}) conflicts with '${value}' in the path`, 'Give each path value once');
      }
      delete params[name];
    }
  }
  checkParams(op, params);
  return pathValues;
}

function checkPathFormat(op: Operation, name: string, value: string): void {
  const spec = op.params.find((p) => p.inPath && p.name === name);
  const format = typeof spec?.format === 'string' ? spec.format : undefined;
  const named = format !== undefined ? NAMED_FORMATS[format] : undefined;
  if (format === undefined || !named || named.test(value)) return;
  throw new InvalidCallError(`path value ${name} '${value}' is not ${expectedFor(format, name)}`, `Use the ${name} as PVE lists it`);
}
