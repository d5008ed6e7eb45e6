/**
 * Parameter and value validation with PVE's rules and texts (pve-common JSONSchema `check_prop`):
 * Perl scalar semantics (a number and its string are the same value; JSON booleans are objects),
 * `"1"`/`"0"` booleans, integer/number regexes, enums, bounds, lengths, anchored patterns, named
 * formats (incl. `-list`), inline property-string formats, required and undeclared properties.
 * The first problem found for a property wins, like PVE's `add_error`.
 */
import { PveHttpError } from './contract.js';
import type { Operation, ParamSpec, SchemaNode } from '../schema/model.js';
import { checkNamedFormat, isListFormat } from './formats.js';
import { compilePerlPattern } from './perl-regex.js';

type Errors = Map<string, string>;

const INTEGER_RE = /^[+-]?\d+$/;
const NUMBER_RE = /^[+-]?(?:\d+\.\d+|\d+\.|\.\d+|\d+)(?:[eE][+-]?\d+)?$/;
const TRUE_WORDS = /^(?:1|on|yes|true)$/i;
const FALSE_WORDS = /^(?:0|off|no|false)$/i;

function addError(errors: Errors, path: string, message: string): void {
  if (!errors.has(path)) errors.set(path, message);
}

/** The Perl reference type a decoded JSON value would have; `undefined` for plain scalars. */
function perlRef(value: unknown): string | undefined {
  if (Array.isArray(value)) return 'ARRAY';
  if (typeof value === 'boolean') return 'JSON::PP::Boolean';
  if (value !== null && typeof value === 'object') return 'HASH';
  return undefined;
}

function scalarText(value: unknown): string {
  return typeof value === 'string' ? value : String(value);
}

function isOptional(schema: SchemaNode): boolean {
  return schema.optional === 1 || schema.optional === true;
}

function checkSingleType(path: string, type: string, value: unknown, errors: Errors): boolean {
  if (type === 'any') return true;
  const ref = perlRef(value);
  const fail = (got: string) => {
    addError(errors, path, `type check ('${type}') failed${got}`);
    return false;
  };
  if (type === 'array') return ref === 'ARRAY' ? true : fail('');
  if (type === 'object') return ref === 'HASH' ? true : fail('');
  if (ref) {
    if (type === 'boolean' && ref === 'JSON::PP::Boolean') return true;
    return fail(` - got ${ref}`);
  }
  const text = scalarText(value);
  switch (type) {
    case 'string':
      return true;
    case 'boolean':
      return text === '1' || text === '0' ? true : fail(` - got '${text}'`);
    case 'integer':
      return INTEGER_RE.test(text) ? true : fail(` - got '${text}'`);
    case 'number':
      return NUMBER_RE.test(text) ? true : fail(` - got '${text}'`);
    case 'null':
      return fail(` - got '${text}'`);
    default:
      return true;
  }
}

function checkType(path: string, type: SchemaNode['type'], value: unknown, errors: Errors): boolean {
  if (type === undefined) return true;
  if (Array.isArray(type)) {
    const scratch: Errors = new Map();
    if (type.some((t) => checkSingleType(path, t, value, scratch))) return true;
    addError(errors, path, `type check ('${type.join('|')}') failed`);
    return false;
  }
  return checkSingleType(path, type, value, errors);
}

function checkProp(value: unknown, schema: SchemaNode, path: string, errors: Errors): void {
  if (value === undefined || value === null) {
    if (schema.type === 'null') return;
    // Aliases and grouped keys stand in for other properties and are never required themselves.
    if (!isOptional(schema) && schema.alias === undefined && schema.group === undefined) {
      addError(errors, path, 'property is missing and it is not optional');
    }
    return;
  }
  if (!checkType(path, schema.type, value, errors)) return;
  const ref = perlRef(value);
  if (ref === 'ARRAY') {
    if (schema.items) {
      (value as unknown[]).forEach((el, i) => checkProp(el, schema.items as SchemaNode, `${path}[${i}]`, errors));
    }
    return;
  }
  if (ref === 'HASH') {
    if (schema.properties) {
      checkObject(path, schema.properties, value as Record<string, unknown>, schema.additionalProperties, errors);
    }
    return;
  }
  if (ref) return;
  checkScalar(scalarText(value), schema, path, errors);
}

