/**
 * The MCP face of the product: three tools, three kinds of resources, progress and logging during
 * runs, cancellation, and approvals through elicitation. One `McpServer` per client session; they
 * all share one `Product` (clusters, sandbox, audit).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListToolsRequestSchema, LoggingLevelSchema, SetLevelRequestSchema, type LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { Product, RunPrincipal } from '../app/product.js';
import { PRODUCT_VERSION } from '../version.js';
import { registerPrompts } from './prompts.js';
import { registerResources } from './resources.js';
import { registerGetSchema } from './tools/get-schema.js';
import { registerRunScript } from './tools/run-script.js';
import { registerSearchApi } from './tools/search-api.js';
import { checkToolArguments, listedTool, type Extra } from './tools/tool.js';

export interface McpServerOptions {
  /** Over HTTP: the principal of a request (from the SDK's `authInfo`), for runs' audit, policy and approvals. */
  principal?(extra: Extra): RunPrincipal | undefined;
}

export function createMcpServer(product: Product, options: McpServerOptions = {}): McpServer {
  const server = new McpServer(
    { name: 'pve-code-mcp', version: PRODUCT_VERSION },
    { capabilities: { logging: {}, resources: {}, tools: {} }, instructions: serverInstructions(product) },
  );
  const logLevel = sessionLogLevel(server);
  const tools = [
    registerSearchApi(server, product),
    registerGetSchema(server, product),
    registerRunScript(server, product, (extra) => options.principal?.(extra), logLevel.allows),
  ];
  // Replaces the SDK's listing (registered with the first tool) by the compact one: see listedTool.
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map(listedTool) }));
  // Wraps the SDK's tools/call handler, which exists once the tools are registered.
  checkToolArguments(server);
  registerResources(server, product);
  registerPrompts(server, product);
  return server;
}

/**
 * The level `logging/setLevel` asked for in this session (one McpServer per session). The SDK
 * filters only what goes through its `sendLoggingMessage`, which sends on the session's standalone
 * stream; run_script's lines go on the call's own stream, so they are filtered here.
 */
function sessionLogLevel(server: McpServer): { allows(level: LoggingLevel): boolean } {
  const order = LoggingLevelSchema.options;
  let minimum: LoggingLevel | undefined;
  server.server.setRequestHandler(SetLevelRequestSchema, (request) => {
    minimum = request.params.level;
    return {};
  });
  return { allows: (level) => minimum === undefined || order.indexOf(level) >= order.indexOf(minimum) };
}

/**
 * Sent once at initialize (not with every tools/list): the workflow, and where each cluster's
 * policy can be read before the first refusal.
 */
function serverInstructions(product: Product): string {
  const clusters = product.clusterNames.map((name) => {
    const policy = product.cluster(name).policy;
    const approval = [...policy.approvalClasses].join('/');
    return `${name}${name === product.defaultCluster ? ' (default)' : ''}: policy '${policy.name}' (preset ${policy.preset}${approval ? `, approval for ${approval}` : ''}) — pve://${name}/policy`;
  });
  return [
    'Proxmox VE in code mode: search_api finds operations, get_schema gives their TypeScript signatures, ' +
      'run_script runs a script against the typed `pve` SDK and returns only what the script returns.',
    'Every call is decided by the policy of the cluster it goes to; search_api and get_schema mark each operation ' +
      'allowed / needs approval / refused / in scope only under it, and name the parameters that raise its risk.',
    `Clusters (run_script's cluster argument, or pve.cluster(name) inside a script): ${clusters.join('; ')}.`,
  ].join('\n');
}
