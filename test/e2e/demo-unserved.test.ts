/**
 * The demo serving the official schema (`demo --schema`): the simulator implements only part of it
 * and answers the rest 501, so search_api and get_schema mark those operations, through a real MCP
 * client, and the mark is true (a marked call answers 501, an unmarked one works).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasOfficialSchema, OFFICIAL_SCHEMA_SKIP_MESSAGE } from '../../src/schema/official-schemas.js';
import { startSimulator } from '../../src/simulator/index.js';
import { BIN, OFFICIAL_SCHEMA, REPO_ROOT } from './helpers/harness.js';
import { textOf, type RunAnswer } from './helpers/mcp.js';

const MARK = 'not in simulator';
const UNSERVED = 'GET /nodes/{node}/replication/{id}/status';

interface Hit {
  method: string;
  path: string;
  verdict: string;
}

describe.skipIf(!hasOfficialSchema('9.1'))(`demo --schema: operations the simulator lacks are marked (${OFFICIAL_SCHEMA_SKIP_MESSAGE} to run)`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'pve-demo-unserved-'));
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PVE_'))) as Record<string, string>;
  env.PVE_STATE_DIR = join(dir, 'state');
  const client = new Client({ name: 'demo-unserved', version: '1' });

  beforeAll(async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'demo', '--schema', OFFICIAL_SCHEMA], env, cwd: REPO_ROOT, stderr: 'pipe' });
    await client.connect(transport, { timeout: 120_000 });
  }, 130_000);
  afterAll(async () => {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = async (code: string): Promise<RunAnswer> =>
    (await client.callTool({ name: 'run_script', arguments: { code } }, undefined, { timeout: 60_000 })).structuredContent as unknown as RunAnswer;

  it('search_api marks them in the verdict and on the line, and only them', async () => {
    const answer = await client.callTool({ name: 'search_api', arguments: { query: 'replication job status', limit: 10 } });
    const hits = (answer.structuredContent as { results: Hit[] }).results;
    const unserved = hits.find((h) => `${h.method} ${h.path}` === UNSERVED);
    expect(unserved?.verdict).toBe(`allowed; ${MARK}`);
    expect(textOf(answer)).toMatch(new RegExp(`^GET /nodes/\\{node\\}/replication/\\{id\\}/status .*\\[read, allowed; ${MARK}\\]$`, 'm'));
    // Marked exactly where the simulator has no handler, on the line as in the verdict.
    const sim = await startSimulator({ port: 0, schemaFile: OFFICIAL_SCHEMA });
    const implemented = new Set(sim.implemented);
    await sim.close();
    for (const h of hits) expect(h.verdict.endsWith(`; ${MARK}`), `${h.method} ${h.path}`).toBe(!implemented.has(`${h.method} ${h.path}`));
    expect(hits.some((h) => !h.verdict.endsWith(MARK))).toBe(true);
    expect(
      textOf(answer)
        .split('\n')
        .filter((line) => line.includes(MARK)),
    ).toHaveLength(hits.filter((h) => h.verdict.endsWith(MARK)).length);
  });

  it('get_schema says so above the signature; an implemented operation carries no mark', async () => {
    const answer = await client.callTool({ name: 'get_schema', arguments: { operations: [UNSERVED, 'GET /cluster/resources'] } });
    const [unserved, resources] = (answer.structuredContent as { operations: Array<{ signature: string }> }).operations;
    expect(unserved?.signature.split('\n')[1]).toBe(`// ${MARK}: calling it answers 501; use another operation`);
    expect(resources?.signature).not.toContain(MARK);
  });

  it('the mark is true: the marked operation answers 501, an unmarked one works', async () => {
    const unserved = await run("return await pve.get('/nodes/{node}/replication/{id}/status', { node: 'pve1', id: '100-0' });");
    expect(unserved.ok).toBe(false);
    expect(unserved.error).toMatchObject({ kind: 'api' });
    expect(unserved.error?.message).toMatch(/HTTP 501: .* not implemented by the simulator/);
    const served = await run("return (await pve.get('/cluster/resources', { type: 'vm' })).map((g) => g.vmid).length;");
    expect(served).toMatchObject({ ok: true });
  });
});
