/**
 * Firewall rules, options, aliases and groups, and SDN vnets read back what was written, with
 * PVE's digests and checks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { call, startTestSimulator } from './helpers.js';

describe('firewall and SDN writes', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startTestSimulator({ taskDurationMs: 0 });
  });
  afterAll(async () => {
    await sim?.close();
  });
  const api = (method: string, path: string, body?: Record<string, string | number>) => call(sim, `/api2/json${path}`, { method, ...(body ? { body } : {}) });

  it('cluster rules: insert, read back, move, digest guard, checks', async () => {
    const before = (await api('GET', '/cluster/firewall/rules')).json.data;
    expect(before.length).toBeGreaterThan(0);
    const digest = before[0].digest;
    expect((await api('POST', '/cluster/firewall/rules', { type: 'in', action: 'ACCEPT', proto: 'tcp', dport: '443', source: 'app_net', pos: 1, digest })).status).toBe(200);
    const after = (await api('GET', '/cluster/firewall/rules')).json.data;
    expect(after[1]).toMatchObject({ pos: 1, type: 'in', action: 'ACCEPT', proto: 'tcp', dport: '443', source: 'app_net' });
    const stale = await api('DELETE', `/cluster/firewall/rules/0?digest=${digest}`);
    expect(stale.status).toBe(500);
    expect(stale.statusText).toContain('detected modified configuration');
    expect((await api('POST', '/cluster/firewall/rules', { type: 'in', action: 'ACCEPT', macro: 'Nope' })).json.errors.macro).toContain("unknown macro 'Nope'");
    expect((await api('POST', '/cluster/firewall/rules', { type: 'in', action: 'ACCEPT', source: 'nowhere' })).json.errors.source).toContain("no such alias 'nowhere'");
    expect((await api('POST', '/cluster/firewall/rules', { type: 'in', action: 'ACCEPT', dport: '80' })).json.errors.dport).toBeDefined();
    expect((await api('PUT', '/cluster/firewall/rules/1', { moveto: 0 })).status).toBe(200);
    expect((await api('GET', '/cluster/firewall/rules/0')).json.data.dport).toBe('443');
    expect((await api('GET', '/cluster/firewall/rules/99')).statusText).toBe('no rule at position 99');
  });

  it('options, aliases and groups', async () => {
    expect((await api('PUT', '/nodes/pve1/qemu/100/firewall/options', { policy_in: 'REJECT', enable: 1 })).status).toBe(200);
    expect((await api('GET', '/nodes/pve1/qemu/100/firewall/options')).json.data).toMatchObject({ policy_in: 'REJECT', enable: 1 });
    expect((await api('POST', '/cluster/firewall/aliases', { name: 'mail', cidr: '10.0.0.25' })).status).toBe(200);
    expect((await api('GET', '/cluster/firewall/aliases/mail')).json.data).toMatchObject({ name: 'mail', cidr: '10.0.0.25' });
    const refs = (await api('GET', '/cluster/firewall/refs?type=alias')).json.data;
    expect(refs.find((r: { name: string }) => r.name === 'mail')).toMatchObject({ ref: 'dc/mail', scope: 'dc' });
    expect((await api('POST', '/cluster/firewall/ipset/management', { cidr: 'mail' })).status).toBe(200);
    expect((await api('POST', '/cluster/firewall/groups', { group: 'mailsrv' })).status).toBe(200);
    expect((await api('POST', '/cluster/firewall/groups/mailsrv', { type: 'in', action: 'ACCEPT', macro: 'SMTP' })).status).toBe(200);
    expect((await api('DELETE', '/cluster/firewall/groups/mailsrv')).statusText).toContain('is not empty');
    expect((await api('POST', '/nodes/pve1/qemu/100/firewall/rules', { type: 'group', action: 'mailsrv' })).status).toBe(200);
    expect((await api('POST', '/nodes/pve1/qemu/100/firewall/rules', { type: 'group', action: 'nosuch' })).json.errors.action).toContain('does not exist');
  });

  it('SDN: a new vnet is pending until applied', async () => {
    expect((await api('POST', '/cluster/sdn/vnets', { vnet: 'vlan40', zone: 'lan', tag: 40 })).status).toBe(200);
    expect((await api('POST', '/cluster/sdn/vnets', { vnet: 'vlan41', zone: 'lan', tag: 40 })).statusText).toContain('tag 40 already exists');
    const pending = (await api('GET', '/cluster/sdn/vnets?pending=1')).json.data.find((v: { vnet: string }) => v.vnet === 'vlan40');
    expect(pending.state).toBe('new');
    expect((await api('GET', '/cluster/sdn/vnets?running=1')).json.data.some((v: { vnet: string }) => v.vnet === 'vlan40')).toBe(false);
    expect((await api('PUT', '/cluster/sdn')).status).toBe(200);
    sim.cluster.settle();
    expect((await api('GET', '/cluster/sdn/vnets?running=1')).json.data.some((v: { vnet: string }) => v.vnet === 'vlan40')).toBe(true);
    expect((await api('DELETE', '/cluster/sdn/zones/lan')).statusText).toContain("vnet 'vlan");
  });
});
