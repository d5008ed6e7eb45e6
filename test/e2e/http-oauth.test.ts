/**
 * The built server in OAuth resource-server mode (`serve --http` with "http": {"oauth": …}),
 * against a real OpenID provider (oidc-provider) on 127.0.0.1 and the simulated cluster:
 * SDK clients get client-credentials tokens through the server's RFC 9728 metadata and use the
 * tools; bad tokens are refused with 401 and the metadata pointer; two principals cannot drive
 * each other's sessions or use each other's approvals; an approver approves over HTTP; the
 * policy follows the principal's group and scope; the audit names the principal of every entry.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { E2eEnv } from './helpers/harness.js';
import { startOAuthServe, type HttpServe, type Idp, type OAuthServe } from '../support/oauth-serve.js';
import { statusOf, stopScript } from './helpers/flows.js';
import { callTool, runAnswer } from './helpers/mcp.js';
import { connectOAuth, type OAuthConnected } from './helpers/oauth.js';
import { claims, startIdp, type IdpClient } from '../http/helpers/oidc.js';

const CLIENTS: IdpClient[] = [
  { id: 'alice', secret: 'alice-secret-0123456789', scope: 'pve:read pve:write', groups: ['ops'] },
  { id: 'bob', secret: 'bob-secret-0123456789', scope: 'pve:read pve:write' },
  { id: 'carol', secret: 'carol-secret-0123456789', scope: 'pve:read pve:write pve:approve' },
  { id: 'reader', secret: 'reader-secret-0123456789', scope: 'pve:read' },
  { id: 'short', secret: 'short-secret-0123456789', scope: 'pve:read', ttl: 1 },
];

type Agent = OAuthConnected;

/** No elicitation capability: writes that need approval wait for an approver. */
function agent(url: string, issuer: string, id: string): Promise<Agent> {
  return connectOAuth(url, issuer, CLIENTS.find((x) => x.id === id) as IdpClient, { name: `${id}-agent` });
}

async function run(a: Agent, code: string): Promise<ReturnType<typeof runAnswer>> {
  return runAnswer((await callTool(a, 'run_script', { code }, { timeout: 120_000 })).result);
}

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

function post(url: string, token: string | undefined, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: JSON.stringify(body),
  });
}

