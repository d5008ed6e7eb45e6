/**
 * The normalized endpoint model every other part of the product works from.
 *
 * The loader turns an apidoc file (official or the simulator's own) into an `ApiModel`; search,
 * type generation, `get_schema`, the simulator's validation and the bridge's policy all read it.
 * It is plain data plus lookups: no I/O, no knowledge of where the schema came from.
 */

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export const RISK_CLASSES = ['read', 'write', 'destructive', 'privileged'] as const;
export type RiskClass = (typeof RISK_CLASSES)[number];

/** A JSON-schema fragment as PVE writes it (parameters, properties, items, returns). Kept loose on purpose. */
export interface SchemaNode {
  type?: string | string[];
  description?: string;
  verbose_description?: string;
  format?: string | Record<string, SchemaNode>;
  format_description?: string;
  typetext?: string;
  enum?: Array<string | number>;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  optional?: number | boolean;
  default?: unknown;
  items?: SchemaNode;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: number | boolean | SchemaNode;
  requires?: string;
  title?: string;
  [key: string]: unknown;
}

export type ParamType = 'string' | 'boolean' | 'integer' | 'number' | 'array' | 'object' | 'null' | 'any';

export interface ParamSpec {
  name: string;
  type: ParamType;
  /** Named PVE format (`pve-vmid`, `pve-configid-list`…) or an inline property-string format. */
  format?: string | Record<string, SchemaNode>;
  enum?: string[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  optional: boolean;
  default?: unknown;
  description?: string;
  typetext?: string;
  items?: SchemaNode;
  /** True when the parameter is a `{name}` segment of the path template. */
  inPath: boolean;
  /**
   * Indexed options (`net[n]`, `scsi[n]`): the apidoc declares `net0`..`netN` separately;
   * normalization keeps them all and records the family so renderers can fold them.
   */
  family?: { base: string; index: number };
}

export interface Permissions {
  /** The raw check expression, e.g. `["perm", "/vms/{vmid}", ["VM.PowerMgmt"]]`. */
  check?: unknown;
  description?: string;
  /** `all` = any authenticated user, `world` = anonymous. */
  user?: string;
}

export type OperationKey = `${HttpMethod} ${string}`;

export interface Operation {
  key: OperationKey;
  method: HttpMethod;
  /** Path template as in the schema, e.g. `/nodes/{node}/qemu/{vmid}/status/start`. */
  path: string;
  pathParams: string[];
  params: ParamSpec[];
  returns: SchemaNode;
  permissions?: Permissions;
  allowtoken: boolean;
  protected: boolean;
  proxyto?: string;
  /** True when the schema accepts parameters beyond `params` (`additionalProperties: 1`). */
  additionalParams?: boolean;
  /** The API handler name (`vm_start`…), when the schema gives it. */
  name?: string;
  description: string;
  /** First sentence of the description, for one-line listings. */
  summary: string;
  risk: RiskClass;
}

export interface SchemaSource {
  kind: 'string' | 'file' | 'url' | 'cluster' | 'cache' | 'simulator';
  location?: string;
}

/** Result of matching a concrete request path against the path templates. */
export interface PathMatch {
  operation: Operation;
  /** Values of the template's `{params}` taken from the concrete path (URL-decoded). */
  pathValues: Record<string, string>;
  /** The operation's `type: array` params (`arrayParamsOf`): what an encoder needs of it, with the match. */
  arrayParams: ReadonlySet<string>;
}

const segmentParam = /^\{([^}]+)\}$/;

/**
 * Parameters that, last in a template, take the rest of the path: PVE mounts their sub-trees with
 * an empty fragment delimiter (RESTHandler joins the remaining segments into one), so storage
 * volume IDs (`local:iso/debian.iso`, storage content) and IPset entries (`10.0.0.0/24`,
 * `dc/alias`; cluster, VM and CT IP sets) fit in one param.
 */
export const REST_OF_PATH_PARAMS: ReadonlySet<string> = new Set(['volume', 'cidr']);

export class ApiModel {
  readonly operations: readonly Operation[];
  readonly paths: readonly string[];
  private readonly byKey = new Map<string, Operation>();
  private readonly byPathMap = new Map<string, Operation[]>();
  private readonly pathSet: ReadonlySet<string>;
  private readonly templates: PathTemplate[];

