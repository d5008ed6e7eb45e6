/**
 * `tokens` suite: context tokens of code mode against one MCP tool per API operation, for the
 * operator tasks of tasks.ts on the `demo` cluster and a 2,000-guest cluster (`--quick`: demo only).
 *
 * Per task, each arm's context = its tool definitions + the tool calls + their results.
 * Targets: code mode's tools/list ≤ 700 tokens; multi-step tasks ≥ 90% fewer tokens than the
 * tool-per-operation arm; single-call tasks at most 20% more. Targets are judged against the
 * minimal-schema arm (the stronger competitor) and also on the work alone (definitions excluded).
 * `BENCH_TRANSCRIPTS=<dir>` writes every transcript there for inspection.
 */
import { OFFICIAL_SCHEMA_SKIP_MESSAGE, hasOfficialSchema, officialSchemaFile } from '../../src/schema/official-schemas.js';
import type { SuiteContext } from '../lib/suite.js';
import { pct, ratio, withinTarget, type Cell, type Table } from '../lib/table.js';
import { TOKENIZER } from './count.js';
import { measureTokens, type ClusterFigures, type TaskFigures, type TokenFigures, type ToolListFigures } from './measure.js';

const TOOL_LIST_TARGET = 700;
const MULTI_STEP_MAX_SHARE = 0.1;
const SINGLE_CALL_MAX_SHARE = 1.2;

export async function tokensSuite({ quick }: SuiteContext): Promise<Table[]> {
  const official = hasOfficialSchema('9.1');
  const figures = await measureTokens({
    presets: quick ? ['demo'] : ['demo', 'scale-2000'],
    ...(official ? { schemaFile: officialSchemaFile('9.1') } : {}),
    ...(process.env.BENCH_TRANSCRIPTS ? { transcriptDir: process.env.BENCH_TRANSCRIPTS } : {}),
  });
  return tokenTables(figures, official ? 'PVE 9.1 official schema' : `simulator schema (${OFFICIAL_SCHEMA_SKIP_MESSAGE})`);
}

export function tokenTables(figures: TokenFigures, schemaLabel: string): Table[] {
  return [toolListTable(figures.toolList, schemaLabel), ...figures.clusters.map((c) => clusterTable(c, figures.toolList))];
}

function toolListTable(t: ToolListFigures, schemaLabel: string): Table {
  return {
    title: `tools/list: tokens before any work (${schemaLabel}, ${t.operations} operations; ${TOKENIZER})`,
    columns: ['arm', 'tools', 'tokens', '× code mode', 'target ≤ 700'],
    rows: [
      ['code mode (name, description, inputSchema)', 3, t.codeMode, ratio(t.codeMode, t.codeMode), withinTarget(t.codeMode, TOOL_LIST_TARGET)],
      ['code mode (whole tools/list answer)', 3, t.codeModeWire, ratio(t.codeModeWire, t.codeMode), withinTarget(t.codeModeWire, TOOL_LIST_TARGET)],
      ['tool per operation, minimal schemas', t.operations, t.toolMinimal, ratio(t.toolMinimal, t.codeMode), ''],
      ['tool per operation, full schemas', t.operations, t.toolFull, ratio(t.toolFull, t.codeMode), ''],
    ],
    notes: [
      'Serialized as compact JSON. Tool-per-operation definitions are generated from the schema at run time;',
      '"full" leaves out property-string sub-schemas (net[n] options…), so it is a lower bound.',
    ],
  };
}

function kindOf(t: TaskFigures): 'single' | 'multi' {
  return t.calls.tool === 1 ? 'single' : 'multi';
}

function targetMet(kind: 'single' | 'multi', code: number, tool: number): string {
  return withinTarget(code, tool * (kind === 'single' ? SINGLE_CALL_MAX_SHARE : MULTI_STEP_MAX_SHARE));
}

function clusterTable(c: ClusterFigures, tools: ToolListFigures): Table {
  const rows: Cell[][] = [];
  const notes: string[] = [];
  const sum = { codeCalls: 0, toolCalls: 0, codeWork: 0, toolWork: 0 };
  for (const t of c.tasks) {
    const kind = kindOf(t);
    const codeTotal = tools.codeMode + t.work.code;
    const toolMin = tools.toolMinimal + t.work.tool;
    const toolFull = tools.toolFull + t.work.tool;
    const problems = [
      ...t.codeProblems.map((p) => `code mode: ${p}`),
      ...t.toolProblems.map((p) => `tool per op: ${p}`),
      ...t.undiscovered.map((op) => `code mode: no search in the transcript surfaced ${op}`),
    ];
    for (const p of problems) notes.push(`${t.task}: ${p}`);
    if (t.scriptWarnings > 0) notes.push(`${t.task}: the script drew ${t.scriptWarnings} type-check warning(s), counted in its tokens`);
    rows.push([
      t.task,
      kind,
      `${t.calls.code}/${t.calls.tool}`,
      t.work.code,
      t.work.tool,
      pct(1 - t.work.code / t.work.tool),
      targetMet(kind, t.work.code, t.work.tool),
      codeTotal,
      toolMin,
      toolFull,
      pct(1 - codeTotal / toolMin),
      targetMet(kind, codeTotal, toolMin),
      problems.length === 0 ? 'ok' : 'FAIL',
    ]);
    sum.codeCalls += t.calls.code;
    sum.toolCalls += t.calls.tool;
    sum.codeWork += t.work.code;
    sum.toolWork += t.work.tool;
  }
  const n = c.tasks.length;
  const codeTotal = n * tools.codeMode + sum.codeWork;
  const toolMin = n * tools.toolMinimal + sum.toolWork;
  rows.push([
    'total',
    '',
    `${sum.codeCalls}/${sum.toolCalls}`,
    sum.codeWork,
    sum.toolWork,
    pct(1 - sum.codeWork / sum.toolWork),
    '',
    codeTotal,
    toolMin,
    n * tools.toolFull + sum.toolWork,
    pct(1 - codeTotal / toolMin),
    '',
    c.tasks.every((t) => t.codeProblems.length + t.toolProblems.length + t.undiscovered.length === 0) ? 'ok' : 'FAIL',
  ]);
  return {
    title: `tokens per task, ${c.preset} (${c.nodes} nodes, ${c.guests} guests): code mode vs one tool per operation`,
    columns: ['task', 'kind', 'calls c/t', 'work code', 'work tool', 'saved', 'target', 'total code', 'total tool min', 'total tool full', 'saved', 'target', 'check'],
    rows,
    notes: [
      "work = tool calls + results only; total = work + that arm's tool definitions (tool column: minimal / full schemas).",
      'kind: single = the tool-per-operation arm needs one call (target: code ≤ 1.2×), multi = more (target: code ≤ 0.1×);',
      '"saved" = 1 − code/tool; both targets judged against the minimal-schema arm. check: both answers verified against the simulator.',
      ...notes,
    ],
  };
}
