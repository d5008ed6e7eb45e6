/**
 * Runs every operator task in both arms on one simulated cluster per preset and returns the token
 * figures with the answer checks. Each arm gets its own simulator (same preset, seed and frozen
 * clock, same seeded scenario), so writes in one arm never disturb the other and both answers can
 * be checked against the state they produced.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ApiModel } from '../../src/schema/model.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { runCodeArm, runToolArm } from './arms.js';
import { contextJson, countTokens } from './count.js';
import { connectInMemory, directClient, openProduct } from './environment.js';
import { prepareScenario, type ScenarioFacts } from './scenario.js';
import { Truth, type TokenTask } from './task.js';
import { TOKEN_TASKS } from './tasks.js';
import { toolDefinitions } from './tool-per-op.js';

export interface ToolListFigures {
  operations: number;
  /** Code mode's three tools as a host hands them to the model: name, description, inputSchema. */
  codeMode: number;
  /** The whole `tools/list` answer (with output schemas and annotations). */
  codeModeWire: number;
  toolFull: number;
  toolMinimal: number;
}

export interface TaskFigures {
  task: string;
  /** Tool calls the model makes. */
  calls: { code: number; tool: number };
  /** Tokens of those calls and their results (tool definitions excluded). */
  work: { code: number; tool: number };
  codeProblems: string[];
  toolProblems: string[];
  /** Operations the code-mode script uses that its searches did not surface. */
  undiscovered: string[];
  scriptWarnings: number;
}

export interface ClusterFigures {
  preset: string;
  nodes: number;
  guests: number;
  tasks: TaskFigures[];
}

export interface TokenFigures {
  /** Where the API schema came from: the official file, or the simulator's own when it is absent. */
  schema: string;
  toolList: ToolListFigures;
  clusters: ClusterFigures[];
}

export interface MeasureOptions {
  presets: string[];
  /** An official apidoc file; without it the simulator serves its own (smaller) schema. */
  schemaFile?: string;
  tasks?: readonly TokenTask[];
  /** Write every transcript here (outside the repository: results quote the schema). */
  transcriptDir?: string;
}

export async function measureTokens(options: MeasureOptions): Promise<TokenFigures> {
  let toolList: ToolListFigures | undefined;
  const clusters: ClusterFigures[] = [];
  for (const preset of options.presets) {
    const run = await measureCluster(preset, options);
    toolList ??= run.toolList;
    clusters.push(run.figures);
  }
  if (!toolList) throw new Error('measureTokens needs at least one preset');
  return { schema: options.schemaFile ?? 'simulator schema', toolList, clusters };
}

async function startTwin(preset: string, clockMs: number, schemaFile: string | undefined): Promise<{ sim: RunningSimulator; facts: ScenarioFacts }> {
  const sim = await startSimulator({
    preset,
    port: 0,
    authFailureDelayMs: 0,
    // Tasks finish by the next request and metrics stand still: both arms see the same numbers.
    taskDurationMs: 0,
    clock: () => clockMs,
    ...(schemaFile ? { schemaFile } : {}),
  });
  return { sim, facts: prepareScenario(sim) };
}

async function measureCluster(preset: string, options: MeasureOptions): Promise<{ toolList: ToolListFigures; figures: ClusterFigures }> {
  const clockMs = Math.floor(Date.now() / 1000) * 1000;
  const codeSide = await startTwin(preset, clockMs, options.schemaFile);
  const toolSide = await startTwin(preset, clockMs, options.schemaFile).catch(async (err: unknown) => {
    await codeSide.sim.close();
    throw err;
  });
  const opened: Array<() => Promise<void>> = [() => codeSide.sim.close(), () => toolSide.sim.close()];
  try {
    if (contextJson(codeSide.facts) !== contextJson(toolSide.facts)) {
      throw new Error(`the two ${preset} simulators differ (${contextJson(codeSide.facts)} vs ${contextJson(toolSide.facts)}): the scenario must be deterministic`);
    }
    const facts = codeSide.facts;
    const env = await openProduct(codeSide.sim);
    opened.push(() => env.close());
    const mcp = await connectInMemory(env.product);
    opened.push(() => mcp.close());
    const pve = directClient(toolSide.sim);
    opened.push(() => pve.close());

    const toolList = await measureToolList(mcp.client, env.product.cluster().model);
    const codeTruth = new Truth(codeSide.sim, facts);
    const toolTruth = new Truth(toolSide.sim, facts);
    const tasks: TaskFigures[] = [];
    for (const task of options.tasks ?? TOKEN_TASKS) {
      const code = await runCodeArm(mcp.client, task, facts, task.expect(codeTruth));
      const tool = await runToolArm(pve, task, facts, task.expect(toolTruth));
      if (options.transcriptDir) {
        const dir = join(options.transcriptDir, preset);
        mkdirSync(dir, { recursive: true });
        const file = task.id.replace(/[^A-Za-z0-9]+/g, '-');
        writeFileSync(join(dir, `${file}.code-mode.txt`), `${task.request(facts)}\n${code.transcript.render()}\n`);
        writeFileSync(join(dir, `${file}.tool-per-op.txt`), `${task.request(facts)}\n${tool.transcript.render()}\n`);
      }
      tasks.push({
        task: task.id,
        calls: { code: code.transcript.calls, tool: tool.transcript.calls },
        work: { code: code.transcript.tokens, tool: tool.transcript.tokens },
        codeProblems: code.problems,
        toolProblems: tool.problems,
        undiscovered: code.undiscovered,
        scriptWarnings: code.warnings,
      });
    }
    return {
      toolList,
      figures: { preset, nodes: codeSide.sim.cluster.nodeNames.length, guests: codeSide.sim.cluster.guests().length, tasks },
    };
  } finally {
    for (const close of opened.reverse()) await close().catch(() => undefined);
  }
}

async function measureToolList(client: Client, model: ApiModel): Promise<ToolListFigures> {
  const { tools } = await client.listTools();
  const modelView = tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
  return {
    operations: model.operations.length,
    codeMode: countTokens(contextJson(modelView)),
    codeModeWire: countTokens(contextJson({ tools })),
    toolFull: countTokens(contextJson(toolDefinitions(model, 'full'))),
    toolMinimal: countTokens(contextJson(toolDefinitions(model, 'minimal'))),
  };
}
