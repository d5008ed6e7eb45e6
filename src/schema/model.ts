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
}

const segmentParam = /^\{([^}]+)\}$/;

/**
 * Path templates whose last parameter swallows the rest of the path (PVE mounts these with an
 * empty fragment delimiter), so storage volume IDs such as `local:iso/debian.iso` fit in one param.
 */
const REST_OF_PATH_PARAMS = new Set(['volume']);

export class ApiModel {
  readonly operations: readonly Operation[];
  readonly paths: readonly string[];
  private readonly byKey = new Map<string, Operation>();
  private readonly byPathMap = new Map<string, Operation[]>();
  private readonly pathSet: ReadonlySet<string>;
  private readonly templates: Array<{ path: string; segments: string[] }>;

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
    this.templates = this.paths.map((path) => ({ path, segments: splitPath(path) }));
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
    const segments = splitPath(concretePath);
    let best: { path: string; values: Record<string, string>; score: number } | undefined;
    for (const tpl of this.templates) {
      const values = matchSegments(tpl.segments, segments);
      if (!values) continue;
      const score = tpl.segments.filter((s) => !segmentParam.test(s)).length * 1000 - tpl.segments.length;
      if (!best || score > best.score) best = { path: tpl.path, values, score };
    }
    if (!best) return undefined;
    const operation = this.get(method, best.path);
    if (!operation) return { path: best.path };
    return { operation, pathValues: best.values };
  }
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

function matchSegments(template: string[], concrete: string[]): Record<string, string> | undefined {
  const values: Record<string, string> = {};
  for (let i = 0; i < template.length; i++) {
    const t = template[i] as string;
    const m = segmentParam.exec(t);
    if (m?.[1] && REST_OF_PATH_PARAMS.has(m[1]) && i === template.length - 1) {
      if (concrete.length <= i) return undefined;
      values[m[1]] = safeDecode(concrete.slice(i).join('/'));
      return values;
    }
    const c = concrete[i];
    if (c === undefined) return undefined;
    if (m?.[1]) {
      // A template placeholder (`{node}`) given as-is matches its own parameter.
      values[m[1]] = c === t ? c : safeDecode(c);
    } else if (t !== c) {
      return undefined;
    }
  }
  return template.length === concrete.length ? values : undefined;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
