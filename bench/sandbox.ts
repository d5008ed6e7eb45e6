/**
 * `sandbox` suite: what running a script costs on top of the work it does.
 *
 *   overhead   `return 1` end to end (transpile → worker → fresh isolate → outcome), cold (new
 *              engine, worker process start included) and warm. Target: warm p50 ≤ 15 ms.
 *   typecheck  a 30-line script against the full PVE 9.1 SDK declarations with the warm language
 *              service, in this process and through the type-check process the server uses
 *              (round trip). Targets: p50 ≤ 150 ms, p95 ≤ 500 ms.
 *   bridge     1,000 sequential GETs through the sandbox against the simulator over HTTPS, compared
 *              with the same client called directly (target ≤ 1.3×); 50 parallel GETs both ways
 *              (limited by the client's own concurrency cap); and the bare bridge with an
 *              in-memory handler.
 */
import type { BridgeHandler } from '../src/bridge/protocol.js';
import { loadSchemaFromFile } from '../src/schema/loader.js';
import { OFFICIAL_SCHEMA_SKIP_MESSAGE, hasOfficialSchema, officialSchemaFile } from '../src/schema/official-schemas.js';
import { SandboxEngine } from '../src/sandbox/engine.js';
import { transpileScript } from '../src/script/transpile.js';
import { TypeCheckService } from '../src/script/typecheck-service.js';
import { ScriptChecker } from '../src/script/typecheck.js';
import { DEFAULT_MAX_CONCURRENCY } from '../src/client/transport.js';
import { startSimulator } from '../src/simulator/index.js';
import { sdkDeclarationFiles } from '../src/typegen/index.js';
import { measureChannelFloor } from './lib/channel-echo.js';
import { startSimulatorProcess } from './lib/simulator-process.js';
import { ms, ratio, summarize, withinTarget, type Table } from './lib/table.js';
import { directClient, type SimulatorEndpoint } from './tokens/environment.js';
import type { SuiteContext } from './lib/suite.js';

const WARM_P50_TARGET_MS = 15;
const CHECK_P50_TARGET_MS = 150;
const CHECK_P95_TARGET_MS = 500;
const SEQUENTIAL_RATIO_TARGET = 1.3;
const SLOW_NODE_MS = 5;

export async function sandboxSuite({ quick }: SuiteContext): Promise<Table[]> {
  const tables = [await overheadTable(quick ? 30 : 200, quick ? 2 : 5)];
  tables.push(hasOfficialSchema('9.1') ? await typecheckTable(quick ? 10 : 60) : { title: 'type-check against the PVE 9.1 SDK: skipped', columns: ['reason'], rows: [[OFFICIAL_SCHEMA_SKIP_MESSAGE]] });
  tables.push(await bridgeTable(quick ? 200 : 1_000, quick ? 2 : 5));
  return tables;
}

async function timeRun(engine: SandboxEngine, code: string, handler: BridgeHandler): Promise<number> {
  const t0 = performance.now();
  const o = await engine.run({ code, typecheck: false }, handler);
  const elapsed = performance.now() - t0;
  if (!o.ok) throw new Error(`benchmark script failed: ${o.error?.message}`);
  return elapsed;
}

const noCalls: BridgeHandler = async () => ({ ok: true, data: null });

