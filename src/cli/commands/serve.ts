/** `pve-code-mcp serve`: the MCP server over stdio (default) or Streamable HTTP. */
import type { ClusterRuntime, Product } from '../../app/product.js';
import { DEFAULT_CLUSTER_RETRY, type RetrySchedule } from '../../app/cluster-status.js';
import type { ClusterConfig } from '../../client/config.js';
import { lintCluster } from '../lint.js';
import { startHttpServer } from '../../server/http.js';
import { createMcpServer } from '../../server/mcp.js';
import { LineStdioTransport } from '../../server/stdio.js';
import { boolOpt, EXIT, intOpt, parseCommandArgs, stringOpt, type CliIo, type ParsedArgs } from '../args.js';
import type { Command } from '../command.js';
import { appConfigFrom, CONFIG_OPTIONS, CONFIG_USAGE, openProduct, untilSignal } from '../context.js';
import { tuneV8ForServer } from '../v8-tuning.js';

const usage = `Usage: pve-code-mcp serve [--http [--host H] [--port N] [--token T]] [options]

Serve the three MCP tools. Default transport: stdio (what MCP clients start).
  --http              Streamable HTTP instead, on 127.0.0.1 (bearer token required)
  --host H            listen address for --http (default 127.0.0.1)
  --port N            port for --http (default 8765)
  --token T           bearer token for --http (default: PVE_MCP_TOKEN or a random one, printed)
${CONFIG_USAGE}`;

export const HTTP_OPTIONS = {
  http: { type: 'boolean' },
  host: { type: 'string' },
  port: { type: 'string' },
  token: { type: 'string' },
} as const;

export const serveCommand: Command = {
  name: 'serve',
  usage,
  async run(argv, io) {
    const args = parseCommandArgs(argv, { ...CONFIG_OPTIONS, ...HTTP_OPTIONS }, false);
    if (args.help) {
      io.out(usage);
      return EXIT.ok;
    }
    // Before the product opens: the collections while it loads already size the heap's limits.
    tuneV8ForServer();
    // One bad cluster (unreachable, refused, a missing secret) does not stop the others; errors
    // that are not a cluster's (audit key, state directory, the policy language) still do.
    const config = await appConfigFrom(args, { degraded: true });
    const lint = (runtime: ClusterRuntime): void => void lintAtStart(runtime, config.pve.clusters.find((c) => c.name === runtime.name), io);
    const product = await openProduct(config, io, { retry: retryFromEnv(), onClusterReady: lint });
    for (const name of product.clusterNames) lint(product.cluster(name));
    return serveProduct(product, args, io);
  },
};

/**
 * The policy lint at start: every finding is a warning here (`config check` fails on errors). It
 * runs beside the server's start, so an inventory read never delays the first tool call.
 */
async function lintAtStart(runtime: ClusterRuntime, cluster: ClusterConfig | undefined, io: CliIo): Promise<void> {
  try {
    const { findings, inventoryError } = await lintCluster({ name: runtime.name, ...(cluster?.tokens ? { tokens: cluster.tokens } : {}) }, runtime.policy, runtime.model, runtime.client);
    for (const f of findings) io.err(`pve-code-mcp: warning: cluster '${runtime.name}' policy lint${f.severity === 'error' ? ' (matches nothing)' : ''}: ${f.key}: ${f.message}`);
    if (inventoryError !== undefined && runtime.policy.config.targets.length + Object.keys(runtime.policy.config.scopes).length > 0) {
      io.err(`pve-code-mcp: warning: cluster '${runtime.name}' policy lint: targets and scopes not checked against the inventory: ${inventoryError}`);
    }
    if (findings.some((f) => f.severity === 'error')) io.err(`pve-code-mcp: run 'pve-code-mcp config check' for the full report; rules that match nothing protect nothing`);
  } catch (err) {
    io.err(`pve-code-mcp: warning: cluster '${runtime.name}' policy lint failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** `PVE_CLUSTER_RETRY_MS`: the first retry delay of an unavailable cluster (then doubling, at most 5 min). */
function retryFromEnv(): RetrySchedule {
  const v = Number(process.env.PVE_CLUSTER_RETRY_MS);
  return Number.isInteger(v) && v >= 100 ? { initialMs: v, maxMs: Math.max(v, DEFAULT_CLUSTER_RETRY.maxMs) } : DEFAULT_CLUSTER_RETRY;
}

/** Serve until the client goes away (stdio) or a signal arrives (HTTP); closes the product. */
export async function serveProduct(product: Product, args: ParsedArgs, io: CliIo): Promise<number> {
  try {
    await product.warm();
    io.err(`pve-code-mcp: ${product.sandboxSummary()}`);
    if (boolOpt(args, 'http')) {
      const token = stringOpt(args, 'token') ?? process.env.PVE_MCP_TOKEN;
      const http = await startHttpServer(() => createMcpServer(product), {
        ...(stringOpt(args, 'host') ? { host: stringOpt(args, 'host') as string } : {}),
        port: intOpt(args, 'port') ?? 8765,
        ...(token ? { token } : {}),
        log: (line) => io.err(line),
      });
      io.err(`MCP over Streamable HTTP: ${http.url}\nAuthorization: Bearer ${http.token}\n(Ctrl-C to stop)`);
      await untilSignal();
      await http.close();
      return EXIT.ok;
    }
    const server = createMcpServer(product);
    const transport = new LineStdioTransport();
    const closed = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
      process.stdin.once('end', () => resolve());
    });
    await server.connect(transport);
    io.err('pve-code-mcp: serving MCP on stdio');
    await Promise.race([closed, untilSignal()]);
    await server.close();
    return EXIT.ok;
  } finally {
    await product.close();
  }
}
