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
import { registerRunScript, runScriptAnnotations } from './tools/run-script.js';
import { registerSearchApi } from './tools/search-api.js';
import { checkToolArguments, listedTool, type Extra } from './tools/tool.js';
import { notifyListChanges } from './list-changes.js';
import { registerRunView } from './apps/run-view.js';
import type { UrlApprovals } from './console/url-approvals.js';
import { budgetLine, canChange, compactPolicyLine, effectivePolicy } from '../policy/effective.js';

export interface McpServerOptions {
  /** Over HTTP: the principal of a request (from the SDK's `authInfo`), for runs' audit, policy and approvals. */
  principal?(extra: Extra): RunPrincipal | undefined;
  /**
   * Over HTTP: the principal that opened the session (one McpServer per session, bound to it).
   * The instructions, run_script's hints and the policy views follow its effective policy.
   */
  session?: RunPrincipal;
  /** Over HTTP: the console's base URL, where the run_script view links a plan for approval (known once the listener is up). */
  consoleUrl?: () => string | undefined;
  /** The console's URL-mode approvals, when this server serves a console (HTTP). */
  urls?: UrlApprovals;
}

/** Who a view is for: the request's own principal when it has one, else the session's. */
export type Viewer = (extra?: Extra) => RunPrincipal | undefined;

export function createMcpServer(product: Product, options: McpServerOptions = {}): McpServer {
  const viewer: Viewer = (extra) => (extra ? options.principal?.(extra) : undefined) ?? options.session;
  const server = new McpServer(
    { name: 'pve-code-mcp', version: PRODUCT_VERSION },
    { capabilities: { logging: {}, resources: {}, tools: {} }, instructions: serverInstructions(product, options.session) },
  );
  const logLevel = sessionLogLevel(server);
  const tools = [
    registerSearchApi(server, product, viewer),
    registerGetSchema(server, product, viewer),
    registerRunScript(server, product, (extra) => options.principal?.(extra), logLevel.allows, options.urls),
  ];
  // run_script's hints are the asking principal's, over every configured cluster (serving or not).
  const listing = (principal: RunPrincipal | undefined) => ({
    tools: tools.map((t) => listedTool(t.name === 'run_script' ? { ...t, annotations: runScriptAnnotations(writable(product, principal)) } : t)),
  });
  const runView = registerRunView(server, () => {
    const consoleUrl = options.consoleUrl?.();
    return { version: PRODUCT_VERSION, ...(consoleUrl ? { consoleUrl } : {}) };
  });
  // Replaces the SDK's listing (registered with the first tool) by the compact one: see listedTool.
  server.server.setRequestHandler(ListToolsRequestSchema, (_request, extra) => ({ tools: runView.annotate(listing(viewer(extra)).tools) }));
  // Wraps the SDK's tools/call handler, which exists once the tools are registered.
  checkToolArguments(server);
  const resources = registerResources(server, product, viewer);
  registerPrompts(server, product);
  // Without the view's `_meta`: it is settled at initialize, before any tools/list, so it is no change.
  notifyListChanges(
    server,
    () => listing(options.session),
    (changed) => product.onViewChange(changed),
    resources.refresh,
  );
  return server;
}

/** Whether any configured cluster, available or not, lets this principal change something. */
function writable(product: Product, principal: RunPrincipal | undefined): boolean {
  return product.configuredClusters.some((name) => canChange(product.policyFor(name, principal)));
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
 * Sent once at initialize (not with every tools/list): the workflow, and for every configured
 * cluster the effective policy of the session's principal in a line (what it allows, asks approval
 * for and refuses, its rules and the per-run budget); `pve://<cluster>/policy` has all of it.
 */
export function serverInstructions(product: Product, principal?: RunPrincipal): string {
  const down = new Set(product.unavailableClusters().map((c) => c.name));
  const views = product.configuredClusters.map((name) => effectivePolicy(name, product.policyFor(name, principal)));
  const budgets = new Set(views.map((v) => budgetLine(v.budgetPerRun)));
  const shared = budgets.size === 1 ? [...budgets][0] : undefined;
  const clusters = views.map((v) => {
    const flags = [v.cluster === product.defaultCluster ? 'default' : '', down.has(v.cluster) ? 'unavailable now, retried' : ''].filter((f) => f !== '');
    return `- ${v.cluster}${flags.length > 0 ? ` (${flags.join(', ')})` : ''}: policy '${v.policy}'${v.policy === v.preset ? '' : ` (${v.preset})`}. ${compactPolicyLine(v, { budget: shared === undefined })}. pve://${v.cluster}/policy`;
  });
  return [
    'Proxmox VE in code mode: search_api finds operations, get_schema gives their TypeScript signatures, ' +
      'run_script runs a script against the typed `pve` SDK and returns only what the script returns.',
    'Every call is decided by the policy of the cluster it goes to; search_api and get_schema mark each operation ' +
      'allowed / needs approval / refused / in scope only under it, and name the parameters that raise its risk.',
    `Clusters (run_script's cluster argument, or pve.cluster(name) inside a script)${principal ? `, under the policies of ${principal.id}` : ''}:`,
    ...clusters,
    ...(shared !== undefined ? [`Budget per run: ${shared}.`] : []),
    // Only where the operator keeps runbooks: an agent would otherwise rewrite a reviewed procedure.
    ...(product.config.runbooks ? ['Runbooks (scripts the operator reviewed, some approved for standing use): the `runbook` prompt lists them; run one with run_script {runbook, args}.'] : []),
  ].join('\n');
}
