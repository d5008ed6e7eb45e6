/**
 * `soak` suite: scale and endurance of the real server process (`pve-code-mcp serve --http`,
 * started from dist/), measured from outside through /proc so the benchmark's own simulator and
 * clients do not count.
 *
 *   inventory  one run_script summarizing the 10,000-guest cluster (every guest, per node).
 *              Targets: ≤ 2 s, server RSS ≤ 250 MB. The sandbox worker's peak is reported apart.
 *   soak       32 MCP clients over Streamable HTTP running the token suite's read-only scripts in
 *              a loop for 60 s (`--quick`: 5 s). Targets: zero errors, ≤ 10% RSS growth after
 *              warm-up. Diagnostic runs follow with the type-check off: as shipped, with V8's
 *              defaults instead of the server's V8 settings, and with glibc told to give freed
 *              memory back (see docs/benchmarks.md, "Server memory").
 */
import { hasOfficialSchema, officialSchemaFile } from '../src/schema/official-schemas.js';
import { startSimulator } from '../src/simulator/index.js';
import type { SuiteContext } from './lib/suite.js';
import { ms, pct, summarize, withinTarget, type Cell, type Table } from './lib/table.js';
import { connectHttp, directClient, runScript, type SimulatorEndpoint } from './tokens/environment.js';
import { MemorySampler, processMemory, resetPeak, startServerProcess } from './tokens/processes.js';
import { prepareScenario } from './tokens/scenario.js';
import { snapshotPool, stopTagged } from './tokens/tasks-changes.js';
import { TOKEN_TASKS } from './tokens/tasks.js';

const INVENTORY_MS_TARGET = 2_000;
const INVENTORY_RSS_TARGET_MB = 250;
const SOAK_GROWTH_TARGET = 0.1;
const SOAK_CLIENTS = 32;
/** V8's own values of the flags `serve` sets (src/cli/v8-tuning.ts); given on the command line, serve keeps them. */
const V8_DEFAULT_FLAGS = ['--heap-growing-percent=0', '--max-optimized-bytecode-size=61440'];
/** glibc's default trim threshold, fixed: glibc stops raising it after large frees, so arenas keep freed memory. */
const GLIBC_TRIM_ENV = { MALLOC_TRIM_THRESHOLD_: '131072' };

interface SoakVariant {
  label: string;
  typecheck: boolean;
  nodeFlags?: string[];
  env?: Record<string, string>;
}

const INVENTORY_SCRIPT = `const [guests, nodes] = await Promise.all([pve.get('/cluster/resources', { type: 'vm' }), pve.get('/nodes')]);
const perNode: Record<string, { running: number; stopped: number; vcpus: number; memGiB: number }> = {};
for (const n of nodes) perNode[n.node] = { running: 0, stopped: 0, vcpus: 0, memGiB: 0 };
let running = 0;
let qemu = 0;
let templates = 0;
for (const g of guests) {
  if (g.template) { templates++; continue; }
  if (g.type === 'qemu') qemu++;
  const row = perNode[g.node as string];
  if (g.status !== 'running') { if (row) row.stopped++; continue; }
  running++;
  if (row) { row.running++; row.vcpus += g.maxcpu ?? 0; row.memGiB += (g.maxmem ?? 0) / 1024 ** 3; }
}
for (const row of Object.values(perNode)) row.memGiB = Math.round(row.memGiB);
return { guests: guests.length, running, qemu, lxc: guests.length - qemu - templates, templates, nodes: nodes.length, perNode };`;

export async function soakSuite({ quick }: SuiteContext): Promise<Table[]> {
  return [await inventoryTable(quick ? 2 : 5), await soakTable(quick ? 5_000 : 60_000)];
}

const mb = (value: number | undefined): string => (value === undefined || !Number.isFinite(value) ? '-' : value.toFixed(0));