  constructor(
    operations: Operation[],
    readonly hash: string,
    readonly source: SchemaSource,
    /**
     * Every path node of the schema, including the few that only group children and have no
     * methods; matching them lets callers say "path exists, method does not".
     */
    pathTemplates: readonly string[] = [],
  ) {
    this.operations = operations;
    for (const op of operations) {
      this.byKey.set(op.key, op);
      const list = this.byPathMap.get(op.path) ?? [];
      list.push(op);
      this.byPathMap.set(op.path, list);
    }
    this.pathSet = new Set([...pathTemplates, ...this.byPathMap.keys()]);
    this.paths = [...this.pathSet];
    this.templates = this.paths.map(compileTemplate);
  }

  get(method: HttpMethod, path: string): Operation | undefined {
    return this.byKey.get(`${method} ${path}`);
  }

  /** All methods of one path template (empty when the path is unknown). */
  byPath(path: string): Operation[] {
    return this.byPathMap.get(path) ?? [];
  }

  hasPath(path: string): boolean {
    return this.pathSet.has(path);
  }

  /**
   * Resolve a concrete path (`/nodes/pve1/qemu/100/status/start`) or a template to its operation.
   * Literal segments beat parameters, so `/nodes/pve1/qemu` never resolves to `/nodes/{node}/{x}`.
   * Returns the matched template even when the method is missing, so callers can say
   * "path exists, method does not".
   */
  matchPath(method: HttpMethod, concretePath: string): PathMatch | { path: string; operation?: undefined } | undefined {
    // Runs for every bridge call over every template: nothing is allocated until the winner is known.
    const segments = splitPath(concretePath);
    let best: PathTemplate | undefined;
    for (const tpl of this.templates) {
      if (fits(tpl, segments) && (!best || tpl.score > best.score)) best = tpl;
    }
    if (!best) return undefined;
    const operation = this.get(method, best.path);
    if (!operation) return { path: best.path };
    return { operation, pathValues: valuesOf(best, segments), arrayParams: arrayParamsOf(operation) };
  }
}

/** A path template prepared for matching: each segment's parameter name (undefined for literals). */
interface PathTemplate {
  path: string;
  segments: string[];
  params: Array<string | undefined>;
  /** The last parameter takes the rest of the path (REST_OF_PATH_PARAMS). */
  rest: boolean;
  /** Literal segments beat parameters; among equals the shorter template wins. */
  score: number;
}

function compileTemplate(path: string): PathTemplate {
  const segments = splitPath(path);
  const params = segments.map((s) => segmentParam.exec(s)?.[1]);
  const last = params[params.length - 1];
  const literals = params.filter((p) => p === undefined).length;
  return { path, segments, params, rest: last !== undefined && REST_OF_PATH_PARAMS.has(last), score: literals * 1000 - segments.length };
}

function fits(tpl: PathTemplate, concrete: string[]): boolean {
  const n = tpl.segments.length;
  if (tpl.rest ? concrete.length < n : concrete.length !== n) return false;
  for (let i = 0; i < n; i++) {
    if (tpl.params[i] === undefined && tpl.segments[i] !== concrete[i]) return false;
  }
  return true;
}

/** The template's parameter values in a concrete path that `fits` it (URL-decoded). */
function valuesOf(tpl: PathTemplate, concrete: string[]): Record<string, string> {
  const values: Record<string, string> = {};
  const n = tpl.segments.length;
  for (let i = 0; i < n; i++) {
    const name = tpl.params[i];
    if (name === undefined) continue;
    if (tpl.rest && i === n - 1) {
      values[name] = safeDecode(concrete.slice(i).join('/'));
    } else {
      const c = concrete[i] as string;
      // A template placeholder (`{node}`) given as-is matches its own parameter.
      values[name] = c === tpl.segments[i] ? c : safeDecode(c);
    }
  }
  return values;
}

export function splitPath(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

/** Names of the `{param}` segments of a template, in order. */
export function templateParams(path: string): string[] {
  const names: string[] = [];
  for (const seg of splitPath(path)) {
    const m = segmentParam.exec(seg);
    if (m?.[1]) names.push(m[1]);
  }
  return names;
}

const NO_ARRAY_PARAMS: ReadonlySet<string> = new Set();
/** Read once per operation: models are immutable once loaded. */
const ARRAY_PARAMS = new WeakMap<Operation, ReadonlySet<string>>();

/** The operation's `type: array` params, which PVE takes as repeated keys (other lists are comma-joined). */
export function arrayParamsOf(op: Operation): ReadonlySet<string> {
  let names = ARRAY_PARAMS.get(op);
  if (!names) {
    const listed = op.params.filter((p) => p.type === 'array').map((p) => p.name);
    names = listed.length > 0 ? new Set(listed) : NO_ARRAY_PARAMS;
    ARRAY_PARAMS.set(op, names);
  }
  return names;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
