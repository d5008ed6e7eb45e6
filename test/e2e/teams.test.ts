/**
 * Teams over HTTP with OAuth principals (oidc-provider on 127.0.0.1, the built server, the
 * simulated cluster): a principal no rule matches falls back to reads (a matched one still
 * writes); under a four-eyes policy the asker's own client accepting the plan does not run it,
 * another principal's POST /approvals does (and one outside the approvers group cannot); one
 * principal opening session after session does not close another's session with a run in flight.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { E2eEnv } from './helpers/harness.js';
import { startOAuthServe, type HttpServe, type Idp, type OAuthServe } from '../support/oauth-serve.js';
import { statusOf, stopScript } from './helpers/flows.js';
import { callTool, runAnswer, type Connected } from './helpers/mcp.js';
import { connectOAuth } from './helpers/oauth.js';
import type { IdpClient } from '../http/helpers/oidc.js';

const CLIENTS: IdpClient[] = [
  { id: 'alice', secret: 'alice-secret-0123456789', scope: 'pve:read pve:write', groups: ['ops'] },
  { id: 'carol', secret: 'carol-secret-0123456789', scope: 'pve:read pve:approve', groups: ['leads'] },
  { id: 'dave', secret: 'dave-secret-0123456789', scope: 'pve:read pve:approve', groups: ['ops'] },
  { id: 'admin', secret: 'admin-secret-0123456789', scope: 'pve:read pve:write', groups: ['admins'] },
  { id: 'mallory', secret: 'mallory-secret-0123456789', scope: 'pve:read pve:write' },
  { id: 'flood', secret: 'flood-secret-0123456789', scope: 'pve:read' },
];

const PER_PRINCIPAL = 3;

/** The asker's own client says yes to every approval question, as a careless (or compromised) one would. */
function agent(url: string, issuer: string, id: string): Promise<Connected> {
  return connectOAuth(url, issuer, CLIENTS.find((x) => x.id === id) as IdpClient, { name: `${id}-agent`, elicit: () => ({ action: 'accept', content: { approve: true } }) });
}

async function run(a: Connected, code: string): Promise<ReturnType<typeof runAnswer>> {
  return runAnswer((await callTool(a, 'run_script', { code }, { timeout: 120_000 })).result);
}

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

const snapshotsOf = (sim: E2eEnv['sim'], vmid: number): string[] => {
  sim.cluster.settle();
  return (sim.cluster.guest(vmid)?.snapshots ?? []).map((s) => s.name);
};

const snapshot = (vmid: number, name: string): string => `await pve.waitTask(await pve.post('/nodes/{node}/qemu/{vmid}/snapshot', { node: 'pve1', vmid: ${vmid}, snapname: '${name}' }));`;