async function inventoryTable(runs: number): Promise<Table> {
  const official = hasOfficialSchema('9.1');
  const sim = await startSimulator({ preset: 'scale-10000', port: 0, authFailureDelayMs: 0, ...(official ? { schemaFile: officialSchemaFile('9.1') } : {}) });
  const server = await startServerProcess(sim, { sandbox: { limits: { wallMs: 120_000 } } }).catch(async (err: unknown) => {
    await sim.close();
    throw err;
  });
  const rows: Cell[][] = [];
  const times: number[] = [];
  let peakServer = 0;
  let peakWorker = 0;
  let direct = Number.NaN;
  try {
    const mcp = await connectHttp(server);
    const pve = directClient(sim);
    try {
      await runScript(mcp.client, 'return 1;');
      const t0 = performance.now();
      await pve.request('GET', '/cluster/resources', { type: 'vm' });
      direct = performance.now() - t0;
      const expected = sim.cluster.guests().length;
      for (let i = 1; i <= runs; i++) {
        const before = processMemory(server.pid);
        const exactPeak = resetPeak(server.pid);
        const sampler = new MemorySampler(server.pid);
        const t = performance.now();
        const run = await runScript(mcp.client, INVENTORY_SCRIPT);
        const elapsed = performance.now() - t;
        sampler.stop();
        const after = processMemory(server.pid);
        const serverPeak = exactPeak && after ? Math.max(after.peakMb, sampler.peakServerMb) : sampler.peakServerMb;
        const counted = (run.result as { guests?: number } | undefined)?.guests;
        const answer = run.ok && counted === expected ? 'ok' : `WRONG (${run.ok ? `${counted} guests, expected ${expected}` : run.text.split('\n')[0]})`;
        times.push(elapsed);
        peakServer = Math.max(peakServer, serverPeak);
        peakWorker = Math.max(peakWorker, sampler.peakWorkerMb);
        rows.push([i, ms(elapsed), mb(before?.rssMb), mb(serverPeak), mb(sampler.peakWorkerMb), answer]);
      }
    } finally {
      await pve.close();
      await mcp.close();
    }
  } finally {
    await server.close();
    await sim.close();
  }
  const median = summarize(times).median;
  rows.push(['median / max', ms(median), '', `${mb(peakServer)} (${withinTarget(peakServer, INVENTORY_RSS_TARGET_MB)})`, mb(peakWorker), `time ${withinTarget(median, INVENTORY_MS_TARGET)}`]);
  return {
    title: `10,000-guest inventory: one run_script over HTTP against \`serve --http\` (${official ? 'PVE 9.1 official schema' : 'simulator schema'}) (ms, MB)`,
    columns: ['run', 'time', 'server RSS before', 'server peak RSS', 'worker peak RSS', 'answer'],
    rows,
    notes: [
      `targets: time ≤ ${INVENTORY_MS_TARGET} ms, server RSS ≤ ${INVENTORY_RSS_TARGET_MB} MB. For scale: GET /cluster/resources?type=vm alone takes ${ms(direct)} ms from the simulator.`,
      'server peak = VmHWM reset before each run (exact) or RSS sampled every 20 ms; worker = sandbox worker process, its own VmHWM.',
      'The answer is checked: the script must count every guest of the cluster.',
    ],
  };
}

interface SoakFigures {
  row: Cell[];
  series: Array<[number, number]>;
  errors: string[];
}

