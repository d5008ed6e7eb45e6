/** `pve-code-mcp serve`: the MCP server over stdio (default) or Streamable HTTP. */
import type { Product } from '../../app/product.js';
import type { ClusterRuntime } from '../../app/cluster-runtime.js';
import { DEFAULT_CLUSTER_RETRY, type RetrySchedule } from '../../app/cluster-status.js';
import type { ClusterConfig } from '../../client/config.js';
import { createMcpServer } from '../../server/mcp.js';
import { ToolCallDrain } from '../../server/drain.js';
import { drainToolCalls } from '../../server/shutdown.js';
import { LineStdioTransport } from '../../server/stdio.js';
import { boolOpt, EXIT, parseCommandArgs, type CliIo, type ParsedArgs } from '../args.js';
import type { Command } from '../command.js';
import { appConfigFrom, CONFIG_OPTIONS, CONFIG_USAGE, openProduct, StopSignals } from '../context.js';
import { tuneV8ForServer } from '../v8-tuning.js';

const usage = `Usage: pve-code-mcp serve [--http [--host H] [--port N] [--token T] [--public-url U]
                          [--allowed-host H]... [--allowed-origin O]... [--tls-cert F --tls-key F]] [options]

Serve the three MCP tools. Default transport: stdio (what MCP clients start).
  --http              Streamable HTTP instead, on 127.0.0.1 (bearer token or OAuth required)
  --host H            listen address for --http (default 127.0.0.1; 0.0.0.0 or :: for every interface)
  --port N            port for --http (default 8765)
  --token T           bearer token for --http (default: PVE_MCP_TOKEN or a random one, printed);
                      with "http": {"oauth": …} in the config, access tokens from that identity provider instead
  --public-url U      the MCP URL clients use (a DNS name, a reverse proxy): printed, allowed as Host, the OAuth resource
  --allowed-host H    another Host header to accept (name, name:port or address); repeatable or comma-separated
  --allowed-origin O  a browser origin allowed to call the server (CORS), e.g. http://localhost:6274; repeatable
  --tls-cert F        HTTPS with this certificate chain (PEM) and --tls-key F; reloaded when the files change
The "http" section of the config file sets the same and more (docs/security.md, "Remote HTTP").
${CONFIG_USAGE}`;

export const HTTP_OPTIONS = {
  http: { type: 'boolean' },
  host: { type: 'string' },
  port: { type: 'string' },
  token: { type: 'string' },
  'public-url': { type: 'string' },
  'allowed-host': { type: 'string', multiple: true },
  'allowed-origin': { type: 'string', multiple: true },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
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
    const lint = (runtime: ClusterRuntime): void =>
      void lintAtStart(
        runtime,
        config.pve.clusters.find((c) => c.name === runtime.name),
        io,
      );
    const product = await openProduct(config, io, { retry: retryFromEnv(), onClusterReady: lint });
    const atStart = product.clusterNames.map((name) => product.cluster(name));
    // The lint reads the inventory and parses the cached schema's model: it starts once the server
    // answers, after the client's first tools/list, not on the way to it.
    const lintAfterStart = (): void => {
      setTimeout(() => {
        if (!product.isStopping) for (const runtime of atStart) lint(runtime);
      }, LINT_DELAY_MS).unref();
    };
    return serveProduct(product, args, io, lintAfterStart);
  },
};

/** How long after the server answers the lint of the clusters serving at start begins: past a client's initialize and tools/list. */
const LINT_DELAY_MS = 1_000;

/**
 * The policy lint at start: every finding is a warning here (`config check` fails on errors). It
 * runs beside the server's start, so an inventory read never delays the first tool call.
 */