function checkScalar(text: string, schema: SchemaNode, path: string, errors: Errors): void {
  const format = schema.format;
  if (format !== undefined && format !== 'regex') {
    const problem = typeof format === 'string' ? checkNamedFormat(format, text) : checkPropertyString(format, text, path);
    if (problem) {
      addError(errors, path, `invalid format - ${problem}`);
      return;
    }
  }
  if (typeof schema.pattern === 'string') {
    const re = compilePerlPattern(schema.pattern);
    if (re && !re.test(text)) {
      addError(errors, path, 'value does not match the regex pattern');
      return;
    }
  }
  if (typeof schema.maxLength === 'number' && [...text].length > schema.maxLength) {
    addError(errors, path, `value may only be ${schema.maxLength} characters long`);
    return;
  }
  if (typeof schema.minLength === 'number' && [...text].length < schema.minLength) {
    addError(errors, path, `value must be at least ${schema.minLength} characters long`);
    return;
  }
  if (NUMBER_RE.test(text)) {
    const n = Number(text);
    if (typeof schema.maximum === 'number' && n > schema.maximum) {
      addError(errors, path, `value must have a maximum value of ${schema.maximum}`);
      return;
    }
    if (typeof schema.minimum === 'number' && n < schema.minimum) {
      addError(errors, path, `value must have a minimum value of ${schema.minimum}`);
      return;
    }
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => String(e) === text)) {
    addError(errors, path, `value '${text}' does not have a value in the enumeration '${schema.enum.join(', ')}'`);
  }
}

function checkObject(path: string, properties: Record<string, SchemaNode>, value: Record<string, unknown>, additional: SchemaNode['additionalProperties'], errors: Errors): void {
  const sub = (k: string) => (path ? `${path}.${k}` : k);
  for (const [k, schema] of Object.entries(properties)) checkProp(value[k], schema, sub(k), errors);
  for (const k of Object.keys(value)) {
    const schema = properties[k];
    if (schema) {
      if (typeof schema.requires === 'string' && (value[schema.requires] === undefined || value[schema.requires] === null)) {
        addError(errors, sub(schema.requires), `missing property - '${sub(k)}' requires this property`);
      }
      continue;
    }
    if (additional !== undefined && !additional) {
      addError(errors, sub(k), 'property is not defined in schema and the schema does not allow additional properties');
      continue;
    }
    if (additional !== null && typeof additional === 'object') checkProp(value[k], additional, sub(k), errors);
  }
}

/**
 * Parse and check a property string (`virtio,bridge=vmbr0,firewall=1`) against an inline format.
 * Returns the failure text PVE puts after `invalid format - `, or `undefined`.
 */
function checkPropertyString(format: Record<string, SchemaNode>, data: string, path: string): string | undefined {
  const parsed: Record<string, unknown> = {};
  let defaultKey: string | undefined;
  for (const part of data.split(',')) {
    if (/^\s*$/.test(part)) continue;
    const kv = /^([^=]+)=(.+)$/.exec(part);
    if (kv) {
      let key = kv[1] as string;
      let value: unknown = kv[2] as string;
      if (parsed[key] !== undefined) return `duplicate key in comma-separated list property: ${key}\n`;
      let schema = format[key];
      if (schema && typeof schema.alias === 'string') {
        // `virtio=MAC`: the key is an alias of macaddr and, with keyAlias, also the value of model.
        if (typeof schema.keyAlias === 'string') parsed[schema.keyAlias] = key;
        key = schema.alias;
        schema = format[key];
      }
      if (!schema) return `invalid key in comma-separated list property: ${key}\n`;
      if (schema.type === 'boolean' && typeof value === 'string') {
        if (TRUE_WORDS.test(value)) value = '1';
        else if (FALSE_WORDS.test(value)) value = '0';
      }
      parsed[key] = value;
    } else if (!part.includes('=')) {
      if (defaultKey) return `duplicate key in comma-separated list property: ${defaultKey}\n`;
      defaultKey = Object.keys(format).find((k) => format[k]?.default_key);
      if (!defaultKey) return 'value without key, but schema does not define a default key\n';
      if (parsed[defaultKey] !== undefined) return `duplicate key in comma-separated list property: ${defaultKey}\n`;
      parsed[defaultKey] = part;
    } else {
      return 'missing key in comma-separated list property\n';
    }
  }
  const errors: Errors = new Map();
  checkObject(path, format, parsed, 0, errors);
  if (errors.size === 0) return undefined;
  return `format error\n${[...errors].map(([k, v]) => `${k}: ${v}\n`).join('')}`;
}

