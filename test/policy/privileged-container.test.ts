/**
 * A feature flag written to an existing privileged container is root@pam's in PVE (nesting there
 * exposes the host's procfs and sysfs to a root that is the host's), and the call does not say
 * which kind the container is: the bridge reads the container's config and raises the write to
 * privileged. End to end over MCP against the simulator, one demo container made privileged
 * behind the product's back; the same write to an unprivileged one stays a guest configuration.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPolicyEnv, type PolicyEnv } from './helpers/env.js';

let env: PolicyEnv;
let privileged: { node: string; vmid: number };
let unprivileged: { node: string; vmid: number };

beforeAll(async () => {
  env = await startPolicyEnv({
    policies: {
      op: { preset: 'operator' },
      // May create a privileged container, not give one feature flags.
      maker: { preset: 'admin', approval: { require: [] }, privileged: ['POST /nodes/*/lxc +ct-privileged'] },
    },
    defaultCluster: 'op',
    name: 'privileged-container',
    arrange(sim) {
      const cts = sim.cluster.guests().filter((g) => g.type === 'lxc' && !g.config.template && !g.config.lock);
      const [a, b] = cts;
      if (!a || !b) throw new Error('the demo preset has fewer than two containers');
      delete a.config.unprivileged;
      privileged = { node: a.node, vmid: a.vmid };
      unprivileged = { node: b.node, vmid: b.vmid };
    },
  });
}, 180_000);

afterAll(async () => {
  await env?.close();
});

const configWrite = (ct: { node: string; vmid: number }, params: string) => `return await pve.put('/nodes/${ct.node}/lxc/${ct.vmid}/config', ${params});`;

describe('a feature flag on an existing container', () => {
  it('is privileged on a privileged container, read from its config, and refused without that allowance', async () => {
    const nesting = await env.run(configWrite(privileged, "{ features: 'nesting=1' }"));
    expect(nesting.ok, JSON.stringify(nesting).slice(0, 1500)).toBe(false);
    expect(nesting.error?.message).toMatch(/privileged/);
    expect(nesting.error?.message).toMatch(/ct-features|features/);
  }, 120_000);

  it('stays a guest configuration on an unprivileged container, and other writes to the privileged one run', async () => {
    const flag = await env.run(configWrite(unprivileged, "{ features: 'nesting=1' }"));
    expect(flag.ok, JSON.stringify(flag).slice(0, 1500)).toBe(true);
    const description = await env.run(configWrite(privileged, "{ description: 'kept' }"));
    expect(description.ok, JSON.stringify(description).slice(0, 1500)).toBe(true);
  }, 120_000);

  it("is privileged on a container this run creates privileged (not in the run's guest listing): before the run and at the call", async () => {
    const { node } = privileged;
    const storage = String(env.sim.cluster.guests().find((g) => g.vmid === privileged.vmid)?.config.rootfs).split(':')[0];
    const template = env.sim.cluster.state.volumes.find((v) => v.content === 'vztmpl' && (v.node === undefined || v.node === node))?.volid;
    const create = (vmid: string) => `const upid = await pve.post('/nodes/${node}/lxc', { vmid: ${vmid}, ostemplate: '${template}', storage: '${storage}', unprivileged: 0 });
await pve.waitTask(upid);
return await pve.put(\`/nodes/${node}/lxc/\${${vmid}}/config\`, { features: 'nesting=1' });`;

    // Literal: the preflight reads the container's config, finds none yet, and counts it as privileged.
    const seen = await env.run(create('997'), { cluster: 'maker' });
    expect(seen.ok, JSON.stringify(seen).slice(0, 1500)).toBe(false);
    expect(seen.error?.message).toMatch(/preflight[\s\S]*privileged with parameter 'features'/);
    expect(env.sim.cluster.guests().some((g) => g.vmid === 997)).toBe(false);

    // Built at run time: the create runs on its own allowance, the flag is refused at the call.
    const live = await env.run(create('990 + 6'), { cluster: 'maker' });
    expect(live.ok, JSON.stringify(live).slice(0, 1500)).toBe(false);
    expect(live.error?.message, JSON.stringify(live.error)).toMatch(/privileged with parameter .features./);
    const created = env.sim.cluster.guests().find((g) => g.vmid === 996);
    expect(created?.config.unprivileged ?? 0).toBe(0);
    expect(created?.config.features).toBeUndefined();
  }, 120_000);

  it('counts as privileged when the cluster cannot say: the guest listing and the config unreadable', async () => {
    const faults = [
      env.sim.faults.add({ path: '/cluster/resources', errorRate: 1, errorStatus: 500 }),
      env.sim.faults.add({ path: '/nodes/*/lxc/*/config', method: 'GET', errorRate: 1, errorStatus: 500 }),
    ];
    try {
      const blind = await env.run(configWrite(unprivileged, "{ features: 'nesting=1' }"));
      expect(blind.ok, JSON.stringify(blind).slice(0, 1500)).toBe(false);
      expect(blind.error?.message).toMatch(/privileged with parameter 'features'/);
    } finally {
      for (const id of faults) env.sim.faults.remove(id);
    }
    const seeing = await env.run(configWrite(unprivileged, "{ features: 'nesting=1' }"));
    expect(seeing.ok, JSON.stringify(seeing).slice(0, 1500)).toBe(true);
  }, 120_000);
});
