/**
 * What the type-check needs of an API schema to judge literal paths: every path template and the
 * methods each one has. A full `ApiModel` carries descriptions, params and return schemas (several
 * MB for PVE); this catalog is a few tens of KB of plain JSON, so it can be shipped to the checker
 * process and turned back into a model there.
 */
import { z } from 'zod';
import { ApiModel, HTTP_METHODS, templateParams, type HttpMethod, type Operation } from '../schema/model.js';

export const pathCatalogSchema = z
  .object({
    /** The model's hash: the catalog stands for that schema. */
    hash: z.string().min(1).max(200),
    /** Every path node, including the ones that only group sub-paths. */
    paths: z.array(z.string().startsWith('/').max(1_000)).max(20_000),
    operations: z.array(z.object({ method: z.enum(HTTP_METHODS), path: z.string().startsWith('/').max(1_000) }).strict()).max(20_000),
  })
  .strict();
export type PathCatalog = z.infer<typeof pathCatalogSchema>;

export function pathCatalogOf(model: ApiModel): PathCatalog {
  return {
    hash: model.hash,
    paths: [...model.paths],
    operations: model.operations.map((op) => ({ method: op.method, path: op.path })),
  };
}

/**
 * An `ApiModel` that knows paths and methods only. Good for `matchPath`, `byPath` and `paths` —
 * all the type-check asks — and for nothing else: its operations have no params, docs or risk of
 * their own (they read as `read`), so it must never reach search, describe or the bridge.
 */
export function pathCatalogModel(catalog: PathCatalog): ApiModel {
  const operations = catalog.operations.map(({ method, path }) => skeleton(method, path));
  return new ApiModel(operations, catalog.hash, { kind: 'string', location: 'path catalog' }, catalog.paths);
}

function skeleton(method: HttpMethod, path: string): Operation {
  return {
    key: `${method} ${path}`,
    method,
    path,
    pathParams: templateParams(path),
    params: [],
    returns: {},
    allowtoken: true,
    protected: false,
    description: '',
    summary: '',
    risk: 'read',
  };
}
