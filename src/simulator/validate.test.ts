import { describe, expect, it } from 'vitest';
import { PveHttpError } from './contract.js';
import type { Operation, ParamSpec, SchemaNode } from '../schema/model.js';
import { validateParams, validateValue } from './validate.js';

function op(params: Array<Partial<ParamSpec> & { name: string }>, extra: Partial<Operation> = {}): Operation {
  return {
    key: 'POST /things/{id}',
    method: 'POST',
    path: '/things/{id}',
    pathParams: ['id'],
    params: params.map((p) => ({ type: 'string', optional: true, inPath: false, ...p })),
    returns: { type: 'null' },
    allowtoken: true,
    protected: false,
    description: 'A test operation.',
    summary: 'A test operation',
    risk: 'write',
    ...extra,
  };
}

function errorsOf(operation: Operation, raw: Record<string, unknown>): Record<string, string> {
  try {
    validateParams(operation, raw);
  } catch (error) {
    expect(error).toBeInstanceOf(PveHttpError);
    const e = error as PveHttpError;
    expect(e.status).toBe(400);
    expect(e.message).toBe('Parameter verification failed.');
    return e.errors ?? {};
  }
  throw new Error('expected a validation error');
}

describe('validateParams', () => {
  const thing = op([
    { name: 'id', type: 'integer', optional: false, inPath: true, minimum: 1, maximum: 10 },
    { name: 'on', type: 'boolean' },
    { name: 'ratio', type: 'number' },
    { name: 'color', enum: ['red', 'green'] },
    { name: 'label', maxLength: 5, minLength: 2 },
    { name: 'code', pattern: '(?^:[A-Z]{3})' },
    { name: 'ids', format: 'pve-vmid-list' },
    { name: 'items', type: 'array', items: { type: 'string' } },
    { name: 'nic', format: { model: { type: 'string', default_key: 1, enum: ['virtio', 'e1000'] }, firewall: { type: 'boolean', optional: 1 } } },
  ]);

  it('coerces valid values: 0/1 booleans, numbers, joined lists, wrapped arrays', () => {
    expect(validateParams(thing, { id: '3', on: '1', ratio: '.5', ids: ['100', '101'], items: 'one', nic: 'virtio,firewall=yes' })).toEqual({
      id: 3,
      on: 1,
      ratio: 0.5,
      ids: '100,101',
      items: ['one'],
      nic: 'virtio,firewall=yes',
    });
    expect(validateParams(thing, { id: 3, on: false })).toEqual({ id: 3, on: 0 });
  });

  it('reports PVE texts per parameter, first problem only', () => {
    expect(errorsOf(thing, { id: 'x', on: 'true', ratio: '1e', color: 'blue', label: 'toolong', code: 'abc' })).toEqual({
      id: "type check ('integer') failed - got 'x'",
      on: "type check ('boolean') failed - got 'true'",
      ratio: "type check ('number') failed - got '1e'",
      color: "value 'blue' does not have a value in the enumeration 'red, green'",
      label: 'value may only be 5 characters long',
      code: 'value does not match the regex pattern',
    });
    expect(errorsOf(thing, { id: 11, label: 'x' })).toEqual({ id: 'value must have a maximum value of 10', label: 'value must be at least 2 characters long' });
    expect(errorsOf(thing, { id: 1, ids: '100,42' })).toEqual({ ids: 'invalid format - value does not look like a valid VM ID\n' });
  });

  it('requires mandatory parameters, refuses undeclared ones, treats valueless keys as absent', () => {
    expect(errorsOf(thing, { bogus: '1' })).toEqual({
      id: 'property is missing and it is not optional',
      bogus: 'property is not defined in schema and the schema does not allow additional properties',
    });
    expect(validateParams(thing, { id: 2, color: null })).toEqual({ id: 2 });
    expect(validateParams(op([], { additionalParams: true }), { extra: 'kept' })).toEqual({ extra: 'kept' });
  });

  it('rejects JSON types Perl would see as references', () => {
    expect(errorsOf(thing, { id: 1, label: true, color: ['red', 'green'] })).toEqual({
      label: "type check ('string') failed - got JSON::PP::Boolean",
      color: "type check ('string') failed - got ARRAY",
    });
  });

  it('checks inline property-string formats', () => {
    expect(errorsOf(thing, { id: 1, nic: 'rtl8139' })).toEqual({
      nic: "invalid format - format error\nnic.model: value 'rtl8139' does not have a value in the enumeration 'virtio, e1000'\n",
    });
    expect(errorsOf(thing, { id: 1, nic: 'virtio,speed=5' })).toEqual({ nic: 'invalid format - invalid key in comma-separated list property: speed\n' });
  });
});

describe('validateValue', () => {
  const item: SchemaNode = {
    type: 'object',
    additionalProperties: 0,
    properties: { vmid: { type: 'integer' }, name: { type: 'string', optional: 1 }, running: { type: 'boolean', optional: 1 } },
  };

  it('accepts Perl-typed data: numeric strings for integers, 0/1 and JSON booleans', () => {
    expect(
      validateValue({ type: 'array', items: item }, [
        { vmid: '100', running: 1 },
        { vmid: 101, running: true, name: 'x' },
      ]),
    ).toEqual([]);
    expect(validateValue({ type: 'null' }, null)).toEqual([]);
  });

  it('lists problems with their paths', () => {
    expect(validateValue({ type: 'array', items: item }, [{ name: 5 }, { vmid: 1, extra: 1 }])).toEqual([
      'data[0].vmid: property is missing and it is not optional',
      'data[1].extra: property is not defined in schema and the schema does not allow additional properties',
    ]);
    expect(validateValue({ type: 'object', properties: {} }, 'text')).toEqual(["data: type check ('object') failed"]);
  });
});
