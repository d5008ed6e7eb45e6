/**
 * Resources: what an agent or user may want to read in full rather than through tools — the SDK
 * declarations of each connected cluster (pinned to its PVE version), its version, and the
 * effective policy of every configured cluster for the principal asking.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Product, RunPrincipal } from '../app/product.js';
import { effectivePolicy } from '../policy/effective.js';
import type { Extra } from './tools/tool.js';

export interface RegisteredResources {
  /**
   * Registers the SDK and version resources of clusters that became available (the SDK tells the
   * client their list changed), and tells the client when a cluster's schema was replaced.
   */
  refresh(): void;
}

export function registerResources(server: McpServer, product: Product, viewer: (extra?: Extra) => RunPrincipal | undefined = () => undefined): RegisteredResources {
  // The policy is known from the configuration, so a cluster that is down still shows it.
  for (const name of product.configuredClusters) {
    server.registerResource(
      `policy-${name}`,
      `pve://${name}/policy`,
      { title: `Effective policy (${name})`, description: 'What runs, needs approval or is refused, rules, scopes and per-run budgets', mimeType: 'application/json' },
      async (uri, extra) => {
        const principal = viewer(extra);
        const policy = product.policyFor(name, principal);
        const view = { ...effectivePolicy(name, policy), ...(principal ? { principal: principal.id } : {}), configured: policy.config };
        return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(view, null, 2) }] };
      },
    );
  }
  // By cluster: the schema its resources were last announced with.
  const served = new Map<string, string>();
  const refresh = (): void => {
    let replaced = false;
    for (const name of product.clusterNames) {
      // The schema's content hash: a cached model is parsed only when first used.
      const { schema } = product.cluster(name);
      const hash = schema.contentHash ?? schema.model.hash;
      const before = served.get(name);
      served.set(name, hash);
      if (before === undefined) registerClusterResources(server, product, name);
      // A cache-first start found another schema on the cluster: the SDK and version resources read the new one.
      else if (before !== hash) replaced = true;
    }
    if (replaced && server.isConnected()) server.sendResourceListChanged();
  };
  refresh();
  return { refresh };
}

function registerClusterResources(server: McpServer, product: Product, name: string): void {
  const runtime = product.cluster(name);
  server.registerResource(
    `sdk-${name}`,
    `pve://${name}/sdk.d.ts`,
    { title: `pve SDK declarations (${name})`, description: 'TypeScript declarations of the whole API of this cluster', mimeType: 'text/typescript' },
    async (uri) => ({
      contents: runtime.declarations().map((f) => ({
        uri: `${uri.href}#${f.fileName}`,
        mimeType: 'text/typescript',
        text: f.text,
      })),
    }),
  );
  server.registerResource(`version-${name}`, `pve://${name}/version`, { title: `PVE version (${name})`, mimeType: 'application/json' }, async (uri) => ({
    contents: [
      {
        uri: uri.href,
        mimeType: 'application/json',
        text: JSON.stringify({
          cluster: name,
          version: runtime.schema.version ?? null,
          schema: { origin: runtime.schema.origin, hash: runtime.model.hash, operations: runtime.model.operations.length },
        }),
      },
    ],
  }));
}