/** The schema node a parameter spec stands for. */
function paramSchema(p: ParamSpec): SchemaNode {
  const node: SchemaNode = { type: p.type, optional: p.optional ? 1 : 0 };
  if (p.format !== undefined) node.format = p.format;
  if (p.enum) node.enum = p.enum;
  if (p.minimum !== undefined) node.minimum = p.minimum;
  if (p.maximum !== undefined) node.maximum = p.maximum;
  if (p.minLength !== undefined) node.minLength = p.minLength;
  if (p.maxLength !== undefined) node.maxLength = p.maxLength;
  if (p.pattern !== undefined) node.pattern = p.pattern;
  if (p.items !== undefined) node.items = p.items;
  return node;
}

/**
 * PVE's legacy normalization before validation: repeated keys of `-list` string params are
 * joined with commas; a single value for an `array` param is wrapped.
 */
function normalize(spec: ParamSpec | undefined, value: unknown): unknown {
  if (!spec || value === null || value === undefined) return value;
  if (spec.type === 'array' && !Array.isArray(value)) return [value];
  if (spec.type === 'string' && Array.isArray(value) && isListFormat(spec.format)) return value.map(scalarText).join(',');
  return value;
}

function coerce(spec: ParamSpec, value: unknown): unknown {
  switch (spec.type) {
    case 'boolean':
      return value === true || scalarText(value) === '1' ? 1 : 0;
    case 'integer':
    case 'number':
      return Number(scalarText(value));
    case 'string':
      return scalarText(value);
    default:
      return value;
  }
}

/**
 * Validate raw request parameters (path values merged with query/body, strings or decoded JSON)
 * against an operation. Returns them coerced (booleans 0/1, numbers as numbers, `-list` arrays
 * joined, parameters given without a value dropped) or throws PVE's 400.
 */
export function validateParams(op: Operation, raw: Record<string, unknown>): Record<string, unknown> {
  const specs = new Map(op.params.map((p) => [p.name, p]));
  const normalized: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) normalized[k] = normalize(specs.get(k), v);
  const properties: Record<string, SchemaNode> = {};
  for (const p of op.params) properties[p.name] = paramSchema(p);
  const errors: Errors = new Map();
  checkObject('', properties, normalized, op.additionalParams ? 1 : 0, errors);
  if (errors.size > 0) {
    throw new PveHttpError(400, 'Parameter verification failed.', Object.fromEntries(errors));
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(normalized)) {
    if (v === null || v === undefined) continue;
    const spec = specs.get(k);
    if (spec) out[k] = coerce(spec, v);
    else if (op.additionalParams) out[k] = v;
  }
  return out;
}

/**
 * Check a value (typically a response's `data`) against a schema node with the same rules.
 * Returns the problems as `path: text` lines (root path `data`); empty when the value conforms.
 */
export function validateValue(schema: SchemaNode, value: unknown): string[] {
  if ((value === null || value === undefined) && schema.type === undefined) return [];
  const errors: Errors = new Map();
  checkProp(value, schema, 'data', errors);
  return [...errors].map(([path, msg]) => `${path}: ${msg.trimEnd()}`);
}

/**
 * Checks a value against an inline property-string format, for handlers that validate a named
 * format the schema leaves unchecked; returns PVE's parameter error text or `undefined`.
 */
export function propertyStringProblem(format: Record<string, SchemaNode>, value: string): string | undefined {
  const problem = checkPropertyString(format, value, '');
  return problem === undefined ? undefined : `invalid format - ${problem}`;
}