async function lintAtStart(runtime: ClusterRuntime, cluster: ClusterConfig | undefined, io: CliIo): Promise<void> {
  try {
    // Loaded here, beside the start: the policy lint is not on the way to the first tools/list.
    const { lintCluster } = await import('../lint.js');
    const { findings, inventoryError } = await lintCluster({ name: runtime.name, ...(cluster?.tokens ? { tokens: cluster.tokens } : {}) }, runtime.policy, () => runtime.model, runtime.client);
    for (const f of findings) io.err(`pve-code-mcp: warning: cluster '${runtime.name}' policy lint${f.severity === 'error' ? ' (matches nothing)' : ''}: ${f.key}: ${f.message}`);
    if (inventoryError !== undefined && runtime.policy.config.targets.length + Object.keys(runtime.policy.config.scopes).length > 0) {
      io.err(`pve-code-mcp: warning: cluster '${runtime.name}' policy lint: targets and scopes not checked against the inventory: ${inventoryError}`);
    }
    if (findings.some((f) => f.severity === 'error')) io.err(`pve-code-mcp: run 'pve-code-mcp config check' for the full report; rules that match nothing protect nothing`);
  } catch (err) {
    io.err(`pve-code-mcp: warning: cluster '${runtime.name}' policy lint failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * The kept sandbox workers start once the server answers, never on the way to its first
 * tools/list (a desktop client starts every server at launch); the type-check process starts with
 * the first checked run. A worker that cannot start is reported with its cause: runs then say it too.
 */
function warmInBackground(product: Product, io: CliIo): void {
  product.warmSandbox().then(
    () => io.err(`pve-code-mcp: ${product.sandboxSummary()}`),
    (err: unknown) => {
      // A stop that came while the workers were starting ends their start: nothing to fix.
      if (!product.isStopping) io.err(`pve-code-mcp: ${err instanceof Error ? err.message : String(err)}; run_script fails until this is fixed (search_api and get_schema work)`);
    },
  );
}

/** `PVE_CLUSTER_RETRY_MS`: the first retry delay of an unavailable cluster (then doubling, at most 5 min). */
function retryFromEnv(): RetrySchedule {
  const v = Number(process.env.PVE_CLUSTER_RETRY_MS);
  return Number.isInteger(v) && v >= 100 ? { initialMs: v, maxMs: Math.max(v, DEFAULT_CLUSTER_RETRY.maxMs) } : DEFAULT_CLUSTER_RETRY;
}

/**
 * Serve until a signal (SIGINT, SIGTERM), the client closing stdin (stdio) or the listener closing
 * (HTTP); then stop gracefully: no new tool calls, the runs in flight cancelled, every pending
 * call answered within `shutdown.drainMs`, the transports closed, the product (and its audit)
 * closed. Exit 0 after a clean drain; 1 when calls had to be answered "outcome unknown". A second
 * signal exits at once (1).
 */
export async function serveProduct(product: Product, args: ParsedArgs, io: CliIo, onServing?: () => void): Promise<number> {
  const signals = new StopSignals();
  signals.onAgain((signal) => {
    io.err(`pve-code-mcp: ${signal} again: exiting now; tool calls still pending get no answer`);
    process.exit(EXIT.failed);
  });
  const calls = new ToolCallDrain();
  /** Once the server answers: the kept sandbox workers start, then what the caller runs beside (the lint). */
  const started = (): void => {
    warmInBackground(product, io);
    onServing?.();
  };
  const drainMs = product.config.shutdown.drainMs;
  const stop = async (cause: string): Promise<number> => {
    io.err(
      `pve-code-mcp: ${cause}: stopping; ${calls.pendingCalls} tool call${calls.pendingCalls === 1 ? '' : 's'} in flight, waiting up to ${drainMs} ms for their answers (a second signal exits at once)`,
    );
    const report = await drainToolCalls(calls, product, drainMs);
    if (report.clean) io.err(`pve-code-mcp: every tool call in flight was answered (${report.pending}, in ${report.ms} ms)`);
    else
      io.err(
        `pve-code-mcp: the ${drainMs} ms drain passed: ${report.abandoned.length} tool call${report.abandoned.length === 1 ? ' was' : 's were'} answered that the outcome is unknown (${report.abandoned.join(', ')})`,
      );
    return report.clean ? EXIT.ok : EXIT.failed;
  };
  try {
    if (boolOpt(args, 'http')) {
      // Loaded only here: the HTTP host, its OAuth verifier (jose), the web console and its OIDC
      // login are a stdio start's largest modules, none of which it needs before tools/list.
      const { serveHttp } = await import('./serve-http.js');
      return await serveHttp(product, args, io, { calls, signals, stop, started });
    }
    const server = createMcpServer(product);
    const transport = new LineStdioTransport();
    const closed = new Promise<string>((resolve) => {
      transport.onclose = () => resolve('the stdio transport closed');
      process.stdin.once('end', () => resolve('the client closed stdin'));
    });
    await server.connect(transport);
    calls.attach(transport);
    io.err('pve-code-mcp: serving MCP on stdio');
    started();
    const code = await stop(await Promise.race([closed, signals.first.then((s) => `${s} received`)]));
    await server.close();
    return code;
  } finally {
    await product.close();
    signals.dispose();
  }
}
