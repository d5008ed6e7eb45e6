import { describe, expect, it } from 'vitest';
import { FakeClient } from '../safety/helpers/fake-client.js';
import { testModel } from '../safety/helpers/model.js';
import { sdkCallsOf, type SdkCall } from '../../src/script/calls.js';
import { lineCount, parseProgram } from '../../src/script/program.js';
import { GuestDirectory } from '../../src/policy/guests.js';
import { Policy } from '../../src/policy/policy.js';
import { getMayNeedApproval, preflight } from '../../src/policy/preflight.js';
import type { ApiModel } from '../../src/schema/model.js';
import { PermissionCache, TokenPrivileges, UNKNOWN_SEGMENT } from '../../src/policy/privileges.js';
import { withSecretGet as secretGetModel } from '../support/secret-get.js';

/** The SDK calls of a source, read as the compile reads them. */
const extractSdkCalls = (source: string): SdkCall[] => sdkCallsOf(parseProgram(source), lineCount(source));

const model = testModel();

function run(
  code: string,
  policyConfig: unknown,
  client = new FakeClient([
    { vmid: 101, node: 'pve1', name: 'web' },
    { vmid: 300, node: 'pve2', name: 'far' },
  ]),
) {
  const deps = {
    defaultCluster: 'default',
    model: () => model,
    client: () => client,
    policy: Policy.fromConfig(policyConfig),
    permissions: new PermissionCache(),
    guests: new GuestDirectory(() => client),
  };
  return { report: preflight(extractSdkCalls(code), deps), client };
}

describe('TokenPrivileges', () => {
  const privs = new TokenPrivileges({ '/': { 'Sys.Audit': 1 }, '/vms': { 'VM.Audit': 1 }, '/vms/101': { 'VM.Audit': 1, 'VM.PowerMgmt': 1 } });
  it('inherits from the nearest listed ancestor', () => {
    expect(privs.hasPriv('/vms/101', 'VM.PowerMgmt')).toBe(true);
    expect(privs.hasPriv('/vms/102', 'VM.PowerMgmt')).toBe(false);
    expect(privs.hasPriv('/vms/102', 'VM.Audit')).toBe(true);
    expect(privs.privsAt('/nodes/pve1')).toEqual(['Sys.Audit']);
  });
  it('treats unknown segments as wildcards', () => {
    expect(privs.hasPriv(`/vms/${UNKNOWN_SEGMENT}`, 'VM.PowerMgmt')).toBe(true);
    expect(privs.hasPriv(`/vms/${UNKNOWN_SEGMENT}`, 'VM.Allocate')).toBe(false);
  });
});

