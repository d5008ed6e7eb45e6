/**
 * What the index knows about one operation: the text fields minisearch scores, and the query-independent
 * prior that ranks canonical operations above deep or navigational ones.
 */
import type { Operation, SchemaNode } from '../schema/model.js';
import { splitPath } from '../schema/model.js';
import { firstSentence } from '../schema/normalize.js';
import { analyze, isNoise } from './analyzer.js';
import { commonNames } from './common-names/index.js';

export interface IndexedOperation {
  id: number;
  /** The last literal path segment: the thing the operation acts on (`snapshot`, `start`, `users`). */
  tail: string;
  /** All path segments, parameters by name (`{volume}` → volume). */
  path: string;
  /** The API handler name (`vm_start`). */
  name: string;
  summary: string;
  description: string;
  /** Names of the non-path parameters, indexed families (`net0`…`net31`) folded to one name. */
  params: string;
  /** First sentence of each non-path parameter's description. */
  paramDocs: string;
  /** Property names of the returned object (or of the returned list's items). */
  returns: string;
  /**
   * Enumerated values of the non-path parameters: `type: vm | storage | node | sdn` says what a
   * listing can hold, words its summary rarely repeats.
   */
  values: string;
  /**
   * One-word enumerated values of the path parameters: the objects the path can name
   * (`{service}`: pveproxy, corosync…; `{flag}`: noout…). "restart pveproxy" is about that path as
   * much as "restart the service" is. Hyphenated values (`pve-firewall`) are left out: their words
   * (firewall, cluster, ha) name whole areas of the API.
   */
  items: string;
  /** What operators call the operation, in our words (common-names/): the vocabulary the schema's own text lacks. */
  commonNames: string;
}

/** Fields whose match means the operation is about the term, not merely mentions it. */
export const STRONG_FIELDS: ReadonlySet<string> = new Set(['tail', 'path', 'name', 'summary', 'items']);

/** Field weights: the path and summary say what an operation is; descriptions and params only hint. */
export const FIELD_BOOST: Readonly<Record<Exclude<keyof IndexedOperation, 'id'>, number>> = {
  tail: 3,
  path: 2,
  name: 1.5,
  summary: 2,
  description: 0.4,
  params: 0.5,
  paramDocs: 0.1,
  returns: 0.4,
  values: 0.3,
  items: 1,
  commonNames: 1,
};

export const INDEXED_FIELDS = Object.keys(FIELD_BOOST) as Array<keyof typeof FIELD_BOOST>;

const PARAM_DOC_CHARS = 120;

/**
 * Reads whose schema declares no returned properties (`GET /cluster/options` returns a bare
 * object) show what the update at the same path sets: per GET, the non-path parameter names (and
 * enumerated values) of the PUT beside it, to be indexed as what the read returns.
 */
export function shownByUpdates(operations: readonly Operation[]): Array<Operation | undefined> {
  const updates = new Map<string, Operation>();
  for (const op of operations) if (op.method === 'PUT') updates.set(op.path, op);
  return operations.map((op) => (op.method === 'GET' && returnedPropertyNames(op.returns).length === 0 ? updates.get(op.path) : undefined));
}

export function indexedOperation(op: Operation, id: number, update?: Operation): IndexedOperation {
  const segments = splitPath(op.path);
  const literals = segments.filter((s) => !s.startsWith('{'));
  const ownParams = op.params.filter((p) => !p.inPath);
  const paramNames = new Set(ownParams.map((p) => p.family?.base ?? p.name));
  const paramDocs = new Set<string>();
  for (const p of ownParams) {
    if (p.family && p.family.index > 0) continue;
    const doc = p.description ? firstSentence(p.description) : '';
    if (doc) paramDocs.add(doc.slice(0, PARAM_DOC_CHARS));
  }
  return {
    id,
    tail: particleTerm(literals.at(-1) ?? ''),
    path: segments.join(' '),
    name: op.name ?? '',
    summary: op.summary,
    description: op.description,
    params: [...paramNames].join(' '),
    paramDocs: [...paramDocs].join(' \n '),
    returns: (update ? [...paramNamesOf(update), ...new Set(update.params.flatMap(formatKeys))] : returnedPropertyNames(op.returns)).join(' '),
    items: [...new Set(op.params.flatMap((p) => (p.inPath ? (p.enum ?? []) : [])))].filter((v) => /^[a-z0-9]+$/i.test(v)).join(' '),
    values: [
      ...new Set([...ownParams, ...(update?.params.filter((p) => !p.inPath) ?? [])].flatMap((p) => (p.family && p.family.index > 0 ? [] : (p.enum ?? []))).concat(returnedKinds(op.returns))),
    ].join(' '),
    commonNames: commonNames(op.key),
  };
}

