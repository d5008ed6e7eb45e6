/**
 * `schema` suite: what it costs to go from the official 9.1 apidoc file to a searchable, typed API,
 * and how well and how fast search_api answers the query set.
 *
 * Load is split the way the loader works: parse (bracket-match and JSON.parse the apiSchema array),
 * normalize (operations, hash, model), index (search engine), types (TypeScript declarations).
 * "cold" is the first load in a fresh process (JIT cold, as on server start): each cold sample runs
 * in its own child process, since one sample on a shared machine says little; "warm" repeats the
 * load in this process. Targets: cold load + index + types ≤ 500 ms; search p50 ≤ 2 ms.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { z } from 'zod';
import { extractApidocArray } from '../src/schema/extract.js';
import { hashSchemaTree } from '../src/schema/hash.js';
import { ApiModel } from '../src/schema/model.js';
import { normalizeSchema } from '../src/schema/normalize.js';
import { OFFICIAL_SCHEMA_SKIP_MESSAGE, hasOfficialSchema, officialSchemaFile } from '../src/schema/official-schemas.js';
import { ApiSearch } from '../src/search/engine.js';
import { generateApiDeclarations } from '../src/typegen/index.js';
import { ms, pct, ratio, summarize, withinTarget, type Cell, type Table } from './lib/table.js';
import type { SuiteContext } from './lib/suite.js';
import { readQuerySet, recallAt, type QueryCase } from './search-queries.js';

const VERSION = '9.1';
const LOAD_TARGET_MS = 500;
const SEARCH_P50_TARGET_MS = 2;
const RECALL5_TARGET = 0.95;
const RECALL1_TARGET = 0.75;

const PHASES = ['read', 'parse', 'normalize', 'index', 'types'] as const;
type Phase = (typeof PHASES)[number];

/** Wall and CPU milliseconds per phase. CPU (user + system, all threads) suffers less from a busy machine. */
interface LoadTiming {
  wall: Record<Phase, number>;
  cpu: Record<Phase, number>;
}

const phaseTimes = z.object({ read: z.number(), parse: z.number(), normalize: z.number(), index: z.number(), types: z.number() });
const LoadTimingSchema = z.object({ wall: phaseTimes, cpu: phaseTimes });

/** Argument that makes this module, run as a script, do one cold load and print its timing as JSON. */
const COLD_LOAD_ARG = '--cold-load';
const thisFile = fileURLToPath(import.meta.url);

export async function schemaSuite({ quick }: SuiteContext): Promise<Table[]> {
  if (!hasOfficialSchema(VERSION)) throw new Error(OFFICIAL_SCHEMA_SKIP_MESSAGE);
  const file = officialSchemaFile(VERSION);
  const cold: LoadTiming[] = [];
  for (let i = 0; i < (quick ? 3 : 7); i++) cold.push(await coldLoadInFreshProcess());
  // The first load here only warms the JIT; it is a cold sample like the ones above, not a warm one.
  const warmRuns = quick ? 3 : 10;
  const warm: LoadTiming[] = [];
  let loaded: { model: ApiModel; search: ApiSearch } | undefined;
  for (let i = 0; i <= warmRuns; i++) {
    const { timing, model, search } = await timedLoad(file);
    if (i > 0) warm.push(timing);
    loaded ??= { model, search };
  }
  const { model, search } = loaded as { model: ApiModel; search: ApiSearch };
  const querySet = readQuerySet();
  return [loadTable(cold, warm, model), searchLatencyTable(model, querySet.queries, querySet.holdout, quick ? 3 : 20), recallTable(search, querySet.queries, querySet.holdout)];
}

/** One load in a new Node process running this module with {@link COLD_LOAD_ARG}. */
async function coldLoadInFreshProcess(): Promise<LoadTiming> {
  const { stdout } = await promisify(execFile)(process.execPath, [...process.execArgv, thisFile, COLD_LOAD_ARG], { encoding: 'utf8' });
  return LoadTimingSchema.parse(JSON.parse(stdout));
}

async function timedLoad(file: string): Promise<{ timing: LoadTiming; model: ApiModel; search: ApiSearch }> {
  const timing: LoadTiming = { wall: { read: 0, parse: 0, normalize: 0, index: 0, types: 0 }, cpu: { read: 0, parse: 0, normalize: 0, index: 0, types: 0 } };
  let wallMark = performance.now();
  let cpuMark = process.cpuUsage();
  const lap = (phase: Phase) => {
    const now = performance.now();
    timing.wall[phase] = now - wallMark;
    timing.cpu[phase] = cpuMs(cpuMark);
    wallMark = now;
    cpuMark = process.cpuUsage();
  };
  const text = await readFile(file, 'utf8');
  lap('read');
  const tree = extractApidocArray(text, file);
  lap('parse');
  const { operations, paths } = normalizeSchema(tree, file);
  const model = new ApiModel(operations, hashSchemaTree(tree), { kind: 'file', location: file }, paths);
  lap('normalize');
  const search = new ApiSearch(model);
  lap('index');
  generateApiDeclarations(model);
  lap('types');
  return { timing, model, search };
}

