/**
 * `session` suite: what one agent conversation of three operator tasks puts into the model's
 * context in code mode, from the first byte on: the whole `tools/list` answer, the server's
 * instructions, then every tool call's arguments and every result's text — an inventory question,
 * a batch of snapshots in which one task fails, and the failed-task report that follows it.
 *
 * The per-task tables (suite.ts) count each task apart and leave the instructions out; this one is
 * the figure a change to the listing, the instructions, the SDK's idioms or the answers' wording
 * moves, so it is recorded before and after such a change (docs/benchmarks.md).
 */
import { OFFICIAL_SCHEMA_SKIP_MESSAGE, hasOfficialSchema, officialSchemaFile } from '../../src/schema/official-schemas.js';
import { startSimulator } from '../../src/simulator/index.js';
import type { SuiteContext } from '../lib/suite.js';
import type { Table } from '../lib/table.js';
import { runCodeArm } from './arms.js';
import { contextJson, countTokens, TOKENIZER } from './count.js';
import { connectInMemory, openProduct } from './environment.js';
import { prepareScenario } from './scenario.js';
import { Truth, type TokenTask } from './task.js';
import { snapshotPool } from './tasks-changes.js';
import { bigRunningVms, failedTasks } from './tasks-inventory.js';

/** The session's tasks, in the order an operator asks them. */
export const SESSION_TASKS: readonly TokenTask[] = [bigRunningVms, snapshotPool, failedTasks];

export interface SessionFigures {
  schema: string;
  /** The whole `tools/list` answer as the server sends it. */
  toolList: number;
  /** The `instructions` of the initialize answer. */
  instructions: number;
  tasks: Array<{ task: string; calls: number; tokens: number; problems: string[] }>;
  /** Calls' arguments and results of all tasks. */
  work: number;
  total: number;
}

export async function measureSession(options: { schemaFile?: string } = {}): Promise<SessionFigures> {
  const clockMs = Math.floor(Date.now() / 1000) * 1000;
  const sim = await startSimulator({
    preset: 'demo',
    port: 0,
    authFailureDelayMs: 0,
    taskDurationMs: 0,
    clock: () => clockMs,
    ...(options.schemaFile ? { schemaFile: options.schemaFile } : {}),
  });
  const opened: Array<() => Promise<void>> = [() => sim.close()];
  try {
    const facts = prepareScenario(sim);
    const env = await openProduct(sim);
    opened.push(() => env.close());
    const mcp = await connectInMemory(env.product);
    opened.push(() => mcp.close());
    const toolList = countTokens(contextJson(await mcp.client.listTools()));
    const instructions = countTokens(mcp.client.getInstructions() ?? '');
    const truth = new Truth(sim, facts);
    const tasks: SessionFigures['tasks'] = [];
    for (const task of SESSION_TASKS) {
      const run = await runCodeArm(mcp.client, task, facts, task.expect(truth));
      tasks.push({ task: task.id, calls: run.transcript.calls, tokens: run.transcript.tokens, problems: [...run.problems, ...run.undiscovered.map((op) => `no search surfaced ${op}`)] });
    }
    const work = tasks.reduce((sum, t) => sum + t.tokens, 0);
    return { schema: options.schemaFile ?? 'simulator schema', toolList, instructions, tasks, work, total: toolList + instructions + work };
  } finally {
    for (const close of opened.reverse()) await close().catch(() => undefined);
  }
}

export async function sessionSuite(_context: SuiteContext): Promise<Table[]> {
  const official = hasOfficialSchema('9.1');
  const f = await measureSession(official ? { schemaFile: officialSchemaFile('9.1') } : {});
  const problems = f.tasks.flatMap((t) => t.problems.map((p) => `${t.task}: ${p}`));
  return [
    {
      title: `a three-task agent session in code mode, demo cluster (${official ? 'PVE 9.1 official schema' : `simulator schema (${OFFICIAL_SCHEMA_SKIP_MESSAGE})`}; ${TOKENIZER})`,
      columns: ['part', 'calls', 'tokens', 'check'],
      rows: [
        ['tools/list (whole answer)', '', f.toolList, ''],
        ['instructions', '', f.instructions, ''],
        ...f.tasks.map((t) => [t.task, t.calls, t.tokens, t.problems.length === 0 ? 'ok' : 'FAIL']),
        ['calls and results', f.tasks.reduce((n, t) => n + t.calls, 0), f.work, ''],
        ['session', '', f.total, problems.length === 0 ? 'ok' : 'FAIL'],
      ],
      notes: ["Every call's arguments and result text as the model reads them; the user's requests and final answers are left out.", ...problems],
    },
  ];
}
