/**
 * A shutdown of an HA-managed guest is the HA manager's stop, forced after the timeout: known only
 * once the guest is looked up (its `hastate`), it is then counted, limited and audited as the
 * destructive call it is. End to end over MCP against the simulator (VM 121 of the demo is an HA
 * resource, VM 118 is not). A listing that cannot be read counts the shutdown as the HA manager's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPolicyEnv, type PolicyEnv } from './helpers/env.js';

let env: PolicyEnv;

beforeAll(async () => {
  env = await startPolicyEnv({ policies: { nodestroy: { preset: 'admin', approval: { require: [] }, budget: { destructive: 0 } } }, defaultCluster: 'nodestroy', name: 'ha-shutdown' });
}, 180_000);

afterAll(async () => {
  await env?.close();
});

describe('the shutdown of an HA-managed guest', () => {
  it('is refused by the destructive budget where a plain guest shutdown runs as a write', async () => {
    const ha = await env.run("return await pve.post('/nodes/pve1/qemu/121/status/shutdown', { timeout: 30 });", { cluster: 'nodestroy' });
    expect(ha.ok, JSON.stringify(ha).slice(0, 1500)).toBe(false);
    expect(ha.error?.message).toMatch(/destructive budget used up/);
    expect(ha.stats?.calls.destructive).toBe(1);
    expect(ha.stats?.calls.write).toBe(0);

    const plain = await env.run("return await pve.post('/nodes/pve1/qemu/118/status/shutdown', { timeout: 30 });", { cluster: 'nodestroy' });
    expect(plain.ok, JSON.stringify(plain).slice(0, 1500)).toBe(true);
    expect(plain.stats?.calls.write).toBe(1);
  }, 120_000);

  it('is counted as one when the guest listing cannot be read (the riskier answer)', async () => {
    const fault = env.sim.faults.add({ path: '/cluster/resources', errorRate: 1, errorStatus: 500 });
    try {
      const blind = await env.run("return await pve.post('/nodes/pve1/qemu/118/status/shutdown', { timeout: 30 });", { cluster: 'nodestroy' });
      expect(blind.ok, JSON.stringify(blind).slice(0, 1500)).toBe(false);
      expect(blind.error?.message).toMatch(/destructive budget used up/);
      expect(blind.stats?.calls.destructive).toBe(1);
    } finally {
      env.sim.faults.remove(fault);
    }
  }, 120_000);
});