describe('serve --http with OAuth principals: teams fail closed', () => {
  let served: OAuthServe<Connected>;
  let env: E2eEnv;
  let idp: Idp;
  let server: HttpServe;
  let url = '';
  let agents: Connected[] = [];

  beforeAll(async () => {
    served = await startOAuthServe<Connected>({
      clients: CLIENTS,
      sandbox: { workers: 2 },
      config: (base, _env, provider) => ({
        ...base,
        policies: { ...(base.policies as Record<string, unknown>), fourEyes: { preset: 'operator', approval: { require: ['destructive'], approvers: { group: 'leads' } } } },
        http: {
          oauth: { issuer: provider.issuer, clockToleranceSec: 0 },
          principals: [
            { group: 'ops', policy: 'fourEyes' },
            { group: 'admins', policy: 'e2e' },
          ],
          sessionsPerPrincipal: PER_PRINCIPAL,
          maxSessions: 6,
        },
      }),
    });
    ({ env, idp, server, url, agents } = served);
  }, 180_000);

  afterAll(async () => {
    await served?.close();
  });

  it('gives a principal no rule matches reads only (said at start); a matched admin still writes', async () => {
    expect(server.stderr()).toContain("principals no http.principals rule matches get each cluster's policy restricted to reads (http.unmatched: read-only, the default)");
    const mallory = await agent(url, idp.issuer, 'mallory');
    const admin = await agent(url, idp.issuer, 'admin');
    agents.push(mallory, admin);
    const refused = await run(mallory, snapshot(100, 'mallorySnap'));
    expect(refused.ok).toBe(false);
    expect(refused.error?.kind).toBe('denied');
    expect(await run(mallory, "return (await pve.get('/version')).version;")).toMatchObject({ ok: true });
    const made = await run(admin, snapshot(100, 'adminSnap'));
    expect(made.error).toBeUndefined();
    const snaps = snapshotsOf(env.sim, 100);
    expect(snaps).toContain('adminSnap');
    expect(snaps).not.toContain('mallorySnap');
  });

  it("under four eyes the asker's own client accepting does not run the plan; another principal's POST /approvals does", async () => {
    const alice = await agent(url, idp.issuer, 'alice');
    agents.push(alice);
    const code = stopScript('pve1', 100);
    expect(statusOf(env.sim, 100)).toBe('running');
    const asked = await run(alice, code);
    expect(alice.elicitations).toEqual([]);
    expect(statusOf(env.sim, 100)).toBe('running');
    expect(asked.error?.kind).toBe('approval');
    const planId = asked.plan?.planId as string;
    expect(asked.approval).toMatchObject({ required: true, answer: 'four-eyes', planId });
    expect(asked.approval?.message).toContain(`POST /approvals/${planId}`);
    expect(asked.approval?.message).toContain("a member of group 'leads'");

    const approve = async (id: string) =>
      fetch(`${new URL(url).origin}/approvals/${planId}`, { method: 'POST', headers: { authorization: `Bearer ${await idp.token(id, url)}`, 'content-type': 'application/json' }, body: '{}' });
    const outsider = await approve('dave');
    expect(outsider.status).toBe(403);
    expect(((await outsider.json()) as { error: { code: string } }).error.code).toBe('not-an-approver');
    const ok = await approve('carol');
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ approved: { planId, for: 'alice', approvedBy: 'carol' } });

    const ran = await run(alice, code);
    expect(ran.error, JSON.stringify(ran)).toBeUndefined();
    expect(ran.approval).toMatchObject({ via: 'operator', answer: 'approved', approvedBy: 'carol' });
    expect(statusOf(env.sim, 100), JSON.stringify(ran)).toBe('stopped');
    expect(alice.elicitations).toEqual([]);

    const approvals = readFileSync(join(env.stateDir, 'audit.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"approval"'))
      .map((l) => JSON.parse(l) as { type: string; data: Record<string, unknown> })
      .filter((e) => e.type === 'approval' && e.data.planId === planId);
    expect(approvals.map((e) => [e.data.via ?? null, e.data.answer ?? null, e.data.approvedBy ?? null])).toEqual([
      [null, 'four-eyes', null],
      ['http', null, 'carol'],
      ['operator', 'approved', 'carol'],
    ]);
  });

  it("one principal's session openings never close another's session with a run in flight", async () => {
    const admin = agents[1] as Connected;
    // The run's middle read takes 4 s: the flood comes while it is in flight.
    env.sim.faults.add({ path: '/nodes/pve1/qemu/100/status/current', latencyMs: 4_000 });
    const inFlight = run(admin, `${snapshot(100, 'first')}\nawait pve.get('/nodes/pve1/qemu/100/status/current');\n${snapshot(100, 'second')}\nreturn 'both';`);
    await new Promise((r) => setTimeout(r, 1_000));
    const token = await idp.token('flood', url);
    let opened = 0;
    for (let i = 0; i < 20; i++) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
        body: JSON.stringify(INIT),
      });
      await res.text();
      if (res.status === 200) opened++;
    }
    expect(opened).toBe(20);
    const answer = await inFlight;
    expect(answer.error).toBeUndefined();
    expect(answer.result).toBe('both');
    expect(snapshotsOf(env.sim, 100)).toEqual(expect.arrayContaining(['first', 'second']));
    expect((await admin.client.listTools()).tools.length).toBe(3);
    expect(server.stderr()).toContain(`principal 'flood' has ${PER_PRINCIPAL} sessions open (its cap)`);
    expect(server.stderr()).not.toMatch(/closed session \S+ of 'admin'/);
  });
});
