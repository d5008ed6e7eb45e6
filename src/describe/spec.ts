/** Reading a get_schema spec (`POST /nodes/{node}/qemu`, a template, or a concrete path), the operations it names, and nearby ones when it names none. */
import { nearestPaths } from '../policy/path-suggest.js';
import { HTTP_METHODS, splitPath, type ApiModel, type HttpMethod, type Operation } from '../schema/model.js';

/** What a get_schema spec names: `"POST /nodes/{node}/qemu"`, `"/nodes/{node}/qemu"` (all methods) or a concrete path. */
export interface ParsedSpec {
  method?: HttpMethod;
  path: string;
}

const SPEC = /^\s*(?:([A-Za-z]+)\s+)?(\/\S*)\s*$/;

export function parseSpec(spec: string): ParsedSpec | undefined {
  const m = SPEC.exec(spec);
  if (!m) return undefined;
  const path = (m[2] as string).replace(/\/+$/, '') || '/';
  if (m[1] === undefined) return { path };
  const method = m[1].toUpperCase();
  return (HTTP_METHODS as readonly string[]).includes(method) ? { method: method as HttpMethod, path } : undefined;
}

/** The operations a spec names, resolving concrete paths (`/nodes/pve1/qemu`) to their template. */
export function resolveSpec(model: ApiModel, spec: ParsedSpec): Operation[] {
  const template = templateOf(model, spec);
  if (!template) return [];
  const ops = model.byPath(template);
  return spec.method ? ops.filter((op) => op.method === spec.method) : ops;
}

function templateOf(model: ApiModel, spec: ParsedSpec): string | undefined {
  if (model.hasPath(spec.path)) return spec.path;
  const match = model.matchPath(spec.method ?? 'GET', spec.path);
  if (!match) return undefined;
  return match.operation ? match.operation.path : match.path;
}

const MAX_SUGGESTIONS = 3;

/** Nearby operations for a spec that named nothing: other methods of the same path, else similar paths. */
export function suggest(model: ApiModel, spec: ParsedSpec | undefined, raw: string): string[] {
  if (spec) {
    const template = templateOf(model, spec);
    const sameMethods = template ? model.byPath(template).map((op) => op.key) : [];
    if (sameMethods.length > 0) return sameMethods;
  }
  const wanted = splitPath(spec?.path ?? raw.replace(/^\s*[A-Za-z]+\s+/, ''));
  return nearestPaths(model, wanted, MAX_SUGGESTIONS).map((path) => {
    const ops = model.byPath(path);
    const same = spec?.method ? ops.find((op) => op.method === spec.method) : undefined;
    return same ? same.key : path;
  });
}
