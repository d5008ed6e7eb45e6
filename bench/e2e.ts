/**
 * `e2e` suite: the whole product as an agent meets it — MCP client → server → policy, audit,
 * sandbox, bridge → PVE client → simulator (demo cluster, official 9.1 schema when present).
 *
 *   run_script   `return 1` through the MCP client: cold (first run of a freshly opened server),
 *                first run after warm() (what `serve` does at start), warm with and without the
 *                type-check. Target (sandbox issue): warm overhead p50 ≤ 15 ms.
 *   tools        search_api and get_schema in-process and through MCP, and the type-check of the
 *                token suite's real scripts. Targets: search p50 ≤ 2 ms; type-check p50 ≤ 150 ms,
 *                p95 ≤ 500 ms.
 *   bridge       1,000 sequential GETs in one script (policy + audit included) against the PVE
 *                client called directly. Target ≤ 1.3× the direct time.
 *   concurrency  N MCP clients over Streamable HTTP, each running an inventory script repeatedly.
 */
import type { Product } from '../src/app/product.js';
import { hasOfficialSchema, officialSchemaFile } from '../src/schema/official-schemas.js';
import { startSimulator, type RunningSimulator } from '../src/simulator/index.js';
import type { SuiteContext } from './lib/suite.js';
import { ms, ratio, summarize, withinTarget, type Cell, type Table } from './lib/table.js';
import { redactData } from '../src/safety/redact.js';
import { undoRecordOf } from '../src/safety/undo.js';
import { connectHttp, connectInMemory, directClient, mustRun, openProduct, runScript, serveHttp } from './tokens/environment.js';
import { prepareScenario } from './tokens/scenario.js';
import { TOKEN_TASKS } from './tokens/tasks.js';

const WARM_P50_TARGET_MS = 15;
const SEARCH_P50_TARGET_MS = 2;
const CHECK_P50_TARGET_MS = 150;
const CHECK_P95_TARGET_MS = 500;
const BRIDGE_RATIO_TARGET = 1.3;

const INVENTORY_SCRIPT = `const guests = await pve.get('/cluster/resources', { type: 'vm' });
const running = guests.filter((g) => g.status === 'running');
return { guests: guests.length, running: running.length, top: running.sort((a, b) => (b.cpu ?? 0) - (a.cpu ?? 0)).slice(0, 3).map((g) => g.vmid) };`;