async function overheadTable(warmRuns: number, coldRuns: number): Promise<Table> {
  const cold: number[] = [];
  for (let i = 0; i < coldRuns; i++) {
    const engine = new SandboxEngine({ workers: 1 });
    try {
      cold.push(await timeRun(engine, 'return 1;', noCalls));
    } finally {
      await engine.close();
    }
  }
  const engine = new SandboxEngine({ workers: 1, recycleAfterRuns: 1_000_000 });
  const warm: number[] = [];
  const transpile: number[] = [];
  try {
    await engine.warm();
    for (let i = 0; i < 10; i++) await timeRun(engine, 'return 1;', noCalls);
    for (let i = 0; i < warmRuns; i++) {
      const code = `return ${i};`;
      const t0 = performance.now();
      transpileScript(code);
      transpile.push(performance.now() - t0);
      warm.push(await timeRun(engine, code, noCalls));
    }
  } finally {
    await engine.close();
  }
  const c = summarize(cold);
  const w = summarize(warm);
  const t = summarize(transpile);
  return {
    title: 'run_script overhead: `return 1` end to end, type-check off (ms)',
    columns: ['case', 'n', 'p50', 'p95', 'max', `target p50 ≤ ${WARM_P50_TARGET_MS}`],
    rows: [
      ['cold (new engine: worker start + first run)', c.n, ms(c.median), ms(c.p95), ms(c.max), ''],
      ['warm', w.n, ms(w.median), ms(w.p95), ms(w.max), withinTarget(w.median, WARM_P50_TARGET_MS)],
      ['  of which transpile', t.n, ms(t.median), ms(t.p95), ms(t.max), ''],
    ],
    notes: ['warm = worker already running; each run still gets a fresh isolate, context and prelude.'],
  };
}

/** A realistic 30-line script: reads, filters, a write with a task wait, error handling. */
function thirtyLineScript(i: number): string {
  return [
    "const nodes = await pve.get('/nodes');",
    "const online = nodes.filter((n) => n.status === 'online');",
    'const report: Array<{ node: string; running: number; stopped: number }> = [];',
    'for (const n of online) {',
    "  const vms = await pve.get('/nodes/{node}/qemu', { node: n.node });",
    "  const running = vms.filter((v) => v.status === 'running').length;",
    '  report.push({ node: n.node, running, stopped: vms.length - running });',
    '}',
    "const resources = await pve.get('/cluster/resources', { type: 'vm' });",
    'const big = resources.filter((r) => (r.maxmem ?? 0) > 8 * 1024 ** 3);',
    `const target = ${100 + i};`,
    'const guest = big.find((r) => r.vmid === target);',
    'if (guest && guest.node) {',
    '  try {',
    "    const upid = await pve.post('/nodes/{node}/qemu/{vmid}/status/shutdown', {",
    '      node: guest.node,',
    '      vmid: target,',
    '      timeout: 60,',
    '    });',
    '    const task = await pve.waitTask(upid, { timeoutMs: 120_000 });',
    "    console.log('shutdown', target, task.exitstatus);",
    '  } catch (e) {',
    "    console.error('shutdown failed', String(e));",
    '  }',
    '}',
    "const storage = await pve.get('/nodes/{node}/storage', { node: online[0]?.node ?? 'pve1' });",
    'const free = storage.map((s) => ({ id: s.storage, free: (s.avail ?? 0) / 1024 ** 3 }));',
    "console.log('storages', free.length);",
    'const totalRunning = report.reduce((acc, r) => acc + r.running, 0);',
    'return { report, totalRunning, bigGuests: big.length, free };',
  ].join('\n');
}

