/**
 * What the end-to-end benchmarks run against: a simulated cluster, the real product on top of it
 * (policy, sandbox, audit), and an MCP client connected to the real server — in memory or over
 * Streamable HTTP. State, cache and audit files go to a temporary directory removed on close.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parseAppConfig } from '../../src/app/config/app-config.js';
import { Product } from '../../src/app/product.js';
import { PveClient } from '../../src/client/client.js';
import { connectInMemory as connectServerInMemory, type InMemoryConnection } from '../../src/server/in-memory.js';
import { createMcpServer } from '../../src/server/mcp.js';
import { startHttpServer, type RunningHttpServer } from '../../src/server/http.js';
import type { RunningSimulator } from '../../src/simulator/index.js';

/** MCP requests in benchmarks may run long (thousands of calls on big clusters). */
export const TOOL_TIMEOUT_MS = 600_000;

/**
 * The benchmark's policy: the operator preset without approvals (nobody is there to approve) and
 * budgets raised so one script can touch every guest of a 10,000-guest cluster.
 */
const BENCH_POLICY = {
  preset: 'operator',
  approval: { require: [] },
  budget: { read: 50_000, write: 5_000, destructive: 5_000, calls: 100_000, guests: 10_000 },
};

export interface ProductOptions {
  sandbox?: { workers?: number; idleMs?: number; typecheck?: { idleMs?: number }; limits?: Record<string, number> };
}

/** Where a simulator listens and how to log in: all a product configuration needs. */
export type SimulatorEndpoint = Pick<RunningSimulator, 'url' | 'fingerprint' | 'token'>;

/**
 * Sessions one principal may hold on a benchmark's HTTP server: the soak and the concurrency table
 * connect up to 32 clients with the one bearer token, and past the per-principal cap (16 by
 * default) the server would close the longest-idle of them, which then meet "Session not found".
 */
const BENCH_SESSIONS_PER_PRINCIPAL = 64;

/** The configuration file a benchmark server uses, with its state under `dir`. */
export function benchConfig(sim: SimulatorEndpoint, dir: string, options: ProductOptions = {}): Record<string, unknown> {
  return {
    clusters: {
      bench: {
        url: sim.url,
        auth: { tokenId: sim.token.id, secret: sim.token.secret },
        tls: { fingerprint: sim.fingerprint },
        policy: 'bench',
      },
    },
    policies: { bench: BENCH_POLICY },
    cacheDir: join(dir, 'cache'),
    stateDir: join(dir, 'state'),
    // Keyed as in production, with a key of its own: a benchmark writes nothing to the home directory.
    audit: { hmacKey: 'bench-audit-key-not-a-secret' },
    http: { sessionsPerPrincipal: BENCH_SESSIONS_PER_PRINCIPAL },
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
  };
}

export async function openProduct(sim: SimulatorEndpoint, options: ProductOptions = {}): Promise<{ product: Product; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'pve-bench-'));
  try {
    const config = await parseAppConfig(benchConfig(sim, dir, options), { source: 'benchmark', baseDir: dir });
    const product = await Product.open({ config, log: (line) => process.stderr.write(`[product] ${line}\n`) });
    return {
      product,
      async close() {
        await product.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/** An MCP client connected in memory to a fresh server session of `product`. */
export function connectInMemory(product: Product): Promise<InMemoryConnection> {
  return connectServerInMemory(product, 'pve-code-mcp-bench');
}

/** The product served over Streamable HTTP on loopback, one MCP session per client. */
export async function serveHttp(product: Product): Promise<RunningHttpServer> {
  return startHttpServer(() => createMcpServer(product), { port: 0, log: () => undefined, maxSessionsPerPrincipal: BENCH_SESSIONS_PER_PRINCIPAL });
}

export async function connectHttp(server: Pick<RunningHttpServer, 'url' | 'token'>): Promise<{ client: Client; close(): Promise<void> }> {
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: { authorization: `Bearer ${server.token}` } },
  });
  const client = new Client({ name: 'pve-code-mcp-bench', version: '1' });
  await client.connect(transport);
  return {
    client,
    async close() {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

/** The PVE client a tool-per-operation server (or a hand-written program) would use. */
export function directClient(sim: SimulatorEndpoint): PveClient {
  return new PveClient({
    name: 'bench',
    url: sim.url,
    auth: { kind: 'token', tokenId: sim.token.id, secret: sim.token.secret },
    tls: { fingerprint: sim.fingerprint },
  });
}

export interface ScriptRun {
  ok: boolean;
  /** What the script returned (structured content). */
  result: unknown;
  /** The text the model reads. */
  text: string;
  error?: unknown;
  /** Type-check findings that did not block the run. */
  warnings: number;
}

/** `run_script` through an MCP client (type-checked unless `typecheck: false`). */
export async function runScript(client: Client, code: string, options: { typecheck?: boolean } = {}): Promise<ScriptRun> {
  const args = { code, ...(options.typecheck === false ? { typecheck: false } : {}) };
  const res = (await client.callTool({ name: 'run_script', arguments: args }, undefined, { timeout: TOOL_TIMEOUT_MS })) as CallToolResult;
  const structured = (res.structuredContent ?? {}) as { ok?: boolean; result?: unknown; error?: unknown; warnings?: unknown[] };
  return {
    ok: structured.ok === true && !res.isError,
    result: structured.result,
    text: textOf(res),
    error: structured.error,
    warnings: structured.warnings?.length ?? 0,
  };
}

/** `run_script` that must succeed: a failed run stops the benchmark with the run's text. */
export async function mustRun(client: Client, code: string, typecheck = true): Promise<void> {
  const run = await runScript(client, code, { typecheck });
  if (!run.ok) throw new Error(`benchmark script failed: ${run.text}`);
}

export function textOf(result: CallToolResult): string {
  return (result.content ?? []).map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
}