export async function e2eSuite({ quick }: SuiteContext): Promise<Table[]> {
  const official = hasOfficialSchema('9.1');
  const sim = await startSimulator({ preset: 'demo', port: 0, authFailureDelayMs: 0, ...(official ? { schemaFile: officialSchemaFile('9.1') } : {}) });
  try {
    const schema = official ? 'PVE 9.1 official schema' : 'simulator schema';
    return [
      await runScriptTable(sim, quick ? 2 : 5, quick ? 40 : 200, schema),
      await toolTable(sim, quick ? 20 : 200, quick ? 3 : 10),
      await bridgeTable(sim, quick ? 200 : 1_000, quick ? 1 : 3),
      await configWriteTable(sim, quick ? 20 : 100, quick ? 1 : 3),
      await concurrencyTable(sim, quick ? [1, 4] : [1, 4, 8, 16, 32], quick ? 3 : 10),
    ];
  } finally {
    await sim.close();
  }
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function runScriptTable(sim: RunningSimulator, coldRuns: number, warmRuns: number, schema: string): Promise<Table> {
  const open: number[] = [];
  const cold: number[] = [];
  const afterWarm: number[] = [];
  for (let i = 0; i < coldRuns; i++) {
    for (const warmFirst of [false, true]) {
      const t0 = performance.now();
      const env = await openProduct(sim);
      open.push(performance.now() - t0);
      const mcp = await connectInMemory(env.product);
      try {
        if (warmFirst) await env.product.warm();
        (warmFirst ? afterWarm : cold).push(await time(() => mustRun(mcp.client, 'return 1;')));
      } finally {
        await mcp.close();
        await env.close();
      }
    }
  }
  const env = await openProduct(sim);
  const mcp = await connectInMemory(env.product);
  const checked: number[] = [];
  const unchecked: number[] = [];
  try {
    await env.product.warm();
    for (let i = 0; i < 10; i++) await mustRun(mcp.client, `return ${i};`);
    for (let i = 0; i < warmRuns; i++) {
      checked.push(await time(() => mustRun(mcp.client, `return ${i};`)));
      unchecked.push(await time(() => mustRun(mcp.client, `return ${i};`, false)));
    }
  } finally {
    await mcp.close();
    await env.close();
  }
  const row = (label: string, samples: number[], target = ''): Cell[] => {
    const s = summarize(samples);
    return [label, s.n, ms(s.median), ms(s.p95), ms(s.max), target];
  };
  return {
    title: `run_script end to end through the MCP client (in memory), \`return 1\` (${schema}) (ms)`,
    columns: ['case', 'n', 'p50', 'p95', 'max', `target p50 ≤ ${WARM_P50_TARGET_MS}`],
    rows: [
      row('server open (schema fetch + parse, search index)', open),
      row('cold: first run of a fresh server', cold),
      row('first run after warm() (as `serve` starts)', afterWarm),
      row('warm, type-check on (default)', checked, withinTarget(summarize(checked).median, WARM_P50_TARGET_MS)),
      row('warm, type-check off', unchecked, withinTarget(summarize(unchecked).median, WARM_P50_TARGET_MS)),
    ],
    notes: [
      'Includes MCP framing, zod validation of tool arguments, policy session, audit entry, sandbox worker round trip.',
      'cold: sandbox workers not started and the type-checker not built; warm() starts both.',
    ],
  };
}

async function toolTable(sim: RunningSimulator, reps: number, checkReps: number): Promise<Table> {
  const facts = prepareScenario(sim);
  const steps = TOKEN_TASKS.map((t) => t.codeMode(facts));
  const queries = [...new Set(steps.flatMap((s) => s.searches.map((q) => q.query)))];
  const schemaSets = steps.map((s) => s.schemas);
  const env = await openProduct(sim);
  const mcp = await connectInMemory(env.product);
  try {
    await env.product.warm();
    const product: Product = env.product;
    const samples = { search: [] as number[], searchMcp: [] as number[], describe: [] as number[], describeMcp: [] as number[], check: [] as number[] };
    for (let r = 0; r < reps; r++) {
      for (const query of queries) {
        const t0 = performance.now();
        await product.search(query);
        samples.search.push(performance.now() - t0);
        samples.searchMcp.push(await time(() => mcp.client.callTool({ name: 'search_api', arguments: { query } })));
      }
      for (const operations of schemaSets) {
        const t0 = performance.now();
        product.describe(operations);
        samples.describe.push(performance.now() - t0);
        samples.describeMcp.push(await time(() => mcp.client.callTool({ name: 'get_schema', arguments: { operations } })));
      }
    }
    // The checker runs use: the type-check process, round trip included.
    const checker = product.cluster().typeChecker();
    let warnings = 0;
    for (let r = 0; r < checkReps; r++) {
      for (const s of steps) {
        const t0 = performance.now();
        const result = await checker.check(s.script, { budgetMs: Number.POSITIVE_INFINITY });
        samples.check.push(performance.now() - t0);
        if (!result.ok) throw new Error(`a token-suite script does not type-check: ${result.errors.map((e) => e.message).join('; ')}`);
        if (r === 0) warnings += result.warnings.length;
      }
    }
    const row = (label: string, xs: number[], ...targets: string[]): Cell[] => {
      const s = summarize(xs);
      return [label, s.n, ms(s.median), ms(s.p95), ms(s.max), ...targets];
    };
    const check = summarize(samples.check);
    return {
      title: 'search_api, get_schema and type-check latency (ms)',
      columns: ['case', 'n', 'p50', 'p95', 'max', 'target'],
      rows: [
        row(`search_api, in-process (${queries.length} queries)`, samples.search, `p50 ≤ ${SEARCH_P50_TARGET_MS}: ${withinTarget(summarize(samples.search).median, SEARCH_P50_TARGET_MS)}`),
        row('search_api through MCP', samples.searchMcp, ''),
        row(`get_schema, in-process (${schemaSets.length} operation sets)`, samples.describe, ''),
        row('get_schema through MCP', samples.describeMcp, ''),
        row(
          `type-check of the ${steps.length} token-suite scripts, warm`,
          samples.check,
          `p50 ≤ ${CHECK_P50_TARGET_MS}: ${withinTarget(check.median, CHECK_P50_TARGET_MS)}, p95 ≤ ${CHECK_P95_TARGET_MS}: ${withinTarget(check.p95, CHECK_P95_TARGET_MS)}`,
        ),
      ],
      notes: [`the scripts drew ${warnings} type-check warning(s) in all.`],
    };
  } finally {
    await mcp.close();
    await env.close();
  }
}

async function bridgeTable(sim: RunningSimulator, calls: number, reps: number): Promise<Table> {
  const env = await openProduct(sim, { sandbox: { limits: { wallMs: 600_000 } } });
  const mcp = await connectInMemory(env.product);
  const client = directClient(sim);
  const rows: Cell[][] = [];
  try {
    await env.product.warm();
    await client.request('GET', '/version');
    const cases: Array<[string, string, Record<string, unknown>, number]> = [
      ['GET /version', '/version', {}, calls],
      ['GET /cluster/resources?type=vm (30 guests)', '/cluster/resources', { type: 'vm' }, Math.max(1, Math.round(calls / 5))],
    ];
    for (const [label, path, params, n] of cases) {
      const direct: number[] = [];
      const bridged: number[] = [];
      const script = `for (let i = 0; i < ${n}; i++) await pve.get(${JSON.stringify(path)}, ${JSON.stringify(params)});`;
      for (let r = 0; r < reps; r++) {
        direct.push(
          await time(async () => {
            for (let i = 0; i < n; i++) await client.request('GET', path, params);
          }),
        );
        bridged.push(await time(() => mustRun(mcp.client, script)));
      }
      const d = summarize(direct).median;
      const b = summarize(bridged).median;
      rows.push([`${n} × ${label}`, reps, ms(d), ms(b), ratio(b, d), ms((b - d) / n), withinTarget(b / d, BRIDGE_RATIO_TARGET)]);
    }
  } finally {
    await client.close();
    await mcp.close();
    await env.close();
  }
  return {
    title: 'bridge throughput: sequential GETs in one run_script vs the PVE client called directly (ms, medians)',
    columns: ['calls', 'reps', 'direct', 'run_script', 'ratio', 'extra per call', `target ≤ ${BRIDGE_RATIO_TARGET}×`],
    rows,
    notes: ['run_script time is the whole MCP round trip: sandbox, policy decision, budget and audit entry per call included.'],
  };
}

/**
 * Guest config writes through the bridge: what the undo record costs. Its previous values come
 * from the config the identity check already reads before every guest write, so the table counts
 * the config GETs per write (the read that undo needs is that one) and times the record itself.
 */
export async function configWriteTable(sim: RunningSimulator, writes: number, reps: number): Promise<Table> {
  const env = await openProduct(sim, { sandbox: { limits: { wallMs: 600_000 } } });
  const mcp = await connectInMemory(env.product);
  const client = directClient(sim);
  const rows: Cell[][] = [];
  try {
    await env.product.warm();
    const guests = (await client.request('GET', '/cluster/resources', { type: 'vm' })) as Array<{ vmid: number; node: string; type: string; template?: number }>;
    const g = guests.find((x) => x.type === 'qemu' && !x.template) as { vmid: number; node: string };
    const path = `/nodes/${g.node}/qemu/${g.vmid}/config`;
    const script = `for (let i = 0; i < ${writes}; i++) await pve.put(${JSON.stringify(path)}, { description: 'bench ' + i });`;
    const direct: number[] = [];
    const bridged: number[] = [];
    let gets = 0;
    for (let r = 0; r < reps; r++) {
      direct.push(
        await time(async () => {
          for (let i = 0; i < writes; i++) await client.request('PUT', path, { description: `direct ${i}` });
        }),
      );
      const before = sim.counters.snapshot().byOperation['GET /nodes/{node}/qemu/{vmid}/config'] ?? 0;
      bridged.push(await time(() => mustRun(mcp.client, script)));
      gets = (sim.counters.snapshot().byOperation['GET /nodes/{node}/qemu/{vmid}/config'] ?? 0) - before;
    }
    const d = summarize(direct).median;
    const b = summarize(bridged).median;
    rows.push([`${writes} × PUT ${path.replace(/\/\d+\//, '/{vmid}/')} (description)`, reps, ms(d), ms(b), ms((b - d) / writes), (gets / writes).toFixed(2)]);
    // The record alone, on this guest's config: two redactions and a comparison per key.
    const config = (await client.request('GET', path)) as Record<string, unknown>;
    const n = 10_000;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      undoRecordOf({
        method: 'PUT',
        template: '/nodes/{node}/qemu/{vmid}/config',
        pathValues: { node: g.node, vmid: String(g.vmid) },
        params: { description: 'x', memory: 8192 },
        config,
        redact: (v) => redactData(v, path) as Record<string, unknown>,
      });
    }
    rows.push([`undo record alone (${Object.keys(config).length}-key config, 2 keys set)`, n, '', `${(((performance.now() - t0) * 1000) / n).toFixed(1)} µs each`, '', '']);
  } finally {
    await client.close();
    await mcp.close();
    await env.close();
  }
  return {
    title: 'guest config writes through the bridge, with their undo record (ms, medians)',
    columns: ['writes', 'reps', 'direct', 'run_script', 'extra per write', 'config GETs per write'],
    rows,
    notes: ['The one config GET per write is the identity check (name and digest) every guest write already had; the undo record reuses it, so undo adds no request.'],
  };
}

