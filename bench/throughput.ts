/**
 * `throughput` suite: what the product adds to each bridged call, measured the way an operator
 * runs it — `pve-code-mcp serve` as its own process over stdio (MCP framing, sandbox worker,
 * policy, budget, audit), the simulator in another, and against them an independent keep-alive
 * HTTPS client in a third process making the same sequential GETs (bench/lib/direct-client.ts).
 * Direct and bridged repetitions alternate, so machine load falls on both alike.
 *
 * Targets (issue "One run pipeline"): 1,000 × `GET /version` within 1.8× the direct client,
 * 200 × `GET /cluster/resources?type=vm` within 1.5×. Also recorded: the server's start to its
 * first answer, and a warm `return 1` through MCP.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { hasOfficialSchema, officialSchemaFile } from '../src/schema/official-schemas.js';
import { repoRoot } from './lib/repo.js';
import { startSimulatorProcess, type SimulatorProcess } from './lib/simulator-process.js';
import type { SuiteContext } from './lib/suite.js';
import { ms, ratio, summarize, withinTarget, type Cell, type Table } from './lib/table.js';
import { benchConfig, mustRun, TOOL_TIMEOUT_MS } from './tokens/environment.js';

const VERSION_RATIO_TARGET = 1.8;
const RESOURCES_RATIO_TARGET = 1.5;

interface Case {
  label: string;
  path: string;
  query: Record<string, string>;
  n: number;
  target: number;
}

export async function throughputSuite({ quick }: SuiteContext): Promise<Table[]> {
  const official = hasOfficialSchema('9.1');
  const sim = await startSimulatorProcess(official ? { schemaFile: officialSchemaFile('9.1') } : {});
  const dir = mkdtempSync(join(tmpdir(), 'pve-bench-throughput-'));
  try {
    const configFile = join(dir, 'config.json');
    writeFileSync(configFile, JSON.stringify(benchConfig(sim, dir, { sandbox: { limits: { wallMs: 600_000 } } })), { mode: 0o600 });
    const startRows: Cell[][] = [];
    const server = await startServer(configFile, startRows);
    const direct = startDirectClient(sim);
    try {
      const cases: Case[] = [
        { label: 'GET /version', path: '/version', query: {}, n: quick ? 200 : 1_000, target: VERSION_RATIO_TARGET },
        { label: 'GET /cluster/resources?type=vm', path: '/cluster/resources', query: { type: 'vm' }, n: quick ? 40 : 200, target: RESOURCES_RATIO_TARGET },
      ];
      const reps = quick ? 2 : 5;
      const rows: Cell[][] = [];
      for (const c of cases) rows.push(await measureCase(c, reps, server.client, direct));
      const warm: number[] = [];
      for (let i = 0; i < (quick ? 20 : 100); i++) {
        const t = performance.now();
        await mustRun(server.client, 'return 1');
        warm.push(performance.now() - t);
      }
      const w = summarize(warm);
      return [
        {
          title: `bridged GETs: one run_script through \`serve\` over stdio vs an independent keep-alive HTTPS client, each in its own process (ms, medians of ${reps}, alternated)${official ? '' : ' — simulator schema, not the official one'}`,
          columns: ['calls', 'direct', 'run_script', 'ratio', 'extra per call', 'target'],
          rows,
          notes: ['run_script: the whole tools/call round trip — MCP over stdio, type-check, sandbox worker, policy decision, budget, redaction and an audit entry per call.'],
        },
        {
          title: '`serve` over stdio: start and a warm run (ms)',
          columns: ['case', 'n', 'p50', 'p95', 'max'],
          rows: [...startRows, ['warm run_script `return 1` through MCP', w.n, ms(w.median), ms(w.p95), ms(w.max)]],
        },
      ];
    } finally {
      direct.close();
      await server.close();
    }
  } finally {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measureCase(c: Case, reps: number, client: Client, direct: DirectClient): Promise<Cell[]> {
  const script = `for (let i = 0; i < ${c.n}; i++) await pve.get(${JSON.stringify(c.path)}, ${JSON.stringify(c.query)});`;
  // One untimed round of each: connections open, caches and JIT warm.
  await direct.run(c.path, c.query, Math.min(c.n, 20));
  await mustRun(client, script);
  const directMs: number[] = [];
  const bridgedMs: number[] = [];
  for (let r = 0; r < reps; r++) {
    directMs.push(await direct.run(c.path, c.query, c.n));
    const t = performance.now();
    await mustRun(client, script);
    bridgedMs.push(performance.now() - t);
  }
  const d = summarize(directMs).median;
  const b = summarize(bridgedMs).median;
  return [`${c.n} × ${c.label}`, ms(d), ms(b), ratio(b, d), ms((b - d) / c.n), `${withinTarget(b / d, c.target)} (≤ ${c.target}×)`];
}

/** `serve` over stdio from dist/, timing its start: spawn → initialize answered → first `return 1` answered. */
async function startServer(configFile: string, rows: Cell[][]): Promise<{ client: Client; close(): Promise<void> }> {
  const started = performance.now();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(repoRoot(), 'dist', 'src', 'cli', 'bin.js'), 'serve', '--config', configFile],
    stderr: 'ignore',
  });
  const client = new Client({ name: 'pve-code-mcp-bench', version: '1' });
  await client.connect(transport, { timeout: TOOL_TIMEOUT_MS });
  const initialized = performance.now() - started;
  await mustRun(client, 'return 1');
  const firstRun = performance.now() - started;
  rows.push(['start → initialize answered', 1, ms(initialized), '', ''], ['start → first run_script `return 1` answered', 1, ms(firstRun), '', '']);
  return { client, close: () => client.close() };
}

interface DirectClient {
  run(path: string, query: Record<string, string>, n: number): Promise<number>;
  close(): void;
}

function startDirectClient(sim: SimulatorProcess): DirectClient {
  const script = join(repoRoot(), 'dist', 'bench', 'lib', 'direct-client.js');
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [script, sim.url, sim.token.header], { stdio: 'pipe' });
  child.stderr.pipe(process.stderr);
  const answers = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    async run(path, query, n) {
      child.stdin.write(`${JSON.stringify({ path, query, n })}\n`);
      const next = await answers.next();
      if (next.done) throw new Error(`the direct client exited (code ${child.exitCode})`);
      return (JSON.parse(next.value) as { ms: number }).ms;
    },
    close: () => child.stdin.end(),
  };
}