describe('preflight', () => {
  it('reports a missing privilege before the run, naming what the token has', async () => {
    const { report, client } = run(`await pve.post('/nodes/{node}/qemu/{vmid}/status/start', { node: 'pve1', vmid: 102 });`, { preset: 'operator' });
    const r = await report;
    expect(r.ok).toBe(false);
    expect(r.problems).toEqual([{ line: 1, col: 7, severity: 'error', kind: 'privilege', message: 'POST /nodes/pve1/qemu/102/status/start needs VM.PowerMgmt on /vms/102; token has VM.Audit only' }]);
    expect(client.writes).toHaveLength(0);
  });

  it('passes when the token has the privilege, and caches the permission lookup', async () => {
    const client = new FakeClient();
    client.permissions = { '/vms': { 'VM.PowerMgmt': 1, 'VM.Audit': 1 } };
    const cache = new PermissionCache();
    const deps = { defaultCluster: 'default', model: () => model, client: () => client, policy: Policy.fromConfig({ preset: 'operator' }), permissions: cache };
    const code = `for (const id of [101, 102]) await pve.post(\`/nodes/pve1/qemu/\${id}/status/start\`);\nawait pve.post('/nodes/pve1/qemu/101/status/start');`;
    const r = await preflight(extractSdkCalls(code), deps);
    expect(r.ok).toBe(true);
    expect(r.operations[0]).toMatchObject({ operation: 'POST /nodes/{node}/qemu/{vmid}/status/start', static: false, needsApproval: false });
    expect(r.hasDynamicCalls).toBe(false);
    await preflight(extractSdkCalls(code), deps);
    expect(client.requests.filter((q) => q.path === '/access/permissions')).toHaveLength(1);
  });

  it('reports policy denials and scope violations with the rule', async () => {
    const denied = await run(`await pve.delete('/nodes/pve1/qemu/101');`, { preset: 'operator' }).report;
    expect(denied.problems[0]).toMatchObject({ kind: 'denied', severity: 'error' });
    expect(denied.problems[0]?.message).toMatch(/preset 'operator'/);
    const scoped = await run(`await pve.post('/nodes/pve2/qemu/300/status/start');`, { preset: 'operator', scopes: { vmids: ['100-199'] } }).report;
    expect(scoped.problems[0]?.message).toMatch(/VMID 300, outside .*scopes\.vmids/);
  });

  it('flags approval needs, unknown operations and dynamic calls', async () => {
    const r = await run([`await pve.post('/nodes/pve1/qemu/101/status/stop');`, `await pve.get('/nodes/pve1/qemu/101/confg');`, `const p = compute(); await pve.post(p);`].join('\n'), {
      preset: 'operator',
    }).report;
    expect(r.needsApproval).toBe(true);
    expect(r.operations[0]).toMatchObject({ operation: 'POST /nodes/{node}/qemu/{vmid}/status/stop', risk: 'destructive', needsApproval: true, static: true });
    expect(r.problems.find((p) => p.kind === 'unknown-operation')).toMatchObject({ line: 2, severity: 'error' });
    expect(r.hasDynamicCalls).toBe(true);
    const opaqueParams = await run(`const o = make(); await pve.put('/nodes/pve1/qemu/101/config', o);`, { preset: 'operator' }).report;
    expect(opaqueParams.hasDynamicCalls).toBe(true);
  });

  describe('a GET whose path is known only at run time', () => {
    const withSecretGet = secretGetModel(model);
    const dynamicGet = `const p = compute(); return await pve.get(p);`;
    const check = (m: ApiModel, policyConfig: unknown) =>
      preflight(extractSdkCalls(dynamicGet), { defaultCluster: 'default', model: () => m, client: () => new FakeClient(), policy: Policy.fromConfig(policyConfig) });

    it('needs no probe when no GET of the schema can need approval under the policy', async () => {
      expect(getMayNeedApproval(model, Policy.fromConfig({ preset: 'operator' }))).toBe(false);
      expect((await check(model, { preset: 'operator' })).hasDynamicCalls).toBe(false);
    });

    it('still counts as dynamic when some GET is privileged, enabled, and the policy asks approval for privileged', async () => {
      const policy = { preset: 'operator', privileged: ['GET /nodes/{node}/keys'], approval: { require: ['privileged'] } };
      expect(getMayNeedApproval(withSecretGet, Policy.fromConfig(policy))).toBe(true);
      expect((await check(withSecretGet, policy)).hasDynamicCalls).toBe(true);
      // …and not when the policy asks approval for destructive calls only.
      expect((await check(withSecretGet, { ...policy, approval: { require: ['destructive'] } })).hasDynamicCalls).toBe(false);
      // …nor when the policy enables no privileged call at all: a privileged GET is then refused, never asked for.
      expect((await check(withSecretGet, { preset: 'operator', approval: { require: ['privileged'] } })).hasDynamicCalls).toBe(false);
    });

    it('counts as dynamic on a tainted session under taint.writes: approval', async () => {
      const tainted = Policy.fromConfig({ preset: 'operator', privileged: ['GET /nodes/{node}/keys'], approval: { require: [] }, taint: { writes: 'approval' } }).afterTaint(['guest log']);
      expect(getMayNeedApproval(withSecretGet, tainted)).toBe(true);
    });

    it('counts as dynamic on a cluster the source does not name literally', async () => {
      const r = await preflight(extractSdkCalls(`const c = pick(); return await pve.cluster(c).get('/version');`), {
        defaultCluster: 'default',
        model: () => model,
        client: () => new FakeClient(),
        policy: Policy.fromConfig({ preset: 'operator' }),
      });
      expect(r.hasDynamicCalls).toBe(true);
    });
  });

  it('warns instead of failing when the permissions cannot be read', async () => {
    const client = new FakeClient();
    client.permissions = null as unknown as Record<string, Record<string, number>>;
    const r = await run(`await pve.get('/nodes/pve1/qemu/101/config');`, undefined, client).report;
    expect(r.ok).toBe(true);
    expect(r.problems[0]).toMatchObject({ kind: 'permissions-unavailable', severity: 'warning' });
  });
});
