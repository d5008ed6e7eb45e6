/**
 * Firewall IP sets over plain HTTPS: an entry's CIDR is the rest of the path (slash included),
 * entries come newest first with the list's digest, stale digests and duplicates are refused with
 * PVE's errors; the cluster's sets need Sys.Modify on / to change, a guest's VM.Config.Network. Runs against the
 * simulator's own schema and, where present, the official 9.1 schema with responses checked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasOfficialSchema, officialSchemaFile } from '../../src/schema/official-schemas.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { call, login, startTestSimulator } from './helpers.js';

const variants = [{ name: 'own schema', schemaFile: undefined }, ...(hasOfficialSchema('9.1') ? [{ name: 'official 9.1 schema, responses checked', schemaFile: officialSchemaFile('9.1') }] : [])];
const BASE = '/api2/json/cluster/firewall/ipset';

describe.each(variants)('cluster firewall IP sets ($name)', ({ schemaFile }) => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startTestSimulator({ checkResponses: true, ...(schemaFile ? { schemaFile } : {}) });
  });
  afterAll(async () => {
    await sim.close();
  });

  /** A new user holding one role on one path, logged in. */
  const sessionWith = async (userid: string, path: string, role: string) => {
    sim.access.addUser(userid, { password: 'ipset-test-pass' });
    sim.access.grant({ path, roles: [role], users: [userid] });
    const s = await login(sim, userid, 'ipset-test-pass');
    return { ticket: s.ticket, csrf: s.csrf };
  };

  it("lists the seeded sets with one digest, and a set's entries newest first", async () => {
    const sets = (await call(sim, BASE)).json.data as Array<{ name: string; comment?: string; digest: string }>;
    expect(sets.map((s) => s.name)).toEqual(['blocklist', 'management']);
    expect(new Set(sets.map((s) => s.digest)).size).toBe(1);
    expect(sets[0]?.digest).toMatch(/^[0-9a-f]{40}$/);
    const entries = (await call(sim, `${BASE}/blocklist`)).json.data as Array<{ cidr: string; nomatch?: number }>;
    expect(entries.map((e) => e.cidr)).toEqual(['203.0.113.7', '203.0.113.0/24', '2001:db8:bad::/48']);
    expect(entries[0]?.nomatch).toBe(1);
    const v6 = await call(sim, `${BASE}/blocklist/2001:db8:bad::/48`);
    expect(v6.status).toBe(200);
    expect(v6.json.data).toMatchObject({ cidr: '2001:db8:bad::/48' });
  });

  it('creates a set, adds, reads, updates and removes entries addressed by CIDR path, then deletes it', async () => {
    const post = (path: string, body: Record<string, string | number>) => call(sim, path, { method: 'POST', body });
    expect((await post(BASE, { name: 'edge', comment: 'Edge routers' })).status).toBe(200);
    const again = await post(BASE, { name: 'edge' });
    expect([again.status, again.json.errors]).toEqual([400, { name: "IPSet 'edge' already exists" }]);

    expect((await post(`${BASE}/edge`, { cidr: '198.51.100.0/24', comment: 'Transit' })).status).toBe(200);
    expect((await post(`${BASE}/edge`, { cidr: '198.51.100.9' })).status).toBe(200);
    const dup = await post(`${BASE}/edge`, { cidr: '198.51.100.0/24' });
    expect([dup.status, dup.json.errors]).toEqual([400, { cidr: "address '198.51.100.0/24' already exists" }]);
    const zero = await post(`${BASE}/edge`, { cidr: '0.0.0.0/0' });
    expect([zero.status, zero.json.errors]).toEqual([400, { cidr: 'a zero prefix is not allowed in ipset entries' }]);
    const alias = await post(`${BASE}/edge`, { cidr: 'dc/routers' });
    expect([alias.status, alias.statusText]).toEqual([500, "no such alias 'dc/routers'"]);
    const bad = await post(`${BASE}/edge`, { cidr: '300.1.2.3' });
    expect(bad.status).toBe(400);
    expect(bad.json.errors.cidr).toMatch(/does not look like a valid IP address or CIDR network/);

    const entry = await call(sim, `${BASE}/edge/198.51.100.0/24`);
    expect(entry.status).toBe(200);
    expect(entry.json.data).toEqual({ cidr: '198.51.100.0/24', comment: 'Transit', digest: expect.stringMatching(/^[0-9a-f]{40}$/) });
    const missing = await call(sim, `${BASE}/edge/198.51.100.0/25`);
    expect([missing.status, missing.json.errors]).toEqual([400, { cidr: 'no such IP/Network' }]);

    const stale = await call(sim, `${BASE}/edge/198.51.100.0/24`, { method: 'PUT', body: { nomatch: 1, digest: '0'.repeat(40) } });
    expect([stale.status, stale.statusText]).toEqual([500, 'detected modified configuration - file changed by other user? Try again.']);
    const updated = await call(sim, `${BASE}/edge/198.51.100.0/24`, { method: 'PUT', body: { nomatch: 1, digest: entry.json.data.digest } });
    expect(updated.status).toBe(200);
    // PUT replaces both settings: the comment not given is gone.
    expect((await call(sim, `${BASE}/edge/198.51.100.0/24`)).json.data).toMatchObject({ cidr: '198.51.100.0/24', nomatch: 1 });
    expect((await call(sim, `${BASE}/edge/198.51.100.0/24`)).json.data.comment).toBeUndefined();
    expect((await call(sim, `${BASE}/edge`)).json.data.map((e: { cidr: string }) => e.cidr)).toEqual(['198.51.100.9', '198.51.100.0/24']);

    const notEmpty = await call(sim, `${BASE}/edge`, { method: 'DELETE' });
    expect([notEmpty.status, notEmpty.statusText]).toEqual([500, "IPSet 'edge' is not empty"]);
    expect((await call(sim, `${BASE}/edge/198.51.100.0/24`, { method: 'DELETE' })).status).toBe(200);
    expect((await call(sim, `${BASE}/edge`)).json.data.map((e: { cidr: string }) => e.cidr)).toEqual(['198.51.100.9']);
    expect((await call(sim, `${BASE}/edge?force=1`, { method: 'DELETE' })).status).toBe(200);
    const gone = await call(sim, `${BASE}/edge`);
    expect([gone.status, gone.statusText]).toEqual([500, "no such IPSet 'edge'"]);
  });

  it('renames a set (keeping its entries) only against the current digest', async () => {
    const post = (body: Record<string, string>) => call(sim, BASE, { method: 'POST', body });
    expect((await post({ name: 'temp', comment: 'first' })).status).toBe(200);
    expect((await call(sim, `${BASE}/temp`, { method: 'POST', body: { cidr: '192.0.2.1' } })).status).toBe(200);
    const stale = await post({ name: 'renamed', rename: 'temp', digest: 'f'.repeat(40) });
    expect(stale.status).toBe(500);
    const digest = (await call(sim, BASE)).json.data[0].digest as string;
    const taken = await post({ name: 'management', rename: 'temp', digest });
    expect([taken.status, taken.json.errors]).toEqual([400, { name: "IPSet 'management' does already exist" }]);
    expect((await post({ name: 'renamed', rename: 'temp', comment: 'second', digest })).status).toBe(200);
    const sets = (await call(sim, BASE)).json.data as Array<{ name: string; comment?: string }>;
    expect(sets.find((s) => s.name === 'renamed')?.comment).toBe('second');
    expect(sets.some((s) => s.name === 'temp')).toBe(false);
    expect((await call(sim, `${BASE}/renamed`)).json.data.map((e: { cidr: string }) => e.cidr)).toEqual(['192.0.2.1']);
    expect((await call(sim, `${BASE}/renamed?force=1`, { method: 'DELETE' })).status).toBe(200);
  });

  it("keeps each guest's own sets by VMID, readable with VM.Audit and changed with VM.Config.Network", async () => {
    const guest = `/api2/json/nodes/pve1/qemu/100/firewall/ipset`;
    // As on PVE, a guest's firewall file is read without looking for the guest.
    expect((await call(sim, '/api2/json/nodes/pve1/qemu/999999/firewall/ipset')).json.data).toEqual([]);
    expect((await call(sim, guest, { method: 'POST', body: { name: 'allowed' } })).status).toBe(200);
    expect((await call(sim, `${guest}/allowed`, { method: 'POST', body: { cidr: 'fd00:10::/64', comment: 'Backend' } })).status).toBe(200);
    const entry = await call(sim, `${guest}/allowed/fd00:10::/64`);
    expect(entry.json.data).toMatchObject({ cidr: 'fd00:10::/64', comment: 'Backend' });
    // Not the cluster's sets, nor another guest's.
    expect((await call(sim, `${BASE}/allowed`)).status).toBe(500);
    expect(((await call(sim, '/api2/json/nodes/pve1/qemu/101/firewall/ipset')).json.data as Array<{ name: string }>).map((s) => s.name)).not.toContain('allowed');

    const auth = await sessionWith('vm-user@pve', '/vms/100', 'PVEVMUser');
    expect((await call(sim, `${guest}/allowed`, { auth })).status).toBe(200);
    const denied = await call(sim, `${guest}/allowed`, { method: 'POST', auth, body: { cidr: '192.0.2.60' } });
    expect([denied.status, denied.statusText]).toEqual([403, 'Permission check failed (/vms/100, VM.Config.Network)']);
    expect((await call(sim, `${guest}/allowed?force=1`, { method: 'DELETE' })).status).toBe(200);
  });

  it("gives a clone a copy of its source's sets and drops a guest's sets with the guest", async () => {
    sim.cluster.settle();
    const source = sim.cluster.guests().find((g) => g.type === 'qemu' && g.node === 'pve1' && g.status === 'stopped' && !g.config.template && !g.config.lock);
    expect(source).toBeDefined();
    const vm = `/api2/json/nodes/pve1/qemu/${source?.vmid}`;
    expect((await call(sim, `${vm}/firewall/ipset`, { method: 'POST', body: { name: 'backend' } })).status).toBe(200);
    expect((await call(sim, `${vm}/firewall/ipset/backend`, { method: 'POST', body: { cidr: '10.30.0.0/16' } })).status).toBe(200);
    const finished = async (upid: string) => {
      for (let i = 0; i < 200 && (await call(sim, `/api2/json/nodes/pve1/tasks/${encodeURIComponent(upid)}/status`)).json.data.status !== 'stopped'; i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    const clone = await call(sim, `${vm}/clone`, { method: 'POST', body: { newid: 7701, full: 1 } });
    expect(clone.status).toBe(200);
    await finished(clone.json.data);
    const copy = '/api2/json/nodes/pve1/qemu/7701/firewall/ipset/backend';
    expect((await call(sim, copy)).json.data.map((e: { cidr: string }) => e.cidr)).toEqual(['10.30.0.0/16']);
    // A copy, not the same list: changing the clone's set leaves the source's alone.
    expect((await call(sim, copy, { method: 'POST', body: { cidr: '10.31.0.0/16' } })).status).toBe(200);
    expect((await call(sim, `${vm}/firewall/ipset/backend`)).json.data).toHaveLength(1);

    const destroy = await call(sim, '/api2/json/nodes/pve1/qemu/7701', { method: 'DELETE' });
    expect(destroy.status).toBe(200);
    await finished(destroy.json.data);
    expect((await call(sim, '/api2/json/nodes/pve1/qemu/7701/firewall/ipset')).json.data).toEqual([]);
  });

  it('lets an auditor read but not change them', async () => {
    const auth = await sessionWith('fw-auditor@pve', '/', 'PVEAuditor');
    expect((await call(sim, `${BASE}/management`, { auth })).status).toBe(200);
    const denied = await call(sim, `${BASE}/management`, { method: 'POST', auth, body: { cidr: '192.0.2.50' } });
    expect([denied.status, denied.statusText]).toEqual([403, 'Permission check failed (/, Sys.Modify)']);
  });
});