async function typecheckTable(runs: number): Promise<Table> {
  const t0 = performance.now();
  const model = await loadSchemaFromFile(officialSchemaFile('9.1'));
  const files = sdkDeclarationFiles(model);
  const loadMs = performance.now() - t0;
  const t1 = performance.now();
  const checker = new ScriptChecker({ files, model });
  const first = checker.check(thirtyLineScript(0), { budgetMs: Number.POSITIVE_INFINITY });
  const coldMs = performance.now() - t1;
  if (!first.ok) throw new Error(`the benchmark script does not type-check: ${first.errors.map((d) => d.message).join('; ')}`);
  const warm: number[] = [];
  const cpu: number[] = [];
  for (let i = 1; i <= runs; i++) {
    const cpu0 = process.cpuUsage();
    warm.push(checker.check(thirtyLineScript(i), { budgetMs: Number.POSITIVE_INFINITY }).ms);
    const used = process.cpuUsage(cpu0);
    cpu.push((used.user + used.system) / 1000);
  }
  checker.dispose();

  const checkers = new TypeCheckService({ recycleAfterChecks: 1_000_000 });
  const remoteWall: number[] = [];
  const remoteCpu: number[] = [];
  let remoteColdMs: number;
  try {
    const remote = checkers.checker(files, model);
    const t2 = performance.now();
    await checkers.warm();
    remoteColdMs = performance.now() - t2;
    for (let i = 1; i <= runs; i++) {
      const cpu0 = process.cpuUsage();
      const t = performance.now();
      const result = await remote.check(thirtyLineScript(i), { budgetMs: Number.POSITIVE_INFINITY });
      remoteWall.push(performance.now() - t);
      const used = process.cpuUsage(cpu0);
      remoteCpu.push((used.user + used.system) / 1000);
      if (!result.ok || result.warnings.length > 0) throw new Error(`the checker process answered differently: ${JSON.stringify(result.warnings.concat(result.errors))}`);
    }
  } finally {
    await checkers.close();
  }

  const s = summarize(warm);
  const c = summarize(cpu);
  const r = summarize(remoteWall);
  const rc = summarize(remoteCpu);
  const bytes = files.reduce((n, f) => n + f.text.length, 0);
  return {
    title: `type-check: 30-line script against the PVE 9.1 SDK (${model.operations.length} operations, ${(bytes / 1024).toFixed(0)} KB of declarations) (ms)`,
    columns: ['case', 'n', 'p50', 'p95', 'max', `target p50 ≤ ${CHECK_P50_TARGET_MS}`, `target p95 ≤ ${CHECK_P95_TARGET_MS}`],
    rows: [
      ['schema load + declarations (once per schema)', 1, ms(loadMs), '', '', '', ''],
      ['cold: new language service + first check', 1, ms(coldMs), '', '', '', ''],
      ['warm check, wall', s.n, ms(s.median), ms(s.p95), ms(s.max), withinTarget(s.median, CHECK_P50_TARGET_MS), withinTarget(s.p95, CHECK_P95_TARGET_MS)],
      ['warm check, cpu', c.n, ms(c.median), ms(c.p95), ms(c.max), '', ''],
      ['type-check process: start + build + warm (once per process)', 1, ms(remoteColdMs), '', '', '', ''],
      ['warm check through the process, round trip', r.n, ms(r.median), ms(r.p95), ms(r.max), withinTarget(r.median, CHECK_P50_TARGET_MS), withinTarget(r.p95, CHECK_P95_TARGET_MS)],
      ['  of which server cpu', rc.n, ms(rc.median), ms(rc.p95), ms(rc.max), '', ''],
    ],
    notes: [
      `warnings on the benchmark script: ${first.warnings.length}; the server warms the checker when a schema loads.`,
      'cpu = process CPU time (user + system, GC threads included); on a busy machine wall time exceeds it.',
      'through the process = what the server does: the check runs in the type-check child; the server only queues it and validates the answer.',
    ],
  };
}

async function bridgeTable(calls: number, reps: number): Promise<Table> {
  const rows: Table['rows'] = [];
  const floorUs = await measureChannelFloor(calls, reps);
  rows.push(['channel round trip between two Node processes, nothing else done (the floor per call)', '', ms(floorUs), '', '']);
  // Where the simulator runs changes what "direct" costs: in this process the client and the
  // simulator share one event loop and never wait for another process; in its own process (as a
  // real node is another machine) both arms pay the same network round trip.
  const own = await startSimulatorProcess();
  try {
    rows.push(...(await bridgeRows(own, 'simulator in its own process', calls, reps, floorUs)));
  } finally {
    await own.close();
  }
  const inProcess = await startSimulator({ authFailureDelayMs: 0 });
  try {
    rows.push(...(await bridgeRows(inProcess, 'simulator in this process', calls, reps, floorUs)));
  } finally {
    await inProcess.close();
  }
  // A node that takes a few ms per request, as real ones do: parallel calls then show whether
  // the sandbox keeps the client's concurrency cap busy.
  const slow = await startSimulator({ authFailureDelayMs: 0, faults: { rules: [{ path: '/version', latencyMs: SLOW_NODE_MS }] } });
  try {
    rows.push(...(await bridgeRows(slow, `node answering in ${SLOW_NODE_MS} ms`, Math.min(calls, 200), reps, floorUs)));
  } finally {
    await slow.close();
  }
  return {
    title: `bridge throughput against the simulator over HTTPS (median of ${reps} reps)`,
    columns: ['case', 'total ms', 'µs per call', 'vs direct', `target ≤ ${SEQUENTIAL_RATIO_TARGET}×`],
    rows,
    notes: [
      'the client queues beyond its own concurrency cap (4 by default); the sandbox allows more calls in flight than that.',
      'bridge alone = the same calls answered by an in-memory handler: the sandbox, channel and validation cost per call.',
      'the floor = two process wake-ups and the channel, measured between two bare Node processes: what a bridge that keeps the isolate in another process costs at the least on this machine.',
      `with a ${SLOW_NODE_MS} ms node, 50 parallel GETs cannot beat 50 / cap × ${SLOW_NODE_MS} ms (cap = the client's concurrency, 4): ${ms((50 / DEFAULT_MAX_CONCURRENCY) * SLOW_NODE_MS)} ms.`,
    ],
  };
}

