/**
 * A third-party client nobody here wrote, the npm `proxmox-api` package, run unchanged through a
 * realistic session against the simulator: ticket and token login, reads, power tasks with UPID
 * polling, snapshots, digest-guarded config writes, PVE's errors and 401s (bad password, bad
 * token, missing CSRF header, expired ticket). It is an independent check of wire fidelity: the
 * client only works if the simulator speaks PVE's protocol the way PVE does.
 *
 * The only thing the test supplies is the client's documented `fetch` option, to accept the
 * simulator's self-signed certificate (the dispatcher is scoped to these calls; nothing global
 * changes) and, for one step, to drop the CSRF header on the way out as a broken proxy would.
 */
import { proxmoxApi, type Proxmox } from 'proxmox-api';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { startTestSimulator } from './helpers.js';

const insecure = new Agent({ connect: { rejectUnauthorized: false } });
type ClientFetch = NonNullable<Parameters<typeof proxmoxApi>[0] extends infer O ? (O extends { fetch?: infer F } ? F : never) : never>;

/** Loopback-only transport with the simulator's certificate accepted; optionally strips headers. */
function transport(strip: string[] = []): ClientFetch {
  return ((url: string | URL, init?: Record<string, unknown>) => {
    const target = new URL(String(url));
    if (target.hostname !== '127.0.0.1') throw new Error(`refusing to leave loopback: ${target.href}`);
    const headers = { ...((init?.headers as Record<string, string> | undefined) ?? {}) };
    for (const h of strip) delete headers[h];
    return undiciFetch(target, { ...(init ?? {}), headers, dispatcher: insecure } as Parameters<typeof undiciFetch>[1]);
  }) as unknown as ClientFetch;
}

let sim: RunningSimulator;
const PASSWORD = 'client-test-secret';

function ticketClient(opts: { username?: string; password?: string; strip?: string[] } = {}): Proxmox.Api {
  return proxmoxApi({
    host: '127.0.0.1',
    port: sim.port,
    username: opts.username ?? 'root@pam',
    password: opts.password ?? PASSWORD,
    fetch: transport(opts.strip),
  });
}

function tokenClient(tokenID: string, tokenSecret: string): Proxmox.Api {
  return proxmoxApi({ host: '127.0.0.1', port: sim.port, tokenID, tokenSecret, fetch: transport() });
}

/** Polls a task the way a client does: status until `stopped`, then its exit status. */
async function waitTask(api: Proxmox.Api, node: string, upid: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const st = await api.nodes.$(node).tasks.$(upid).status.$get();
    if (st.status === 'stopped') return String(st.exitstatus);
    expect(st.status).toBe('running');
    await new Promise((r) => setTimeout(r, 15));
  }
  throw new Error(`task ${upid} did not finish`);
}

async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (error) {
    const e = error as Error & { cause?: Error };
    return `${e.message}${e.cause ? ` <- ${e.cause.message}` : ''}`;
  }
  throw new Error('expected the call to fail');
}

const UPID = /^UPID:pve1:[0-9A-F]{8}:[0-9A-F]{8,9}:[0-9A-F]{8}:[a-z]+:\d*:[^:]+:$/;

beforeAll(async () => {
  sim = await startTestSimulator({ rootPassword: PASSWORD, taskDurationMs: 40 });
});
afterAll(async () => {
  await sim.close();
});

