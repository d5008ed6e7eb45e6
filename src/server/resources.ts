/**
 * Resources: what an agent or user may want to read in full rather than through tools — the SDK
 * declarations of each connected cluster (pinned to its PVE version), its version, and the active
 * policy. A cluster that recovers after a degraded start gets its resources in every open session
 * too (the SDK then sends `notifications/resources/list_changed`).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ClusterRuntime, Product } from '../app/product.js';

export function registerResources(server: McpServer, product: Product): void {
  const registered = new Set<string>();
  const register = (runtime: ClusterRuntime): void => {
    if (registered.has(runtime.name)) return;
    registered.add(runtime.name);
    registerClusterResources(server, runtime);
  };
  for (const name of product.clusterNames) register(product.cluster(name));
  const stop = product.onClusterReady(register);
  const closed = server.server.onclose;
  server.server.onclose = () => {
    stop();
    closed?.();
  };
}

function registerClusterResources(server: McpServer, runtime: ClusterRuntime): void {
  const name = runtime.name;
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
  server.registerResource(
    `version-${name}`,
    `pve://${name}/version`,
    { title: `PVE version (${name})`, mimeType: 'application/json' },
    async (uri) => ({
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
    }),
  );
  server.registerResource(
    `policy-${name}`,
    `pve://${name}/policy`,
    { title: `Active policy (${name})`, mimeType: 'application/json' },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(runtime.policy.config, null, 2) }],
    }),
  );
}