async function concurrencyTable(sim: RunningSimulator, levels: number[], runsPerClient: number): Promise<Table> {
  const env = await openProduct(sim);
  const http = await serveHttp(env.product);
  const rows: Cell[][] = [];
  try {
    await env.product.warm();
    for (const n of levels) {
      const clients = await Promise.all(Array.from({ length: n }, () => connectHttp(http)));
      const latencies: number[] = [];
      let errors = 0;
      try {
        await runScript(clients[0]!.client, INVENTORY_SCRIPT);
        const t0 = performance.now();
        await Promise.all(
          clients.map(async ({ client }) => {
            for (let i = 0; i < runsPerClient; i++) {
              const t = performance.now();
              try {
                if (!(await runScript(client, INVENTORY_SCRIPT)).ok) errors++;
              } catch {
                errors++;
              }
              latencies.push(performance.now() - t);
            }
          }),
        );
        const wall = performance.now() - t0;
        const s = summarize(latencies);
        rows.push([n, latencies.length, ms(wall), (latencies.length / (wall / 1000)).toFixed(1), ms(s.median), ms(s.p95), ms(s.max), errors]);
      } finally {
        await Promise.all(clients.map((c) => c.close()));
      }
    }
  } finally {
    await http.close();
    await env.close();
  }
  return {
    title: `concurrent run_script over Streamable HTTP: N clients × ${runsPerClient} runs of an inventory script (ms)`,
    columns: ['clients', 'runs', 'wall', 'runs/s', 'p50', 'p95', 'max', 'errors'],
    rows,
    notes: ['2 sandbox workers (the default): runs beyond 2 queue for a worker, so latency grows with N while throughput levels off.'],
  };
}