async function soakTable(durationMs: number): Promise<Table> {
  const official = hasOfficialSchema('9.1');
  const sim = await startSimulator({ preset: 'demo', port: 0, authFailureDelayMs: 0, ...(official ? { schemaFile: officialSchemaFile('9.1') } : {}) });
  const facts = prepareScenario(sim);
  const scripts = TOKEN_TASKS.filter((t) => t !== snapshotPool && t !== stopTagged).map((t) => t.codeMode(facts).script);
  const variants: SoakVariant[] = [
    { label: 'as shipped (type-check on)', typecheck: true },
    // The launch setting README recommends: glibc returns freed memory instead of keeping it.
    {
      label: `as shipped, launched with ${Object.entries(GLIBC_TRIM_ENV)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}`,
      typecheck: true,
      env: GLIBC_TRIM_ENV,
    },
    { label: 'type-check off', typecheck: false },
    { label: 'type-check off, V8 defaults', typecheck: false, nodeFlags: V8_DEFAULT_FLAGS },
    {
      label: `type-check off, ${Object.entries(GLIBC_TRIM_ENV)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}`,
      typecheck: false,
      env: GLIBC_TRIM_ENV,
    },
  ];
  const runs: Array<[string, SoakFigures]> = [];
  try {
    for (const v of variants) runs.push([v.label, await soak(sim, scripts, durationMs, v)]);
  } finally {
    await sim.close();
  }
  const warmupMs = Math.min(10_000, durationMs / 5);
  return {
    title: `soak: ${SOAK_CLIENTS} MCP clients over HTTP for ${(durationMs / 1000).toFixed(0)} s each, ${scripts.length} read-only task scripts in rotation (ms, MB)`,
    columns: ['server', 'runs', 'errors', 'runs/s', 'p50', 'p95', 'max', 'RSS start', 'RSS after warm-up', 'RSS end', 'RSS peak', 'growth', 'worker peak', 'target'],
    rows: runs.map(([label, f]) => [label, ...f.row]),
    notes: [
      `targets: zero errors, RSS growth ≤ ${pct(SOAK_GROWTH_TARGET)} from the end of the warm-up (first ${(warmupMs / 1000).toFixed(0)} s) to the end.`,
      "Each row is a fresh `serve --http` process. Diagnostics, type-check off: with V8's defaults instead of the",
      "heap growth and optimization limits `serve` sets (old-generation headroom, compiler memory), and with glibc's",
      'trim threshold fixed (memory freed inside malloc arenas goes back to the system). peak = sampled every 250 ms.',
      ...runs.map(
        ([label, f]) =>
          `RSS over time, ${label} (s: MB): ${f.series
            .filter((_, i) => i % Math.max(1, Math.floor(f.series.length / 12)) === 0)
            .map(([t, rss]) => `${(t / 1000).toFixed(0)}: ${rss.toFixed(0)}`)
            .join(', ')}`,
      ),
      ...runs.flatMap(([label, f]) => [...new Set(f.errors)].slice(0, 5).map((e) => `error (${label}): ${e}`)),
    ],
  };
}

async function soak(sim: SimulatorEndpoint, scripts: string[], durationMs: number, variant: SoakVariant): Promise<SoakFigures> {
  const { typecheck } = variant;
  const server = await startServerProcess(sim, { ...(variant.nodeFlags ? { nodeFlags: variant.nodeFlags } : {}), ...(variant.env ? { env: variant.env } : {}) });
  const latencies: number[] = [];
  const errors: string[] = [];
  const series: Array<[number, number]> = [];
  const warmupMs = Math.min(10_000, durationMs / 5);
  let workerPeak = 0;
  let serverPeak = 0;
  let start: number | undefined;
  let baseline: number | undefined;
  let end: number | undefined;
  try {
    start = processMemory(server.pid)?.rssMb;
    const clients = await Promise.all(Array.from({ length: SOAK_CLIENTS }, () => connectHttp(server)));
    const sampler = new MemorySampler(server.pid, 250);
    const t0 = performance.now();
    const recorder = setInterval(() => {
      const now = processMemory(server.pid);
      if (now) series.push([performance.now() - t0, now.rssMb]);
    }, 1_000);
    try {
      await Promise.all(
        clients.map(async ({ client }, c) => {
          for (let i = c; performance.now() - t0 < durationMs; i++) {
            const t = performance.now();
            try {
              const run = await runScript(client, scripts[i % scripts.length] as string, { typecheck });
              if (!run.ok) errors.push(run.text.split('\n')[0] ?? 'failed');
            } catch (err) {
              errors.push(err instanceof Error ? err.message : String(err));
            }
            latencies.push(performance.now() - t);
            if (baseline === undefined && performance.now() - t0 >= warmupMs) baseline = processMemory(server.pid)?.rssMb;
          }
        }),
      );
    } finally {
      clearInterval(recorder);
      sampler.stop();
      workerPeak = sampler.peakWorkerMb;
      serverPeak = sampler.peakServerMb;
      await Promise.all(clients.map((c) => c.close()));
    }
    end = processMemory(server.pid)?.rssMb;
  } finally {
    await server.close();
  }
  const s = summarize(latencies);
  const growth = baseline !== undefined && end !== undefined ? (end - baseline) / baseline : Number.NaN;
  const peak = Math.max(serverPeak, ...series.map(([, rss]) => rss));
  return {
    row: [
      latencies.length,
      errors.length,
      (latencies.length / (durationMs / 1000)).toFixed(1),
      ms(s.median),
      ms(s.p95),
      ms(s.max),
      mb(start),
      mb(baseline),
      mb(end),
      mb(peak),
      pct(growth),
      mb(workerPeak),
      errors.length === 0 && growth <= SOAK_GROWTH_TARGET ? 'ok' : 'MISSED',
    ],
    series,
    errors,
  };
}
