/**
 * Operations that change state under one permission check and answer with nothing (`null`), as
 * most of PVE's configuration edits do: a factory so each family states its check once.
 */
import type { HttpMethod, SchemaNode } from '../../../schema/model.js';
import type { SimEndpoint, SimHandler } from '../../contract.js';
import { NULL } from './schema.js';

export type ChangeOperation = (method: HttpMethod, path: string, description: string, parameters: Record<string, SchemaNode>, handler: SimHandler) => SimEndpoint;

export function changeOperations(permissions: SimEndpoint['permissions']): ChangeOperation {
  return (method, path, description, parameters, handler) => ({
    method,
    path,
    description,
    parameters,
    returns: NULL,
    permissions,
    protected: true,
    handler,
  });
}
