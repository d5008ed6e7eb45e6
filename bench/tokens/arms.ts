/**
 * Running one task in each arm and recording what enters the context.
 *
 * Code mode goes through the real MCP server (search_api → get_schema → run_script); the tool
 * results are the text content the server returns. The tool-per-operation arm makes the ideal
 * call sequence with the PVE client against its own simulator; each call's result is the API's
 * `data` as compact JSON, which is what such servers return.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PveClient } from '../../src/client/client.js';
import type { HttpMethod } from '../../src/schema/model.js';
import { contextJson } from './count.js';
import { runScript, textOf, TOOL_TIMEOUT_MS } from './environment.js';
import type { ScenarioFacts } from './scenario.js';
import type { AnswerCheck, ApiCaller, TokenTask } from './task.js';
import { toolName } from './tool-per-op.js';
import { Transcript } from './transcript.js';

export interface ArmResult {
  transcript: Transcript;
  answer: unknown;
  /** Why the answer is wrong (empty when it checks out). */
  problems: string[];
}

export interface CodeArmResult extends ArmResult {
  /** Operations the script uses that none of the transcript's searches surfaced. */
  undiscovered: string[];
  /** Type-check warnings the script drew (they cost tokens too). */
  warnings: number;
}

export async function runCodeArm(client: Client, task: TokenTask, facts: ScenarioFacts, check: AnswerCheck): Promise<CodeArmResult> {
  const steps = task.codeMode(facts);
  const transcript = new Transcript();
  const found = new Set<string>();
  for (const search of steps.searches) {
    const res = await callTool(client, transcript, 'search_api', { ...search });
    const results = (res.structuredContent as { results?: Array<{ method: string; path: string }> } | undefined)?.results ?? [];
    for (const r of results) found.add(`${r.method} ${r.path}`);
  }
  await callTool(client, transcript, 'get_schema', { operations: steps.schemas });
  transcript.call('run_script', { code: steps.script });
  const run = await runScript(client, steps.script);
  transcript.result(run.text);
  const problems = run.ok ? check(run.result) : [`the script failed: ${run.text.split('\n')[0] ?? ''}`];
  return { transcript, answer: run.result, problems, undiscovered: steps.schemas.filter((op) => !found.has(op)), warnings: run.warnings };
}

async function callTool(client: Client, transcript: Transcript, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  transcript.call(name, args);
  const res = (await client.callTool({ name, arguments: args }, undefined, { timeout: TOOL_TIMEOUT_MS })) as CallToolResult;
  transcript.result(textOf(res));
  if (res.isError) throw new Error(`${name} ${JSON.stringify(args)} failed: ${textOf(res)}`);
  return res;
}

export async function runToolArm(pve: PveClient, task: TokenTask, facts: ScenarioFacts, check: AnswerCheck): Promise<ArmResult> {
  const transcript = new Transcript();
  const api: ApiCaller = {
    async call(method: HttpMethod, path: string, params: Record<string, unknown> = {}) {
      transcript.call(toolName(method, path), params);
      const data = await pve.request(method, path, params);
      transcript.result(contextJson(data));
      return data;
    },
  };
  const answer = await task.toolPerOperation(api, facts);
  return { transcript, answer, problems: check(answer) };
}