function loadTable(cold: LoadTiming[], warm: LoadTiming[], model: ApiModel): Table {
  const sum = (phases: Record<Phase, number>) => PHASES.reduce((acc, p) => acc + phases[p], 0);
  const row = (label: string, loads: LoadTiming[], kind: keyof LoadTiming, pick: (values: number[]) => number, target: boolean): Cell[] => {
    const total = pick(loads.map((l) => sum(l[kind])));
    return [label, ...PHASES.map((p) => ms(pick(loads.map((l) => l[kind][p])))), ms(total), target ? withinTarget(total, LOAD_TARGET_MS) : ''];
  };
  const median = (v: number[]) => summarize(v).median;
  const max = (v: number[]) => summarize(v).max;
  return {
    title: `schema load: official PVE ${VERSION} apidoc → model + search index + declarations (ms; ${model.operations.length} operations, ${model.paths.length} paths)`,
    columns: ['run', ...PHASES, 'total', 'target ≤ 500'],
    rows: [
      row(`cold median, wall (n=${cold.length})`, cold, 'wall', median, true),
      row('cold median, cpu', cold, 'cpu', median, true),
      row('cold max, cpu', cold, 'cpu', max, false),
      row(`warm median, wall (n=${warm.length})`, warm, 'wall', median, false),
      row('warm median, cpu', warm, 'cpu', median, false),
      row('warm p95, wall', warm, 'wall', (v) => summarize(v).p95, false),
    ],
    notes: [
      'cold = first load in a fresh process (JIT cold, as at server start), one child process per sample; each column is the median (or max) of that phase, total of the totals.',
      'cpu = process CPU time (user + system, GC and compiler threads included).',
      `cold/warm wall total: ${ratio(median(cold.map((l) => sum(l.wall))), median(warm.map((l) => sum(l.wall))))}. On a busy machine wall time exceeds cpu time: compare runs on the same machine.`,
    ],
  };
}

function searchLatencyTable(model: ApiModel, queries: QueryCase[], holdout: QueryCase[], repeats: number): Table {
  const all = [...queries, ...holdout].map((q) => q.query);
  // A fresh engine: the first pass pays for term lookups that later passes find in the term cache.
  const search = new ApiSearch(model);
  const first = all.map((q) => timed(() => search.search(q)));
  const warm: Array<{ wall: number; cpu: number }> = [];
  for (let i = 0; i < repeats; i++) for (const q of all) warm.push(timed(() => search.search(q)));
  const row = (label: string, samples: Array<{ wall: number; cpu: number }>): Cell[] => {
    const s = summarize(samples.map((x) => x.wall));
    const cpu = summarize(samples.map((x) => x.cpu));
    return [label, s.n, ms(s.median), ms(s.p95), ms(s.max), ms(cpu.median), withinTarget(s.median, SEARCH_P50_TARGET_MS)];
  };
  return {
    title: `search latency: ApiSearch.search over ${all.length} queries (limit 10, ms)`,
    columns: ['pass', 'n', 'p50', 'p95', 'max', 'cpu p50', 'target p50 ≤ 2'],
    rows: [row('first (cold term cache)', first), row(`warm (×${repeats})`, warm)],
  };
}

function recallTable(search: ApiSearch, queries: QueryCase[], holdout: QueryCase[]): Table {
  const rows: Cell[][] = [];
  const tuned = recallAt(search, queries);
  rows.push(['query set', queries.length, pct(tuned.recall1), pct(tuned.recall5), tuned.recall1 >= RECALL1_TARGET && tuned.recall5 >= RECALL5_TARGET ? 'ok' : 'MISSED']);
  if (holdout.length > 0) {
    const held = recallAt(search, holdout);
    rows.push(['holdout', holdout.length, pct(held.recall1), pct(held.recall5), '']);
  }
  const misses = tuned.cases.filter((c) => c.rank === undefined).map((c) => `"${c.query}"`);
  return {
    title: `search recall on bench/search-queries.json (PVE ${VERSION})`,
    columns: ['set', 'queries', 'recall@1', 'recall@5', 'target @1 ≥ 75%, @5 ≥ 95%'],
    rows,
    notes: misses.length > 0 ? [`query set, not in the top 5: ${misses.join(', ')}`] : [],
  };
}

function timed(run: () => unknown): { wall: number; cpu: number } {
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  run();
  return { wall: performance.now() - start, cpu: cpuMs(cpuStart) };
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

if (process.argv[1] === thisFile && process.argv[2] === COLD_LOAD_ARG) {
  const { timing } = await timedLoad(officialSchemaFile(VERSION));
  process.stdout.write(JSON.stringify(timing));
}
