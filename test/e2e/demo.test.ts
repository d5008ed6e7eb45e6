/**
 * `pve-code-mcp demo --walkthrough`: what a newcomer sees after `npm start` in a terminal — the
 * embedded simulator, the three tools working through a real MCP client, and how to connect.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { hasOfficialSchema } from '../../src/schema/official-schemas.js';
import { BIN, OFFICIAL_SCHEMA, REPO_ROOT, runCli } from './helpers/harness.js';

describe('pve-code-mcp demo', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pve-demo-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PVE_'))) as Record<string, string>;
  env.PVE_STATE_DIR = join(dir, 'state');

  it('--walkthrough runs to completion and shows the three tools working', async () => {
    const r = await runCli(['demo', '--walkthrough'], { env, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout;
    expect(out).toMatch(/Simulated Proxmox VE cluster: https:\/\/127\.0\.0\.1:\d+ \(3 nodes, \d+ guests/);
    expect(out).toMatch(/Simulated PVE cluster: https:\/\/127\.0\.0\.1:\d+\n  TLS fingerprint \(SHA-256\): [0-9A-F:]{95}\n  Read-only API token: Authorization: PVEAPIToken=root@pam!readonly=\S+/);
    expect(out).toContain('MCP tools: search_api, get_schema, run_script');
    // search_api answered with operations…
    expect(out).toMatch(/── 1\. search_api[^\n]*\n(GET|POST) \/nodes\/\{node\}\/qemu/);
    // …get_schema with a TypeScript signature…
    expect(out).toMatch(/── 2\. get_schema[\s\S]*pve\.get\('\/cluster\/resources'/);
    // …run_script with the filtered answer (not the raw guest list) and its stats…
    expect(out).toMatch(/── 3\. run_script[\s\S]*→\n\{"guests":\d+,"running":\d+,"perNode":\{"pve1":\d+/);
    // …and a dry-run plan whose writes were not sent.
    expect(out).toMatch(/── 4\. run_script with dryRun[\s\S]*plan [0-9a-f]{64}:/);
    expect(out).not.toMatch(/error \[/);
    expect(out).toContain('Connect an MCP client to this demo');
    // The snippets name the exact Node binary that ran the demo, never a bare `node` from some PATH.
    expect(out).toContain(`claude mcp add pve-demo -- ${process.execPath} `);
    expect(out).toMatch(/claude mcp add pve-demo -- \S+ \S+bin\.js demo/);
    expect(out).toContain(`"command": "${process.execPath}"`);
  });

  // With the official schema (when present) the whole API is searchable in the demo.
  const official = hasOfficialSchema('9.1');
  it(`started by an MCP client it serves stdio${official ? ' (--schema: the whole official API)' : ''}`, async () => {
    const client = new Client({ name: 'demo-host', version: '1' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'demo', ...(official ? ['--schema', OFFICIAL_SCHEMA] : [])],
      env,
      cwd: REPO_ROOT,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await client.connect(transport, { timeout: 120_000 });
    try {
      // The simulated cluster is printed beside the endpoint, on stderr so stdout stays protocol only,
      // with a token that reads everything and changes nothing.
      const url = /Simulated PVE cluster: (https:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1];
      const header = /Read-only API token: Authorization: (PVEAPIToken=\S+)/.exec(stderr)?.[1];
      expect(stderr).toMatch(/TLS fingerprint \(SHA-256\): [0-9A-F:]{95}/);
      expect(url && header, stderr).toBeTruthy();
      expect(await simCall(`${url}/api2/json/cluster/resources`, 'GET', header as string)).toBe(200);
      expect(await simCall(`${url}/api2/json/nodes/pve1/qemu/100/status/stop`, 'POST', header as string)).toBe(403);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['get_schema', 'run_script', 'search_api']);
      const version = await client.readResource({ uri: 'pve://demo/version' });
      const info = JSON.parse((version.contents[0] as { text: string }).text) as { schema: { operations: number } };
      if (official) expect(info.schema.operations).toBe(649);
      const hits = await client.callTool({ name: 'search_api', arguments: { query: 'firewall rules of a vm', limit: 5 } });
      const results = (hits.structuredContent as { results: Array<{ path: string }> }).results;
      if (official) expect(results.some((r) => r.path.startsWith('/nodes/{node}/qemu/{vmid}/firewall'))).toBe(true);
      const run = await client.callTool({ name: 'run_script', arguments: { code: "return (await pve.get('/nodes')).length;" } }, undefined, { timeout: 60_000 });
      expect(run.structuredContent).toMatchObject({ ok: true, result: 3 });
    } finally {
      await client.close();
    }
  });
});

/** Status of one call to the simulator with a token (its certificate is self-signed; loopback only). */
function simCall(url: string, method: string, authorization: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { Authorization: authorization }, rejectUnauthorized: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}
