/**
 * The simulator's own API schema: its implemented operations rendered in the apidoc format
 * (`const apiSchema = [ …path tree… ];`) that `/pve-docs/api-viewer/apidoc.js` serves and the
 * schema loader reads. Every text in it is the project's own.
 */
import type { SchemaNode } from '../schema/model.js';
import type { SimEndpoint } from './contract.js';

interface ApidocMethod {
  method: string;
  description: string;
  parameters: { additionalProperties: 0; properties: Record<string, SchemaNode> };
  returns: SchemaNode;
  permissions: Record<string, unknown>;
  allowtoken: 0 | 1;
  protected?: 1;
  proxyto?: string;
}

interface ApidocNode {
  path: string;
  text: string;
  leaf: 0 | 1;
  info?: Record<string, ApidocMethod>;
  children?: ApidocNode[];
}

function toMethod(ep: SimEndpoint): ApidocMethod {
  const permissions: Record<string, unknown> = {};
  if (ep.permissions.check !== undefined) permissions.check = ep.permissions.check;
  if (ep.permissions.user !== undefined) permissions.user = ep.permissions.user;
  if (ep.permissions.description !== undefined) permissions.description = ep.permissions.description;
  return {
    method: ep.method,
    description: ep.description,
    parameters: { additionalProperties: 0, properties: ep.parameters },
    returns: ep.returns,
    permissions,
    allowtoken: ep.allowtoken === false ? 0 : 1,
    ...(ep.protected ? { protected: 1 as const } : {}),
    ...(ep.proxyto ? { proxyto: ep.proxyto } : {}),
  };
}

export class DuplicateEndpointError extends Error {
  constructor(key: string) {
    super(`Two simulator endpoints implement ${key}; each method and path may be defined once.`);
    this.name = 'DuplicateEndpointError';
  }
}

/** Build the path tree; intermediate paths without methods become grouping nodes. */
export function buildApidocTree(endpoints: readonly SimEndpoint[]): ApidocNode[] {
  const nodes = new Map<string, ApidocNode>();
  const roots: ApidocNode[] = [];
  const ensure = (path: string): ApidocNode => {
    const existing = nodes.get(path);
    if (existing) return existing;
    const segments = path.split('/').filter((s) => s.length > 0);
    const node: ApidocNode = { path, text: segments[segments.length - 1] ?? '', leaf: 1 };
    nodes.set(path, node);
    if (segments.length <= 1) {
      roots.push(node);
    } else {
      const parent = ensure(`/${segments.slice(0, -1).join('/')}`);
      parent.children = [...(parent.children ?? []), node];
      parent.leaf = 0;
    }
    return node;
  };
  for (const ep of endpoints) {
    const node = ensure(ep.path);
    node.info ??= {};
    if (node.info[ep.method]) throw new DuplicateEndpointError(`${ep.method} ${ep.path}`);
    node.info[ep.method] = toMethod(ep);
  }
  const sort = (list: ApidocNode[]) => {
    list.sort((a, b) => a.text.localeCompare(b.text));
    for (const n of list) if (n.children) sort(n.children);
  };
  sort(roots);
  return roots;
}

export function renderApidoc(endpoints: readonly SimEndpoint[]): string {
  return `const apiSchema = ${JSON.stringify(buildApidocTree(endpoints), null, 1)};\n`;
}
