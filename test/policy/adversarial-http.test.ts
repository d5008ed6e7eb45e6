/**
 * The adversarial policy corpus end to end over Streamable HTTP with OAuth principals: one built
 * server (`serve --http`, `http.oauth` against oidc-provider on 127.0.0.1) for the whole file,
 * one MCP session per principal, the simulator serving the official PVE 9.1 schema.
 *
 * Every corpus case runs as a principal whom `http.principals` maps to the case's policy (by user
 * for half of them, by group for the other half), on `main`, a cluster whose own policy is
 * admin: what decides is the principal's policy, resolved for the session, carried by the
 * request's authInfo. The `clusters` cases, which call one cluster through another, keep a
 * cluster per policy: they run as `fleet`, whose rules give each of those clusters (configured
 * read-only) its corpus policy.
 *
 * Then what stdio cannot have: a principal no rule matches cannot write (http.unmatched
 * read-only, the default) while a matched operator can; a read-only session cannot run on another
 * principal's approved plan, which its owner then runs; a member of a group mapped to admin on a
 * read-only cluster is decided by admin, and her read-scope token is not allowed to write.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasOfficialSchema, officialSchemaFile } from '../../src/schema/official-schemas.js';
import { statusOf, stopScript } from '../e2e/helpers/flows.js';
import type { IdpClient } from '../http/helpers/oidc.js';
import { CORPUS, CORPUS_POLICIES, corpusTests, reasonOf } from './helpers/corpus-run.js';
import { startPolicyHttpEnv, type PolicyHttpEnv, type PrincipalRule } from './helpers/env-http.js';

/** The clusters the `clusters` cases name, each read-only unless a rule says otherwise. */
const VIA_CLUSTERS = [...new Set(CORPUS.flatMap((c) => (c.via || c.twin.via ? [c.cluster, c.via, c.twin.cluster, c.twin.via] : [])).filter((x): x is string => x !== undefined))];
const POLICY_NAMES = Object.keys(CORPUS_POLICIES);
/** Every other corpus policy is reached through a group, the rest through the user. */
const BY_GROUP = new Set(POLICY_NAMES.filter((_, i) => i % 2 === 1));
const userFor = (policy: string): string => `u-${policy}`;

const secret = (id: string): string => `${id}-secret-0123456789`;
const USERS: IdpClient[] = [
  ...POLICY_NAMES.map((p) => ({ id: userFor(p), secret: secret(userFor(p)), scope: 'pve:read pve:write', ...(BY_GROUP.has(p) ? { groups: [`g-${p}`] } : {}) })),
  { id: 'fleet', secret: secret('fleet'), scope: 'pve:read pve:write' },
  // No rule names her: http.unmatched decides.
  { id: 'stranger', secret: secret('stranger'), scope: 'pve:read pve:write' },
  { id: 'boss', secret: secret('boss'), scope: 'pve:read pve:write', groups: ['admins'] },
  { id: 'carol', secret: secret('carol'), scope: 'pve:read pve:approve' },
];

const PRINCIPALS: PrincipalRule[] = [
  ...VIA_CLUSTERS.map((cluster) => ({ user: 'fleet', clusters: [cluster], policy: cluster })),
  ...POLICY_NAMES.map((p) => (BY_GROUP.has(p) ? { group: `g-${p}`, policy: p } : { user: userFor(p), policy: p })),
  { group: 'admins', policy: 'admin' },
];

const snapshot = (vmid: number, name: string): string => `return await pve.waitTask(await pve.post('/nodes/pve1/qemu/${vmid}/snapshot', { snapname: '${name}' }));`;
const SNAPSHOT = 'POST /nodes/{node}/qemu/{vmid}/snapshot';
const STOP = 'POST /nodes/{node}/qemu/{vmid}/status/stop';

let env: PolicyHttpEnv;

beforeAll(async () => {
  env = await startPolicyHttpEnv({
    policies: CORPUS_POLICIES,
    clusters: { main: 'admin', ...Object.fromEntries(VIA_CLUSTERS.map((c) => [c, 'read-only'])) },
    defaultCluster: 'main',
    principals: PRINCIPALS,
    users: USERS,
    simulator: { schemaFile: officialSchemaFile('9.1') },
  });
}, 180_000);

afterAll(async () => {
  await env?.close();
});

const made = (key: string): number => env.sim.counters.get(key);

const picked = new Set<number>();
/** A running VM on pve1 that no target rule names and no earlier test here used (the corpus moved some guests). */
/** An HA guest's power state follows the HA manager's clock, not the task's end: the cases here stop guests and check at once. */
function haManaged(vmid: number): boolean {
  return env.sim.cluster.state.haResources.has(`vm:${vmid}`);
}

function freshVm(options: { notHa?: boolean } = {}): number {
  env.sim.cluster.settle();
  const vm = env.sim.cluster
    .guests()
    .find(
      (g) =>
        g.type === 'qemu' &&
        g.node === 'pve1' &&
        g.status === 'running' &&
        !g.config.template &&
        !g.config.lock &&
        ![100, 109].includes(g.vmid) &&
        !picked.has(g.vmid) &&
        !(options.notHa && haManaged(g.vmid)),
    );
  if (!vm) throw new Error('no running VM left on pve1');
  picked.add(vm.vmid);
  return vm.vmid;
}

