/**
 * What a call to an unknown path probably meant: the known paths nearest to it, for the error's
 * hint (request.ts) and get_schema's (src/describe/spec.ts).
 */
import { type ApiModel, splitPath } from '../schema/model.js';

/** Up to three known paths nearest the failed one (edit distance over segments), for the error's hint. */
export function suggest(model: ApiModel, segments: string[]): string {
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
