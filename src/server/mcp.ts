/**
 * The MCP face of the product: three tools, three kinds of resources, progress and logging during
 * runs, cancellation, and approvals through elicitation. One `McpServer` per client session; they
 * all share one `Product` (clusters, sandbox, audit).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  ListToolsRequestSchema,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { Product, RunPrincipal } from '../app/product.js';
import type { Approver } from '../safety/approval.js';
import type { Policy } from '../policy/policy.js';
import { VERDICT_TEXT } from '../describe/verdict.js';
import { PRODUCT_VERSION } from '../version.js';
import { registerPrompts } from './prompts.js';
import { registerResources } from './resources.js';
import { GET_SCHEMA, listedTool, registration, runScriptTool, SEARCH_API, type ToolDefinition } from './tools/definitions.js';
import { renderRunText, renderSchemaText, renderSearchText } from './tools/render.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface McpServerOptions {
  /** Over HTTP: the principal of a request (from the SDK's `authInfo`), for runs' audit, policy and approvals. */
  principal?(extra: Extra): RunPrincipal | undefined;
}

export function createMcpServer(product: Product, options: McpServerOptions = {}): McpServer {
  const server = new McpServer(
    { name: 'pve-code-mcp', version: PRODUCT_VERSION },
    { capabilities: { logging: {}, resources: {}, tools: {} }, instructions: serverInstructions(product) },
  );
  const runScript = runScriptTool(product.clusterNames.every((name) => cannotWrite(product.cluster(name).policy)));
  const tools: ToolDefinition[] = [SEARCH_API, GET_SCHEMA, runScript];

  server.registerTool(
    SEARCH_API.name,
    registration(SEARCH_API),
    async (args) =>
      guard(() => {
        const { query, ...options } = args;
        const { hits, lines } = product.search(query, options);
        const results = hits.map((h) => ({
          method: h.method,
          path: h.path,
          summary: h.summary,
          risk: h.risk,
          verdict: h.verdict ?? 'unknown',
        }));
        return { structuredContent: { results }, content: [{ type: 'text', text: renderSearchText(query, lines) }] };
      }),
  );

  server.registerTool(
    GET_SCHEMA.name,
    registration(GET_SCHEMA),
    async (args) =>
      guard(() => {
        const described = product.describe(args.operations, {
          ...(args.params ? { params: args.params } : {}),
          ...(args.cluster !== undefined ? { cluster: args.cluster } : {}),
        });
        const operations = described.operations.map((o) => ({
          method: o.method,
          path: o.path,
          risk: o.risk,
          verdict: o.verdict ? VERDICT_TEXT[o.verdict.verdict] : 'unknown',
          permission: o.permission,
          signature: o.signature,
        }));
        const text = renderSchemaText(described);
        if (operations.length === 0) return { isError: true, content: [{ type: 'text', text }] };
        return { structuredContent: { operations }, content: [{ type: 'text', text }] };
      }),
  );

  server.registerTool(
    runScript.name,
    registration(runScript),
    async (args, extra) =>
      guard(async () => {
        const progress = progressReporter(extra);
        const principal = options.principal?.(extra);
        const output = await product.runScript(args, {
          ...(principal ? { principal } : {}),
          approver: elicitationApprover(server, extra),
          signal: extra.signal,
          onLog: (line) => {
            progress(`log: ${line}`);
            // On the tool call's own stream (over HTTP a client need not open the standalone one),
            // at the level the script logged at.
            void extra.sendNotification({ method: 'notifications/message', params: { level: logLevelOf(line), logger: 'run_script', data: line } }).catch(() => undefined);
          },
          onProgress: (event) => {
            const tail = event.lines.length > 0 ? `: ${event.lines[event.lines.length - 1]}` : '';
            progress(`task ${event.upid} ${event.status}${tail}`);
          },
        });
        return {
          // JSON has no undefined: a script that returns nothing (or never ran) reports null.
          structuredContent: { ...output, result: output.result ?? null } as unknown as Record<string, unknown>,
          content: [{ type: 'text', text: renderRunText(output) }],
          ...(output.ok ? {} : { isError: true }),
        };
      }),
  );

  // Replaces the SDK's listing (registered with the first tool) by the compact one: see listedTool.
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map(listedTool) }));
  registerResources(server, product);
  registerPrompts(server, product);
  return server;
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

/** Whether no operation can change anything under this policy: a read-only preset with nothing allowed or enabled beyond it. */
function cannotWrite(policy: Policy): boolean {
  return policy.preset === 'read-only' && policy.config.allow.length === 0 && policy.config.privileged.length === 0;
}

/** Progress notifications go only to clients that asked for them with a progress token. */
function progressReporter(extra: Extra): (message: string) => void {
  const token = extra._meta?.progressToken;
  if (token === undefined) return () => undefined;
  let step = 0;
  return (message) => {
    step += 1;
    void extra
      .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: step, message } })
      .catch(() => undefined);
  };
}

/** Humans read plans slowly: the SDK's 60 s request default would turn a slow yes into a no. */
const ELICITATION_TIMEOUT_MS = 10 * 60_000;

/**
 * Approval by the human in the client's UI; the model cannot answer an elicitation itself. The
 * question travels with the tool call (over HTTP: on its response stream) and is withdrawn when
 * the call is cancelled.
 */
function elicitationApprover(server: McpServer, extra: Extra): Approver {
  return {
    async elicit(request) {
      if (!server.server.getClientCapabilities()?.elicitation) return 'unsupported';
      try {
        const answer = await server.server.elicitInput({
          message: `Approve these Proxmox writes (plan ${request.planId.slice(0, 12)})?\n\n${request.summary}`,
          requestedSchema: {
            type: 'object',
            properties: { approve: { type: 'boolean', title: 'Run exactly these writes', default: false } },
            required: ['approve'],
          },
        }, { relatedRequestId: extra.requestId, signal: extra.signal, timeout: ELICITATION_TIMEOUT_MS });
        return answer.action === 'accept' && answer.content?.approve === true ? 'accept' : 'decline';
      } catch {
        return 'unsupported';
      }
    },
  };
}

/** The MCP log level of a console line (the sandbox marks `console.warn/error/debug` lines). */
export function logLevelOf(line: string): 'error' | 'warning' | 'debug' | 'info' {
  if (line.startsWith('[error] ')) return 'error';
  if (line.startsWith('[warn] ')) return 'warning';
  if (line.startsWith('[debug] ')) return 'debug';
  return 'info';
}

/** Runs a tool body; a thrown error becomes a tool error result instead of a protocol error. */
async function guard(fn: () => CallToolResult | Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await fn();
  } catch (err) {
    return toolError(err);
  }
}

/** Tool failures are results the model can read and act on, not protocol errors. */
function toolError(err: unknown): CallToolResult {
  const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return { isError: true, content: [{ type: 'text', text: message }] };
}
