/**
 * A realistic operator flow through plain HTTPS requests (undici fetch, no project client):
 * login → list → start → wait for the task → snapshot → rollback → stop → destroy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasOfficialSchema, officialSchemaFile } from '../../src/schema/official-schemas.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { call, login, startTestSimulator } from './helpers.js';

const UPID_RE = /^UPID:[a-zA-Z0-9-]+:[0-9A-F]{8}:[0-9A-F]{8,9}:[0-9A-F]{8}:[^:\s/]+:[^:\s/]*:[^:\s/]+:$/;

const variants = [{ name: 'own schema', schemaFile: undefined }, ...(hasOfficialSchema('9.1') ? [{ name: 'official 9.1 schema, responses checked', schemaFile: officialSchemaFile('9.1') }] : [])];

describe.each(variants)('operator flow over plain HTTPS ($name)', ({ schemaFile }) => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startTestSimulator({ rootPassword: 'flow-secret', taskDurationMs: 30, checkResponses: true, ...(schemaFile ? { schemaFile } : {}) });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('login, list, start, wait, snapshot, rollback, destroy', async () => {
    const session = await login(sim, 'root@pam', 'flow-secret');
    const auth = { ticket: session.ticket, csrf: session.csrf };
    const vm = `/api2/json/nodes/pve1/qemu`;

    const list = await call(sim, vm, { auth });
    expect(list.status).toBe(200);
    const stopped = (list.json.data as Array<{ vmid: number; status: string; template?: number }>).find((g) => g.status === 'stopped' && !g.template);
    expect(stopped).toBeDefined();
    const base = `${vm}/${stopped?.vmid}`;

    const waitTask = async (upid: string) => {
      expect(upid).toMatch(UPID_RE);
      for (let i = 0; i < 200; i++) {
        const st = await call(sim, `/api2/json/nodes/pve1/tasks/${encodeURIComponent(upid)}/status`, { auth });
        expect(st.status).toBe(200);
        if (st.json.data.status === 'stopped') return st.json.data as { exitstatus: string };
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error(`task ${upid} did not finish`);
    };
    const post = async (path: string, body: Record<string, string> = {}) => {
      const r = await call(sim, path, { method: 'POST', auth, body });
      expect(r.status, `${path}: ${r.statusText}`).toBe(200);
      return r.json.data as string;
    };

    expect((await waitTask(await post(`${base}/status/start`))).exitstatus).toBe('OK');
    expect((await call(sim, `${base}/status/current`, { auth })).json.data.status).toBe('running');

    const again = await waitTask(await post(`${base}/status/start`));
    expect(again.exitstatus).toBe(`VM ${stopped?.vmid} already running`);

    expect((await waitTask(await post(`${base}/snapshot`, { snapname: 'before_change' }))).exitstatus).toBe('OK');
    const snaps = (await call(sim, `${base}/snapshot`, { auth })).json.data as Array<{ name: string }>;
    expect(snaps.map((s) => s.name)).toContain('before_change');
    expect(snaps[snaps.length - 1]?.name).toBe('current');

    expect((await waitTask(await post(`${base}/snapshot/before_change/rollback`))).exitstatus).toBe('OK');

    if ((await call(sim, `${base}/status/current`, { auth })).json.data.status === 'running') {
      expect((await waitTask(await post(`${base}/status/stop`))).exitstatus).toBe('OK');
    }
    const destroy = await call(sim, base, { method: 'DELETE', auth });
    expect(destroy.status).toBe(200);
    const done = await waitTask(destroy.json.data as string);
    expect(done.exitstatus).toBe('OK');
    const log = await call(sim, `/api2/json/nodes/pve1/tasks/${encodeURIComponent(destroy.json.data as string)}/log`, { auth });
    expect(log.json.data[log.json.data.length - 1].t).toBe('TASK OK');

    const gone = await call(sim, `${base}/status/current`, { auth });
    expect(gone.status).toBe(500);
    expect(gone.statusText).toBe(`Configuration file 'nodes/pve1/qemu-server/${stopped?.vmid}.conf' does not exist`);
    expect(sim.responseProblems).toEqual([]);
  });
});
