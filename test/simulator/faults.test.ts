/**
 * Fault injection and request counters at run time, over real HTTPS.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { call, login, startTestSimulator } from './helpers.js';

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startTestSimulator({ rootPassword: 'pw-root' });
});
afterAll(async () => {
  await sim.close();
});
afterEach(() => {
  sim.faults.clear();
});

describe('fault injection', () => {
  it('adds latency to matching paths only', async () => {
    sim.faults.add({ path: '/nodes/*/qemu', method: 'GET', latencyMs: 250 });
    const t0 = Date.now();
    expect((await call(sim, '/api2/json/nodes/pve1/qemu')).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(240);
    const t1 = Date.now();
    await call(sim, '/api2/json/version');
    expect(Date.now() - t1).toBeLessThan(240);
  });

  it('fails matching calls with the configured status and message, by template too', async () => {
    const id = sim.faults.add({ path: '/nodes/{node}/qemu/{vmid}/status/current', errorRate: 1, errorStatus: 503, errorMessage: 'backend busy' });
    const r = await call(sim, '/api2/json/nodes/pve1/qemu/100/status/current');
    expect(r.status).toBe(503);
    expect(r.statusText).toBe('backend busy');
    expect(r.json).toEqual({ data: null, message: 'backend busy\n' });
    expect(sim.faults.remove(id)).toBe(true);
    expect((await call(sim, '/api2/json/nodes/pve1/qemu/100/status/current')).status).toBe(200);
  });

  it('resets connections before or after the handler ran', async () => {
    sim.faults.add({ path: '/access/users', method: 'POST', resetRate: 1, resetWhen: 'before' });
    await expect(call(sim, '/api2/json/access/users', { method: 'POST', body: { userid: 'lost@pve' } })).rejects.toThrow();
    expect(sim.access.store.user('lost@pve')).toBeUndefined();
    sim.faults.clear();
    sim.faults.add({ path: '/access/users', method: 'POST', resetRate: 1, resetWhen: 'after' });
    await expect(call(sim, '/api2/json/access/users', { method: 'POST', body: { userid: 'kept@pve' } })).rejects.toThrow();
    expect(sim.access.store.user('kept@pve')).toBeDefined();
  });

  it('expires every ticket at once', async () => {
    const before = await login(sim, 'root@pam', 'pw-root');
    expect((await call(sim, '/api2/json/version', { auth: { ticket: before.ticket } })).status).toBe(200);
    await sim.faults.expireTickets();
    const r = await call(sim, '/api2/json/version', { auth: { ticket: before.ticket } });
    expect(r.status).toBe(401);
    const after = await login(sim, 'root@pam', 'pw-root');
    expect((await call(sim, '/api2/json/version', { auth: { ticket: after.ticket } })).status).toBe(200);
  });
});

describe('request counters', () => {
  it('counts calls per operation template and writes that reached a handler', async () => {
    sim.counters.reset();
    await call(sim, '/api2/json/nodes/pve1/qemu');
    await call(sim, '/api2/json/nodes/pve2/qemu');
    await call(sim, '/api2/json/access/users', { method: 'POST', body: { userid: 'counted@pve' } });
    await call(sim, '/api2/json/access/users', { method: 'POST', body: { comment: 'invalid' } });
    await call(sim, '/api2/json/nope');
    const snap = sim.counters.snapshot();
    expect(snap.byOperation['GET /nodes/{node}/qemu']).toBe(2);
    expect(snap.byOperation['POST /access/users']).toBe(2);
    expect(snap.byOperation['GET (unmatched)']).toBe(1);
    expect(snap.writes).toBe(1);
    expect(snap.total).toBe(5);
  });
});
