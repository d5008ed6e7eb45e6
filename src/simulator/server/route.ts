/**
 * The simulator's own routing of a concrete request path to an operation of the served schema,
 * as pve-common's RESTHandler finds a handler (the product has its own matcher; end-to-end tests
 * compare the two):
 *
 * - the path is split on runs of `/`, empty fragments dropped (the whole path was URL-decoded
 *   once before; fragments are not decoded again);
 * - each level of the tree is walked with one fragment: a literal child of that name, or else
 *   the level's `{param}`, which takes a fragment without whitespace (PVE's default `\S+`);
 * - where PVE mounts a sub-tree with an empty fragment delimiter, everything left of the path is
 *   joined back into one fragment: below `/nodes/{node}/storage/{storage}/content` (volume IDs such
 *   as `local:iso/debian.iso`) and below each firewall IP set `…/firewall/ipset/{name}` (CIDRs
 *   such as `10.0.0.0/24`);
 * - a path that ends on a level without the request's method, or leaves fragments over, has no
 *   handler (pveproxy answers 501).
 */
import type { ApiModel, HttpMethod, Operation } from '../../schema/model.js';

interface RouteNode {
  literals: Map<string, RouteNode>;
  param?: { name: string; node: RouteNode };
  /** PVE's empty fragment delimiter: the rest of the path is one fragment below this level. */
  joinsRest: boolean;
  methods: Map<HttpMethod, Operation>;
}

/** Mount points of PVE sub-trees registered with an empty fragment delimiter (template prefixes). */
const WHOLE_REST_MOUNTS: readonly RegExp[] = [/^\/nodes\/\{[^}]+\}\/storage\/\{[^}]+\}\/content$/, /\/firewall\/ipset\/\{[^}]+\}$/];

export interface RouteMatch {
  operation: Operation;
  /** `{param}` values from the path, as they came (not decoded again). */
  pathValues: Record<string, string>;
}

function newNode(template: string): RouteNode {
  return { literals: new Map(), joinsRest: WHOLE_REST_MOUNTS.some((re) => re.test(template)), methods: new Map() };
}

const PARAM_SEGMENT = /^\{([\w-]+)\}$/;
const NO_WHITESPACE = /^\S+$/;

export class Router {
  private readonly root: RouteNode = newNode('');

  constructor(operations: Iterable<Operation>) {
    for (const op of operations) this.add(op);
  }

  static fromModel(model: ApiModel): Router {
    return new Router(model.operations);
  }

  private add(op: Operation): void {
    let node = this.root;
    let template = '';
    for (const segment of op.path.split('/')) {
      if (segment === '') continue;
      template += `/${segment}`;
      const param = PARAM_SEGMENT.exec(segment)?.[1];
      if (param !== undefined) {
        if (node.param && node.param.name !== param) {
          throw new Error(`schema routes: '${op.path}' names the parameter at ${template} '${param}', another operation '${node.param.name}'`);
        }
        node.param ??= { name: param, node: newNode(template) };
        node = node.param.node;
      } else {
        let next = node.literals.get(segment);
        if (!next) {
          next = newNode(template);
          node.literals.set(segment, next);
        }
        node = next;
      }
    }
    node.methods.set(op.method, op);
  }

  /** The operation a request reaches, or undefined (501 `Method '… …' not implemented`). */
  match(method: HttpMethod, path: string): RouteMatch | undefined {
    let stack = path.split('/').filter((f) => f.length > 0);
    let node = this.root;
    const pathValues: Record<string, string> = {};
    while (stack.length > 0) {
      const [fragment, ...rest] = stack as [string, ...string[]];
      stack = rest;
      const literal = node.literals.get(fragment);
      if (literal) {
        node = literal;
      } else if (node.param && NO_WHITESPACE.test(fragment)) {
        pathValues[node.param.name] = fragment;
        node = node.param.node;
      } else {
        return undefined;
      }
      if (node.joinsRest && stack.length > 1) stack = [stack.join('/')];
    }
    const operation = node.methods.get(method);
    return operation ? { operation, pathValues } : undefined;
  }
}
