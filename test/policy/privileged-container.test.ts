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
    policies: { op: { preset: 'operator' } },
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
});
