/**
 * The principal's own truth, over HTTP with OAuth principals (oidc-provider) against the built
 * server and the simulator: run_script's hints, the instructions, `pve://<cluster>/policy` and the
 * search_api / get_schema verdicts follow the effective policy of the principal asking, counted
 * over every configured cluster — one that is down at start included; when it comes up, its
 * resources appear with resources/list_changed, and no session is told its tools changed when
 * they did not.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallToolResultSchema, ResourceListChangedNotificationSchema, ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { E2eEnv } from './helpers/harness.js';
import { startOAuthServe, type HttpServe, type Idp, type OAuthServe } from '../support/oauth-serve.js';
import { runAnswer, textOf, type Connected } from './helpers/mcp.js';
import { connectOAuth } from './helpers/oauth.js';
import type { IdpClient } from '../http/helpers/oidc.js';

const CLIENTS: IdpClient[] = [
  { id: 'alice', secret: 'alice-secret-0123456789', scope: 'pve:read pve:write', groups: ['admins'] },
  { id: 'carol', secret: 'carol-secret-0123456789', scope: 'pve:read pve:write' },
  { id: 'reader', secret: 'reader-secret-0123456789', scope: 'pve:read', groups: ['admins'] },
];

interface Agent extends Connected {
  id: string;
  toolsChanged: number;
  resourcesChanged: number;
}

async function connect(url: string, issuer: string, id: string): Promise<Agent> {
  const connected = await connectOAuth(url, issuer, CLIENTS.find((x) => x.id === id) as IdpClient, { name: `${id}-agent` });
  const agent: Agent = { ...connected, id, toolsChanged: 0, resourcesChanged: 0 };
  agent.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (agent.toolsChanged += 1));
  agent.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void (agent.resourcesChanged += 1));
  return agent;
}

async function runHint(a: Agent): Promise<unknown> {
  const { tools } = await a.client.listTools();
  return tools.find((t) => t.name === 'run_script')?.annotations;
}

async function policyOf(a: Agent, cluster: string): Promise<Record<string, unknown> & { budgetPerRun: Record<string, number> }> {
  const read = await a.client.readResource({ uri: `pve://${cluster}/policy` });
  return JSON.parse((read.contents[0] as { text: string }).text) as Record<string, unknown> & { budgetPerRun: Record<string, number> };
}

async function waitFor(cond: () => boolean, ms: number, what: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('serve --http with OAuth principals: every view follows the principal asking', () => {
  let served: OAuthServe<Agent>;
  let env: E2eEnv;
  let idp: Idp;
  let server: HttpServe;
  let url = '';
  let secretFile = '';
  let agents: Agent[] = [];

  beforeAll(async () => {
    served = await startOAuthServe<Agent>({
      clients: CLIENTS,
      sandbox: { workers: 1 },
      serverEnv: { PVE_CLUSTER_RETRY_MS: '300' },
      config: (raw, e2e, provider) => {
        const base = raw as Record<string, unknown> & { clusters: { sim: Record<string, unknown> } };
        secretFile = join(e2e.dir, 'late-secret');
        // Every cluster read-only for everyone but the rules: `main` serves, `late` is down until its secret appears.
        return {
          ...base,
          defaultCluster: 'main',
          clusters: {
            main: { ...base.clusters.sim, policy: 'read-only' },
            late: { ...base.clusters.sim, auth: { tokenId: e2e.sim.token.id, secret: { file: secretFile } }, policy: 'read-only' },
          },
          policies: { 'all-admin': { preset: 'admin' }, 'late-ops': { preset: 'operator', budget: { guests: 3 } } },
          http: {
            oauth: { issuer: provider.issuer, clockToleranceSec: 0 },
            principals: [
              { group: 'admins', policy: 'all-admin' },
              { user: 'carol', policy: 'late-ops', clusters: ['late'] },
              { user: 'carol', policy: 'read-only', clusters: ['main'] },
            ],
          },
        };
      },
    });
    ({ env, idp, server, url, agents } = served);
  }, 180_000);

  afterAll(async () => {
    await served?.close();
  });

  it('an admin by group on read-only clusters is not told run_script is read-only, and her write runs; a read-scope member of the same group is', async () => {
    const alice = await connect(url, idp.issuer, 'alice');
    const reader = await connect(url, idp.issuer, 'reader');
    agents.push(alice, reader);
    expect(await runHint(alice)).toEqual({ readOnlyHint: false, destructiveHint: true });
    expect(await runHint(reader)).toEqual({ readOnlyHint: true });

    const snapshot = "return await pve.post('/nodes/{node}/qemu/{vmid}/snapshot', { node: 'pve2', vmid: 107, snapname: 'aliceSnap' });";
    const call = (a: Agent) => a.client.callTool({ name: 'run_script', arguments: { code: snapshot } }, CallToolResultSchema, { timeout: 120_000 }) as Promise<CallToolResult>;
    expect(runAnswer(await call(alice)).ok).toBe(true);
    expect(runAnswer(await call(reader)).error?.kind).toBe('denied');
  }, 120_000);

  it("the instructions, the policy resource and the verdicts are each principal's", async () => {
    const [alice, reader] = agents as [Agent, Agent];
    const ai = alice.client.getInstructions() ?? '';
    const ri = reader.client.getInstructions() ?? '';
    expect(ai).toContain('under the policies of alice');
    expect(ai).toMatch(/- main \(default\): policy 'all-admin' \(admin\)\. Allows reads, writes and destructive calls; asks approval for destructive and privileged calls/);
    // The down cluster is counted and marked, with its policy.
    expect(ai).toMatch(/- late \(unavailable now, retried\): policy 'all-admin'/);
    expect(ai).toContain('Budget per run: read 500, write 20, destructive 5, privileged 2, calls 1000, guests 10, task wait 15 min.');
    expect(ri).toMatch(/- main \(default\): policy 'all-admin\+read-scope' \(read-only\)\. Allows reads only; refuses every change\./);

    const ap = await policyOf(alice, 'main');
    const rp = await policyOf(reader, 'main');
    expect(ap).toMatchObject({ cluster: 'main', policy: 'all-admin', preset: 'admin', canChange: true, principal: 'alice', approval: ['destructive', 'privileged'] });
    expect(ap.budgetPerRun).toEqual({ read: 500, write: 20, destructive: 5, privileged: 2, calls: 1000, guests: 10, taskWaitMs: 900_000 });
    expect(rp).toMatchObject({ policy: 'all-admin+read-scope', preset: 'read-only', canChange: false, principal: 'reader', summary: 'Allows reads only; refuses every change.' });
    // Known while the cluster is down: from the configuration.
    expect(await policyOf(alice, 'late')).toMatchObject({ cluster: 'late', policy: 'all-admin' });

    const search = async (a: Agent) => {
      const r = (await a.client.callTool({ name: 'search_api', arguments: { query: 'snapshot a vm', limit: 3 } })) as CallToolResult;
      return (r.structuredContent as { results: Array<{ path: string; verdict: string }> }).results.find((h) => h.path === '/nodes/{node}/qemu/{vmid}/snapshot')?.verdict;
    };
    expect(await search(alice)).toBe('allowed');
    expect(await search(reader)).toBe('refused');
    const schema = async (a: Agent) => textOf((await a.client.callTool({ name: 'get_schema', arguments: { operations: ['POST /nodes/{node}/qemu/{vmid}/snapshot'] } })) as CallToolResult);
    expect(await schema(alice)).toContain("// policy 'all-admin' on main: allowed");
    expect(await schema(reader)).toMatch(/\/\/ policy 'all-admin\+read-scope' on main: refused/);
  }, 120_000);

  it('a writable cluster down at start counts for the hint; when it comes up its resources appear and nobody is told the tools changed', async () => {
    const carol = await connect(url, idp.issuer, 'carol');
    agents.push(carol);
    // main is read-only for carol; late (operator for her) is down: the hint must not be read-only.
    expect(await runHint(carol)).toEqual({ readOnlyHint: false, destructiveHint: true });
    expect(carol.client.getInstructions()).toMatch(/- late \(unavailable now, retried\): policy 'late-ops' \(operator\)\. .*; per run: .*guests 3/);
    expect((await policyOf(carol, 'late')).budgetPerRun.guests).toBe(3);
    const uris = async (a: Agent) => (await a.client.listResources()).resources.map((r) => r.uri);
    expect(await uris(carol)).not.toContain('pve://late/sdk.d.ts');

    writeFileSync(secretFile, env.sim.token.secret, { mode: 0o600 });
    await waitFor(
      () => /cluster 'late' is available/.test(server.stderr()),
      30_000,
      () => server.stderr(),
    );
    const [alice, reader] = agents as [Agent, Agent];
    await waitFor(
      () => [alice, reader, carol].every((a) => a.resourcesChanged > 0),
      10_000,
      () => `resources/list_changed: ${[alice, reader, carol].map((a) => `${a.id} ${a.resourcesChanged}`).join(', ')}`,
    );
    expect(await uris(carol)).toContain('pve://late/sdk.d.ts');
    expect(await runHint(carol)).toEqual({ readOnlyHint: false, destructiveHint: true });
    expect(await runHint(reader)).toEqual({ readOnlyHint: true });
    // Their listings are what they were: no tools/list_changed.
    expect([alice, reader, carol].map((a) => a.toolsChanged)).toEqual([0, 0, 0]);
    const write = await carol.client.callTool(
      { name: 'run_script', arguments: { cluster: 'late', code: "return await pve.post('/nodes/{node}/qemu/{vmid}/snapshot', { node: 'pve2', vmid: 107, snapname: 'carolSnap' });" } },
      CallToolResultSchema,
      { timeout: 120_000 },
    );
    expect(runAnswer(write as CallToolResult).ok).toBe(true);
  }, 120_000);
});