describe('npm proxmox-api client against the simulator', () => {
  it('ticket login, reads, a power task with UPID polling, snapshots, digest-guarded writes', async () => {
    const api = ticketClient();
    const version = await api.version.$get();
    expect(version.release).toMatch(/^\d+\.\d+$/);
    const nodes = await api.nodes.$get();
    expect(nodes.map((n) => n.node).sort()).toEqual(['pve1', 'pve2', 'pve3']);
    const vms = await api.cluster.resources.$get({ type: 'vm' });
    expect(vms.length).toBe(sim.cluster.guests().length);
    const list = await api.nodes.$('pve1').qemu.$get();
    const stopped = list.find((g) => g.status === 'stopped' && !g.template);
    if (!stopped) throw new Error('no stopped VM on pve1');
    const vm = api.nodes.$('pve1').qemu.$(stopped.vmid);

    // Power: start is a task; the client polls its UPID until it ends.
    const startUpid = await vm.status.start.$post();
    expect(startUpid).toMatch(UPID);
    expect(await waitTask(api, 'pve1', startUpid)).toBe('OK');
    expect((await vm.status.current.$get()).status).toBe('running');
    const log = await api.nodes.$('pve1').tasks.$(startUpid).log.$get();
    expect(log.at(-1)).toMatchObject({ t: 'TASK OK' });

    // Snapshots: take one (a task), list it, change its notes, remove it.
    const snapUpid = await vm.snapshot.$post({ snapname: 'before_change', description: 'taken by proxmox-api' });
    expect(await waitTask(api, 'pve1', snapUpid)).toBe('OK');
    const snaps = await vm.snapshot.$get();
    expect(snaps.map((s) => s.name)).toContain('before_change');
    expect(snaps.at(-1)?.name).toBe('current');
    await vm.snapshot.$('before_change').config.$put({ description: 'renamed notes' });
    expect((await vm.snapshot.$('before_change').config.$get()).description).toBe('renamed notes');

    // Digest-guarded config write: the current digest passes, a stale one is refused as PVE does.
    const before = await vm.config.$get();
    expect(before.digest).toMatch(/^[0-9a-f]{40}$/);
    await vm.config.$put({ description: 'changed through proxmox-api', digest: before.digest });
    const after = await vm.config.$get();
    expect(after.description).toBe('changed through proxmox-api');
    expect(after.digest).not.toBe(before.digest);
    const stale = await failure(vm.config.$put({ description: 'lost update', digest: before.digest }));
    expect(stale).toContain('return Error 500 detected modified configuration - file changed by other user? Try again.');
    expect((await vm.config.$get()).description).toBe('changed through proxmox-api');

    const delUpid = await vm.snapshot.$('before_change').$delete();
    expect(await waitTask(api, 'pve1', delUpid)).toBe('OK');
    const stopUpid = await vm.status.stop.$post();
    expect(await waitTask(api, 'pve1', stopUpid)).toBe('OK');
    expect((await vm.status.current.$get()).status).toBe('stopped');
  });

  it("token login and PVE's errors: 500 missing guest, 400 parameters, 403 privileges, failed tasks", async () => {
    const root = tokenClient(sim.token.id, sim.token.secret);
    expect((await root.nodes.$get()).length).toBe(3);
    const missing = await failure(root.nodes.$('pve1').qemu.$(99999).status.current.$get());
    expect(missing).toContain("return Error 500 Configuration file 'nodes/pve1/qemu-server/99999.conf' does not exist");
    const vmid = sim.cluster.guests().find((g) => g.node === 'pve1' && g.type === 'qemu' && g.status === 'stopped' && !g.config.template)?.vmid as number;
    const bad = await failure(root.nodes.$('pve1').qemu.$(vmid).config.$put({ cores: 'many' }));
    expect(bad).toContain('return Error 400 Parameter verification failed.');
    expect(bad).toContain('"errors":{"cores":"type check (\'integer\') failed - got \'many\'"}');

    // An auditor's separated token may read but not power guests.
    sim.access.addUser('auditor@pve', { password: 'x' });
    sim.access.grant({ path: '/', roles: ['PVEAuditor'], users: ['auditor@pve'] });
    const tok = sim.access.addToken('auditor@pve', 'ro', { privsep: false });
    const auditor = tokenClient(tok.tokenid, tok.secret);
    expect((await auditor.nodes.$('pve1').qemu.$get()).length).toBeGreaterThan(0);
    const denied = await failure(auditor.nodes.$('pve1').qemu.$(vmid).status.start.$post());
    expect(denied).toContain(`connection failed with 403 Permission check failed (/vms/${vmid}, VM.PowerMgmt)`);

    // A task that fails reports PVE's error through the UPID's status.
    sim.cluster.taskFaults.push({ type: 'qmstart', vmid, fail: 'start failed: QEMU exited with code 1', times: 1 });
    const upid = await root.nodes.$('pve1').qemu.$(vmid).status.start.$post();
    expect(await waitTask(root, 'pve1', upid)).toBe('start failed: QEMU exited with code 1');
  });

  it('401s: wrong password, unknown token secret, missing CSRF header', async () => {
    const wrong = await failure(ticketClient({ password: 'not-it' }).version.$get());
    expect(wrong).toContain('login failed with 401: authentication failure');
    const badToken = await failure(tokenClient(sim.token.id, '00000000-0000-4000-8000-000000000000').version.$get());
    expect(badToken).toMatch(/return Error 401 /);

    // A proxy that drops the CSRF header: reads still work, writes get PVE's 401.
    const noCsrf = ticketClient({ strip: ['CSRFPreventionToken'] });
    expect((await noCsrf.nodes.$get()).length).toBe(3);
    const write = await failure(noCsrf.nodes.$('pve1').qemu.$(100).config.$put({ description: 'x' }));
    expect(write).toContain('return Error 401 Permission denied - invalid csrf token');
  });

  it('an expired ticket: a 9.1.1-style node makes the client log in again; the 9.1.5 text does not', async () => {
    sim.setAuthFailureStyle('legacy');
    const api = ticketClient();
    expect((await api.nodes.$get()).length).toBe(3);
    await sim.faults.expireTickets();
    // The client recognizes `permission denied - invalid PVE ticket`, logs in again and retries.
    expect((await api.nodes.$get()).length).toBe(3);

    sim.setAuthFailureStyle('modern');
    await sim.faults.expireTickets();
    const modern = await failure(api.nodes.$get());
    expect(modern).toContain('return Error 401 Authentication failed!');
  });
});
