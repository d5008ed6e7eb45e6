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
  return model.paths
    .filter((path) => model.byPath(path).length > 0)
    .map((path) => ({ path, cost: segmentDistance(wanted, splitPath(path)) }))
    .sort((a, b) => a.cost - b.cost || a.path.length - b.path.length)
    .slice(0, MAX_SUGGESTIONS)
    .map(({ path }) => {
      const ops = model.byPath(path);
      const same = spec?.method ? ops.find((op) => op.method === spec.method) : undefined;
      return same ? same.key : path;
    });
}

/** Edit distance over path segments; a `{param}` segment matches anything, near-miss names cost less than 1. */
function segmentDistance(a: string[], b: string[]): number {
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