async function bridgeRows(sim: SimulatorEndpoint, setup: string, calls: number, reps: number, floorUs: number): Promise<Table['rows']> {
  const client = directClient(sim);
  // A thin pass-through: the bench measures the sandbox bridge, not the policy layer.
  const viaClient: BridgeHandler = async (call, ctx) => {
    if (call.kind !== 'request') return { ok: false, error: { kind: 'invalid', message: 'not used here' } };
    try {
      return { ok: true, data: await client.request(call.method, call.path, call.params, { signal: ctx.signal }) };
    } catch (err) {
      return { ok: false, error: { kind: 'api', message: (err as Error).message } };
    }
  };
  const engine = new SandboxEngine({ workers: 1, limits: { wallMs: 600_000, maxParallelCalls: 64 } });
  try {
    await engine.warm();
    await client.request('GET', '/version');
    await timeRun(engine, `for (let i = 0; i < 50; i++) await pve.get('/version');`, viaClient);
    const direct: number[] = [];
    const bridged: number[] = [];
    const parallelDirect: number[] = [];
    const parallelBridged: number[] = [];
    const bare: number[] = [];
    for (let r = 0; r < reps; r++) {
      let t0 = performance.now();
      for (let i = 0; i < calls; i++) await client.request('GET', '/version');
      direct.push(performance.now() - t0);
      bridged.push(await timeRun(engine, `for (let i = 0; i < ${calls}; i++) await pve.get('/version');`, viaClient));
      t0 = performance.now();
      await Promise.all(Array.from({ length: 50 }, () => client.request('GET', '/version')));
      parallelDirect.push(performance.now() - t0);
      parallelBridged.push(await timeRun(engine, "await Promise.all(Array.from({ length: 50 }, () => pve.get('/version')));", viaClient));
      bare.push(await timeRun(engine, `for (let i = 0; i < ${calls}; i++) await pve.get('/version');`, noCalls));
    }
    const d = summarize(direct).median;
    const b = summarize(bridged).median;
    const pd = summarize(parallelDirect).median;
    const pb = summarize(parallelBridged).median;
    const bb = summarize(bare).median;
    const floored = d + (floorUs * calls) / 1000;
    return [
      [`${setup}: ${calls} sequential GET /version, client directly`, ms(d), ms((d / calls) * 1000), '', ''],
      [`${setup}: ${calls} sequential GET /version, through the sandbox`, ms(b), ms((b / calls) * 1000), ratio(b, d), withinTarget(b / d, SEQUENTIAL_RATIO_TARGET)],
      [`${setup}: client directly + the floor (the best any process boundary allows)`, ms(floored), ms((floored / calls) * 1000), ratio(floored, d), ''],
      [`${setup}: 50 parallel GETs, client directly`, ms(pd), '', '', ''],
      [`${setup}: 50 parallel GETs, through the sandbox`, ms(pb), '', ratio(pb, pd), ''],
      [`${setup}: ${calls} sequential calls, bridge alone`, ms(bb), ms((bb / calls) * 1000), '', ''],
    ];
  } finally {
    await engine.close();
    await client.close();
  }
}
