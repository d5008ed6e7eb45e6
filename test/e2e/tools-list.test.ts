/**
 * What every conversation pays for: the whole `tools/list` response, byte for byte as the built
 * server writes it on stdio, measured with real tokenizers. Budget: 700 tokens.
 */
import { encode as encodeO200k } from 'gpt-tokenizer';
import { encode as encodeCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2eEnv, type E2eEnv } from './helpers/harness.js';
import { RawStdioServer, type RawLine } from './helpers/raw-stdio.js';

const BUDGET = 700;

describe('tools/list', () => {
  let env: E2eEnv;
  let server: RawStdioServer;
  let listing: RawLine;

  beforeAll(async () => {
    env = await startE2eEnv();
    server = new RawStdioServer(env);
    await server.initialize();
    listing = await server.request(1, 'tools/list');
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await env?.close();
  });

  it(`costs at most ${BUDGET} tokens (o200k_base and cl100k_base)`, () => {
    const o200k = encodeO200k(listing.text).length;
    const cl100k = encodeCl100k(listing.text).length;
    console.log(`tools/list response: ${listing.text.length} characters, ${o200k} tokens (o200k_base), ${cl100k} tokens (cl100k_base)`);
    expect(o200k).toBeLessThanOrEqual(BUDGET);
    expect(cl100k).toBeLessThanOrEqual(BUDGET);
  });

  it('keeps the contract names and plain draft-7 schemas', () => {
    const { tools } = listing.json.result as {
      tools: Array<{ name: string; description: string; inputSchema: Record<string, unknown>; outputSchema: Record<string, unknown>; annotations: Record<string, unknown> }>;
    };
    const props = (s: Record<string, unknown>) => Object.keys(s.properties as object).sort();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(props(byName.search_api!.inputSchema)).toEqual(['cluster', 'limit', 'method', 'pathPrefix', 'query', 'risk', 'verdict']);
    expect(props(byName.search_api!.outputSchema)).toEqual(['results']);
    expect(props(byName.get_schema!.inputSchema)).toEqual(['cluster', 'operations', 'params']);
    expect(props(byName.get_schema!.outputSchema)).toEqual(['operations']);
    expect(props(byName.run_script!.inputSchema)).toEqual(['args', 'cluster', 'code', 'dryRun', 'runbook', 'typecheck']);
    // Every field run_script emits is declared, the cut report included.
    expect(props(byName.run_script!.outputSchema)).toEqual(['approval', 'changes', 'error', 'logs', 'ok', 'plan', 'result', 'stats', 'tainted', 'truncated', 'warnings']);
    const item = (t: { outputSchema: Record<string, unknown> }, key: string) =>
      Object.keys((t.outputSchema.properties as Record<string, { items: { properties: object } }>)[key]!.items.properties).sort();
    expect(item(byName.search_api!, 'results')).toEqual(['method', 'path', 'risk', 'summary', 'verdict']);
    expect(item(byName.get_schema!, 'operations')).toEqual(['method', 'path', 'permission', 'risk', 'signature', 'verdict']);
    for (const t of tools) expect((t as { title?: string }).title).toMatch(/\S/);
    // The descriptions teach the workflow and the SDK.
    expect(byName.search_api!.description).toMatch(/search_api → get_schema → run_script/);
    expect(byName.run_script!.description).toMatch(/pve\.get/);
    expect(byName.run_script!.description).toMatch(/waitTask/);
    // How a task's failure arrives: thrown by waitTask, reported per task by waitTasks.
    expect(byName.run_script!.description).toMatch(/waitTasks\(upids\)` reports each, `waitTask\(upid\)` throws on failure/);
    expect(byName.run_script!.description).toMatch(/dryRun/);
    expect(byName.run_script!.description).toMatch(/approval/);
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.inputSchema).not.toHaveProperty('$schema');
      // Outputs may grow optional fields without breaking clients that validate strictly.
      expect(t.outputSchema).not.toHaveProperty('additionalProperties');
    }
  });
});