/**
 * A last path segment that is a stopword (`…/osd/{osdid}/in`) would be dropped from the index, and
 * with it the only word that sets the operation apart from its twin (`…/out`): it is indexed as a
 * particle term, which a request ending in that word searches ("bring osd 3 back in").
 */
export function particleTerm(segment: string): string {
  return isNoise(segment) && /^[a-z]+$/.test(segment) ? `${segment}particle` : segment;
}

function paramNamesOf(op: Operation): Set<string> {
  return new Set(op.params.filter((p) => !p.inPath).map((p) => p.family?.base ?? p.name));
}

/** The analyzed terms of each literal path segment (`download-url` → [download, url]). */
export function literalSegmentTerms(op: Operation): string[][] {
  return splitPath(op.path)
    .filter((s) => !s.startsWith('{'))
    .map((s) => analyze(s))
    .filter((terms) => terms.length > 0);
}

/** The analyzed terms of each literal segment that a path parameter follows (`/storage/{storage}` → storage). */
export function itemSegmentTerms(op: Operation): string[] {
  const segments = splitPath(op.path);
  return segments.flatMap((s, i) => (!s.startsWith('{') && segments[i + 1]?.startsWith('{') ? analyze(s) : []));
}

/**
 * The kinds of item a read lists, by their `type` (`qemu`, `lxc`, `storage` in the cluster's
 * resource list): "how many containers do we run" asks a list that holds containers.
 */
function returnedKinds(returns: SchemaNode): string[] {
  const type = (returns.items ?? returns).properties?.['type'];
  return (type?.enum ?? []).filter((v): v is string => typeof v === 'string' && /^[a-z]+$/.test(v));
}

/**
 * The names of what a read returns, and the keys of its property strings: a guest's `net0` is
 * `virtio=…,bridge=vmbr0,tag=20`, so "which bridge is vm 101 connected to" and "which vlan tag does
 * vm 110 use" ask for a part of what its configuration read returns.
 */
function returnedPropertyNames(returns: SchemaNode): string[] {
  const node = returns.items ?? returns;
  if (!node.properties) return [];
  return [...Object.keys(node.properties), ...new Set(Object.values(node.properties).flatMap(formatKeys))];
}

/** The keys of an inline property-string format (`bridge`, `tag`, `firewall` of `net[n]`), once each: a key many disk kinds share (`discard`) is one part, not many. */
function formatKeys(node: { format?: string | Record<string, SchemaNode> }): string[] {
  return typeof node.format === 'object' ? Object.keys(node.format).filter((k) => /^[a-z][a-z_]*$/.test(k)) : [];
}

/**
 * A directory index only lists child paths: useful for browsing, almost never what an operator
 * means, so it ranks below the operations it points to. It shows by its shape: a GET listing items
 * of at most one property, at a path with literal sub-paths (`/nodes/{node}/disks` → `…/disks/list`).
 * A list of objects (`/cluster/ha/resources`, items `{sid}`) has parameter sub-paths only, and the
 * `links` the official schemas declare mark both kinds.
 */
export function directoryIndexes(operations: readonly Operation[]): boolean[] {
  const parents = new Set<string>();
  for (const op of operations) {
    const segments = splitPath(op.path);
    const last = segments.at(-1);
    if (last !== undefined && !last.startsWith('{')) parents.add(`/${segments.slice(0, -1).join('/')}`);
  }
  return operations.map((op) => {
    if (op.method !== 'GET') return false;
    const links = op.returns['links'];
    const props = op.returns.items?.properties;
    const bare = props === undefined || Object.keys(props).length <= 1;
    const list = (Array.isArray(links) && links.length > 0) || op.returns.type === 'array';
    return list && bare && parents.has(op.path);
  });
}

const DEPTH_PENALTY = 0.06;
const DIRECTORY_INDEX_PRIOR = 0.6;
const SIDELINED_PRIOR = 0.5;
/** Only the opening of a description speaks about the operation itself; later text is about params. */
const SIDELINED_SCAN_CHARS = 200;
const SIDELINED = /\bdeprecated\b|\binternal use\b|\bexperimental\b/i;

/**
 * Query-independent prior. Shorter paths are the canonical entry points (`GET /nodes/{node}/qemu`
 * before `GET /nodes/{node}/qemu/{vmid}/firewall/refs`); deprecated and internal-only operations
 * exist for compatibility and should not be suggested first.
 */
export function operationPrior(op: Operation, directoryIndex: boolean): number {
  const depth = splitPath(op.path).length;
  let prior = 1 / (1 + DEPTH_PENALTY * Math.max(0, depth - 1));
  if (directoryIndex) prior *= DIRECTORY_INDEX_PRIOR;
  if (SIDELINED.test(op.description.slice(0, SIDELINED_SCAN_CHARS))) prior *= SIDELINED_PRIOR;
  return prior;
}