describe.skipIf(!hasOfficialSchema('9.1'))('adversarial policy corpus over HTTP, each case under the policy of the principal making the call', () => {
  it('maps every corpus policy to a principal, half by group', () => {
    expect(VIA_CLUSTERS.sort()).toEqual(['admin', 'op', 'ro', 'tight']);
    expect(BY_GROUP.size).toBeGreaterThanOrEqual(Math.floor(POLICY_NAMES.length / 2));
    expect(env.stderr()).toContain("principals no http.principals rule matches get each cluster's policy restricted to reads (http.unmatched: read-only, the default)");
  });

  corpusTests(
    () => env.sim,
    ({ cluster, via }, code) => (via ? env.run('fleet', code, { cluster }) : env.run(userFor(cluster), code, { cluster: 'main' })),
  );

  it("a principal no rule matches cannot write on a cluster whose own policy is admin (http.unmatched: read-only); a matched operator's same write is made", async () => {
    const vmid = freshVm();
    for (const code of [snapshot(vmid, 'strangerSnap'), `const p = ['/nodes/pve1/qemu/${vmid}', 'snapshot'].join('/'); return await pve.post(p, { snapname: 'strangerSnap' });`]) {
      const before = env.sim.counters.snapshot();
      const refused = await env.run('stranger', code);
      const where = JSON.stringify(refused).slice(0, 600);
      expect(refused.ok, where).toBe(false);
      expect(refused.error?.kind, where).toBe('denied');
      expect(reasonOf(refused), where).toMatch(/admin\+unmatched/);
      expect(env.sim.counters.snapshot().writes - before.writes, `${where}: a write reached the simulator`).toBe(0);
    }
    expect(await env.run('stranger', 'return (await pve.get("/version")).version')).toMatchObject({ ok: true });
    const before = made(SNAPSHOT);
    const twin = await env.run(userFor('op'), snapshot(vmid, 'operatorSnap'));
    expect(twin.error, JSON.stringify(twin)).toBeUndefined();
    expect(made(SNAPSHOT) - before).toBe(1);
  });

  it("a read-only session cannot run on another principal's approved plan; its owner then does", async () => {
    const owner = userFor('op');
    const vmid = freshVm({ notHa: true });
    const code = stopScript('pve1', vmid);
    const asked = await env.run(owner, code);
    expect(asked.error?.kind, JSON.stringify(asked)).toBe('approval');
    const planId = asked.plan?.planId as string;
    expect(planId).toMatch(/^[0-9a-f]{64}$/);
    const approved = await fetch(`${new URL(env.url).origin}/approvals/${planId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await env.token('carol')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ for: owner }),
    });
    expect(approved.status, await approved.clone().text()).toBe(200);
    expect(await approved.json()).toMatchObject({ approved: { planId, for: owner, approvedBy: 'carol' } });

    // Read-only by fallback (no rule), and by scope (a read token of an admin): the approved plan is not theirs.
    for (const [user, scope, why] of [
      ['stranger', undefined, /admin\+unmatched/],
      ['boss', 'pve:read', /admin\+read-scope/],
    ] as const) {
      const before = made(STOP);
      const refused = await env.run(user, code, { cluster: 'main', ...(scope ? { scope } : {}) });
      const where = `${user}: ${JSON.stringify(refused).slice(0, 600)}`;
      expect(refused.ok, where).toBe(false);
      expect(refused.error?.kind, where).toBe('denied');
      expect(reasonOf(refused), where).toMatch(why);
      expect(made(STOP) - before, `${where}: the stop reached the simulator`).toBe(0);
      expect(statusOf(env.sim, vmid)).toBe('running');
    }

    const before = made(STOP);
    const ran = await env.run(owner, code);
    expect(ran.error, JSON.stringify(ran)).toBeUndefined();
    expect(ran.approval).toMatchObject({ via: 'operator', answer: 'approved' });
    expect(made(STOP) - before).toBe(1);
    expect(statusOf(env.sim, vmid)).toBe('stopped');
  });

  it('a member of a group mapped to admin is decided by admin on a read-only cluster; her read-scope token is not allowed to write', async () => {
    const vmid = freshVm();
    let before = made(SNAPSHOT);
    const write = await env.run('boss', snapshot(vmid, 'bossSnap'), { cluster: 'ro' });
    expect(write.error, JSON.stringify(write)).toBeUndefined();
    expect(made(SNAPSHOT) - before).toBe(1);

    // Admin asks approval for a hard stop, where the cluster's read-only policy would refuse it.
    const hard = await env.run('boss', `return await pve.post('/nodes/pve1/qemu/${vmid}/status/shutdown', { forceStop: 1, timeout: 0 });`, { cluster: 'ro' });
    expect(hard.error?.kind, JSON.stringify(hard)).toBe('approval');
    expect(reasonOf(hard)).toMatch(/forceStop/);

    before = made(SNAPSHOT);
    const reader = await env.run('boss', snapshot(vmid, 'bossReadSnap'), { cluster: 'ro', scope: 'pve:read' });
    expect(reader.ok).toBe(false);
    expect(reader.error?.kind, JSON.stringify(reader)).toBe('denied');
    expect(reasonOf(reader)).toMatch(/admin\+read-scope/);
    expect(made(SNAPSHOT) - before).toBe(0);
  });

  it("audited each corpus principal's runs under its own policy, never the cluster's", () => {
    const starts = env.auditEntries().filter((e) => e.type === 'run-start') as Array<{ policy?: string; principal?: { id?: string }; cluster?: string }>;
    const policiesOf = (user: string) => new Set(starts.filter((e) => e.principal?.id === user).map((e) => e.policy));
    const ran = new Set(CORPUS.filter((c) => !c.via && !c.twin.via).map((c) => c.cluster));
    for (const p of ran) expect(policiesOf(userFor(p)), userFor(p)).toEqual(new Set([p]));
    expect(policiesOf('fleet')).toEqual(new Set(['admin', 'tight']));
    expect(policiesOf('stranger')).toEqual(new Set(['admin+unmatched']));
  });

  it('kept the server running throughout', async () => {
    expect(await env.run('stranger', 'return (await pve.get("/version")).version')).toMatchObject({ ok: true });
  });
});