describe('serve --http in OAuth mode: principals end to end', () => {
  let served: OAuthServe<Agent>;
  let env: E2eEnv;
  let idp: Idp;
  let server: HttpServe;
  let url = '';
  let metadataUrl = '';
  let agents: Agent[] = [];

  beforeAll(async () => {
    served = await startOAuthServe<Agent>({
      clients: CLIENTS,
      sandbox: { workers: 2 },
      config: (base, _env, provider) => ({
        ...base,
        policies: { ...(base.policies as Record<string, unknown>), ops: { preset: 'operator', approval: { require: ['destructive'] } } },
        http: {
          oauth: { issuer: provider.issuer, clockToleranceSec: 0 },
          principals: [{ group: 'ops', policy: 'ops' }],
          // The others run under the cluster's own policy, by choice (the default is reads only).
          unmatched: 'cluster',
        },
      }),
    });
    ({ env, idp, server, url, agents } = served);
    // The banner is one write: the metadata line came with the URL.
    metadataUrl = /Protected-resource metadata: (\S+)/.exec(server.stderr())?.[1] ?? '';
  }, 180_000);

  afterAll(async () => {
    await served?.close();
  });

  it('prints the URL, the issuer and the metadata; the SDK client gets a token for this resource and uses the tools', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(server.stderr()).toContain(`OAuth: access tokens from ${idp.issuer} for resource ${url}`);
    expect(server.stderr()).not.toContain('Authorization: Bearer');
    const alice = await agent(url, idp.issuer, 'alice');
    agents.push(alice);
    expect(claims(alice.provider.tokens()?.access_token as string)).toMatchObject({ iss: idp.issuer, aud: url, sub: 'alice' });
    expect((await alice.client.listTools()).tools.map((t) => t.name).sort()).toEqual(['get_schema', 'run_script', 'search_api']);
    const answer = await run(alice, "return (await pve.get('/version')).version;");
    expect(answer.error).toBeUndefined();
    expect(answer.result).toMatch(/^\d+\.\d+/);
  });

  it('refuses expired, wrong-audience and wrong-issuer tokens with 401 and the metadata pointer', async () => {
    const pointer = `resource_metadata="${metadataUrl}"`;
    const none = await post(url, undefined, INIT);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe(`Bearer ${pointer}`);

    const short = await idp.token('short', url);
    await new Promise((r) => setTimeout(r, 2_100));
    const expired = await post(url, short, INIT);
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toMatch(
      new RegExp(`^Bearer ${pointer.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}, error="invalid_token", error_description="the access token expired`),
    );

    const otherAudience = await post(url, await idp.token('alice', 'http://127.0.0.1:1/mcp'), INIT);
    expect(otherAudience.status).toBe(401);
    expect(otherAudience.headers.get('www-authenticate')).toContain(pointer);
    expect(otherAudience.headers.get('www-authenticate')).toContain('error_description="the token\'s audience');

    const other = await startIdp(CLIENTS, { keys: idp.keys });
    try {
      const foreign = await post(url, await other.token('alice', url), INIT);
      expect(foreign.status).toBe(401);
      expect(foreign.headers.get('www-authenticate')).toContain(pointer);
      expect(foreign.headers.get('www-authenticate')).toContain(`the token was issued by '${other.issuer}'`);
    } finally {
      await other.close();
    }
  });

  it("does not let one principal drive another's session", async () => {
    const aliceToken = await idp.token('alice', url);
    const bobToken = await idp.token('bob', url);
    const init = await post(url, aliceToken, INIT);
    expect(init.status).toBe(200);
    await init.text();
    const sessionId = init.headers.get('mcp-session-id') as string;
    const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'run_script', arguments: { code: 'return 1;' } } };
    const stolen = await post(url, bobToken, call, headers);
    expect(stolen.status).toBe(404);
    const stream = await fetch(url, { headers: { authorization: `Bearer ${bobToken}`, accept: 'text/event-stream', ...headers } });
    expect(stream.status).toBe(404);
    const end = await fetch(url, { method: 'DELETE', headers: { authorization: `Bearer ${bobToken}`, ...headers } });
    expect(end.status).toBe(404);
    // Still alice's, and still open.
    const mine = await post(url, aliceToken, { jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }, headers);
    expect(mine.status).toBe(200);
    expect(await mine.text()).toContain('run_script');
    expect(server.stderr()).toContain("principal 'bob' used a session of another principal; refused");
  });

  it("binds approvals to who asked and who approved: bob cannot use alice's, nobody approves their own", async () => {
    const alice = agents[0] as Agent;
    const bob = await agent(url, idp.issuer, 'bob');
    const carol = await agent(url, idp.issuer, 'carol');
    agents.push(bob, carol);
    const code = stopScript('pve1', 100);
    expect(statusOf(env.sim, 100)).toBe('running');

    const asked = await run(alice, code);
    expect(asked.error?.kind).toBe('approval');
    const planId = asked.plan?.planId as string;
    expect(planId).toMatch(/^[0-9a-f]{64}$/);
    expect(asked.approval?.message).toContain(`POST /approvals/${planId}`);
    expect((await run(bob, code)).plan?.planId).toBe(planId);

    const approverToken = await idp.token('carol', url);
    const aliceToken = await idp.token('alice', url);
    const approvals = `${new URL(url).origin}/approvals`;
    const approve = (token: string, body: unknown) =>
      fetch(`${approvals}/${planId}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

    // Without the approve scope: 403 with the scope to get.
    const noScope = await approve(aliceToken, { for: 'alice' });
    expect(noScope.status).toBe(403);
    expect(noScope.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(noScope.headers.get('www-authenticate')).toContain('scope="pve:approve"');

    // The listing shows who asked.
    const listed = (await (await fetch(approvals, { headers: { authorization: `Bearer ${approverToken}` } })).json()) as { plans: Array<{ planId: string; requestedBy: string[]; summary: string }> };
    expect(listed.plans.find((p) => p.planId === planId)).toMatchObject({ requestedBy: ['alice', 'bob'] });

    // Two principals asked: the approver says for whom.
    const ambiguous = await approve(approverToken, {});
    expect(ambiguous.status).toBe(409);
    expect(((await ambiguous.json()) as { error: { code: string } }).error.code).toBe('ambiguous-requester');
    const ok = await approve(approverToken, { for: 'alice', ttlMinutes: 10 });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ approved: { planId, for: 'alice', approvedBy: 'carol' } });

    // Bob runs the very same script: alice's approval is not his.
    const bobRun = await run(bob, code);
    expect(bobRun.error?.kind).toBe('approval');
    expect(statusOf(env.sim, 100)).toBe('running');

    // Alice's run uses it, once.
    const aliceRun = await run(alice, code);
    expect(aliceRun.error).toBeUndefined();
    expect(aliceRun.approval).toMatchObject({ via: 'operator', answer: 'approved' });
    expect(aliceRun.approval?.message).toContain('approved by carol');
    // The plan has run: the answer says so, not that its write still needs approval.
    expect(aliceRun.plan?.summary).toMatch(/\nDone: plan [0-9a-f]{64} ran \(1 of 1 write made\)\. Its approval is used up/);
    expect(aliceRun.plan?.summary).not.toMatch(/Next: 1 write needs approval/);
    expect(statusOf(env.sim, 100)).toBe('stopped');

    // Carol asks for a plan and cannot approve it herself.
    const carolCode = stopScript('pve1', 101);
    const carolAsked = await run(carol, carolCode);
    const carolPlan = carolAsked.plan?.planId as string;
    const self = await fetch(`${approvals}/${carolPlan}`, { method: 'POST', headers: { authorization: `Bearer ${approverToken}` } });
    expect(self.status).toBe(403);
    expect(((await self.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'self-approval' });
    // Bad input is refused, not crashed on.
    const junk = await fetch(`${approvals}/${carolPlan}`, { method: 'POST', headers: { authorization: `Bearer ${approverToken}`, 'content-type': 'application/json' }, body: '{"for": 5, "x": 1}' });
    expect(junk.status).toBe(400);
    const notJson = await fetch(`${approvals}/${carolPlan}`, { method: 'POST', headers: { authorization: `Bearer ${approverToken}` }, body: '{' });
    expect(notJson.status).toBe(400);
    const badId = await fetch(`${approvals}/..%2f..%2fetc`, { headers: { authorization: `Bearer ${approverToken}` } });
    expect(badId.status).toBe(400);
  });

  it('chooses the policy by group and restricts a read-only token to reads', async () => {
    const reader = await agent(url, idp.issuer, 'reader');
    agents.push(reader);
    const snapshot = "return await pve.post('/nodes/{node}/qemu/{vmid}/snapshot', { node: 'pve2', vmid: 107, snapname: 'readerSnap' });";
    const refused = await run(reader, snapshot);
    expect(refused.ok).toBe(false);
    expect(refused.error?.kind).toBe('denied');
    expect(await run(reader, "return (await pve.get('/version')).version;")).toMatchObject({ ok: true });
  });

  it('names the principal in every audit entry of its runs, and the approver of the HTTP approval', () => {
    const entries = readFileSync(join(env.stateDir, 'audit.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { type: string; data: Record<string, unknown> & { principal?: { id: string; via: string; issuer?: string } } });
    const runEntries = entries.filter((e) => ['run-start', 'call', 'approval', 'run-end'].includes(e.type));
    expect(runEntries.length).toBeGreaterThan(10);
    for (const e of runEntries) {
      expect(e.data.principal, `${e.type} ${JSON.stringify(e.data).slice(0, 200)}`).toMatchObject({ via: 'oauth', issuer: idp.issuer });
    }
    const byRun = new Map<string, string>();
    for (const e of runEntries) if (e.type === 'run-start') byRun.set(String(e.data.runId), String(e.data.principal?.id));
    for (const e of runEntries) if (e.data.runId !== undefined) expect(e.data.principal?.id).toBe(byRun.get(String(e.data.runId)));
    const starts = runEntries.filter((e) => e.type === 'run-start');
    const policyOf = (id: string) => new Set(starts.filter((e) => e.data.principal?.id === id).map((e) => e.data.policy));
    expect(policyOf('alice')).toEqual(new Set(['ops']));
    expect(policyOf('bob')).toEqual(new Set(['e2e']));
    expect(policyOf('reader')).toEqual(new Set(['e2e+read-scope']));
    expect(new Set(starts.map((e) => e.data.principal?.id))).toEqual(new Set(['alice', 'bob', 'carol', 'reader']));
    const httpApproval = runEntries.find((e) => e.type === 'approval' && e.data.via === 'http');
    expect(httpApproval?.data).toMatchObject({ approvedBy: 'carol', for: 'alice', principal: { id: 'carol' } });
    const used = runEntries.find((e) => e.type === 'approval' && e.data.via === 'operator');
    expect(used?.data).toMatchObject({ principal: { id: 'alice' } });
  });
});
