/**
 * Recovering intents against the simulator: real writes through the real client, then the
 * question a starting server asks about them; intents that were never sent; a node that is down.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PveClient } from '../client/client.js';
import { startSimulator, type RunningSimulator } from '../simulator/index.js';
import { recoverIntent, type IntentToRecover } from './recovery.js';

let sim: RunningSimulator;
let client: PveClient;
let user: string;
let seq = 0;

beforeAll(async () => {
  sim = await startSimulator({ preset: 'demo', seed: 11, port: 0, authFailureDelayMs: 0, taskDurationMs: 50 });
  client = new PveClient({
    name: 'sim',
    url: sim.url,
    auth: { kind: 'token', tokenId: sim.token.id, secret: sim.token.secret },
    tls: { fingerprint: sim.fingerprint },
    retry: { attempts: 1, baseDelayMs: 5, maxDelayMs: 20 },
  });
  user = sim.token.id;
  const ha = (await client.request('GET', '/cluster/ha/resources')) as Array<{ sid: string }>;
  for (const r of ha) used.add(Number(r.sid.replace(/^\D+:/, '')));
});
afterAll(async () => {
  await sim?.close();
});

/** Free VMs outside HA, each used by one test only (the task list of a guest is what the lookup reads). */
const used = new Set<number>();
function vm(status?: 'running' | 'stopped', where: (node: string) => boolean = () => true): { node: string; vmid: number } {
  const g = sim.cluster.guests().find((x) => x.type === 'qemu' && (status === undefined || x.status === status) && !x.config.template && !x.config.lock && !used.has(x.vmid) && where(x.node));
  if (!g) throw new Error(`no free ${status} VM left in the preset`);
  used.add(g.vmid);
  return { node: g.node, vmid: g.vmid };
}

function intent(method: IntentToRecover['method'], path: string, params: Record<string, unknown>, node: string): IntentToRecover {
  return { seq: seq++, ts: new Date().toISOString(), writer: 'w-dead', cluster: 'sim', method, path, params, node, user };
}

/** Writes as the dead writer would have: intent first, then the request (and its task, to settle). */
async function write(i: IntentToRecover): Promise<string | undefined> {
  const out = await client.request(i.method, i.path, i.params);
  if (typeof out === 'string' && out.startsWith('UPID:')) {
    await client.waitTask(out, { pollMs: 20 });
    return out;
  }
  return undefined;
}

describe('recoverIntent', () => {
  it('a snapshot that was made: made, with its UPID', async () => {
    const { node, vmid } = vm();
    const i = intent('POST', `/nodes/${node}/qemu/${vmid}/snapshot`, { snapname: 'rec1' }, node);
    const upid = await write(i);
    const v = await recoverIntent(i, client);
    expect(v).toMatchObject({ outcome: 'made', upid });
    expect(v.evidence).toMatch(/ended OK .*snapshot 'rec1' of VM \d+ exists/);
  });

  it('a snapshot never sent: not-made, naming the window it searched', async () => {
    const { node, vmid } = vm();
    const i = intent('POST', `/nodes/${node}/qemu/${vmid}/snapshot`, { snapname: 'never' }, node);
    const v = await recoverIntent(i, client);
    expect(v.outcome).toBe('not-made');
    expect(v.upid).toBeUndefined();
    expect(v.evidence).toMatch(
      new RegExp(`is not in its snapshot list, and there is no qmsnapshot task on VM ${vmid} by ${user.replace(/[!@]/g, '.')} in node ${node}'s task list between \\S+Z and \\S+Z`),
    );
  });

  it('tasks the audit gives to other calls are not taken; two candidates are named, not guessed', async () => {
    const { node, vmid } = vm();
    const path = `/nodes/${node}/qemu/${vmid}/snapshot`;
    const first = await write(intent('POST', path, { snapname: 'first' }, node));
    const second = intent('POST', path, { snapname: 'second' }, node);
    await write(second);
    // Both tasks are qmsnapshot on the guest by the user: the snapshot list decides, no UPID is picked.
    const both = await recoverIntent(second, client);
    expect(both.outcome).toBe('made');
    expect(both.upid).toBeUndefined();
    expect(both.evidence).toMatch(/2 tasks in .* could be its task/);
    // With the first task known to belong to another call, the one left is this intent's.
    const exclusive = await recoverIntent(second, client, { knownUpids: new Set([first as string]) });
    expect(exclusive.outcome).toBe('made');
    expect(exclusive.upid).toMatch(/^UPID:.*:qmsnapshot:/);
    expect(exclusive.upid).not.toBe(first);
  });

  it('a start that was made, and a stop never sent (an operation without a state to read)', async () => {
    const { node, vmid } = vm('stopped');
    const start = intent('POST', `/nodes/${node}/qemu/${vmid}/status/start`, {}, node);
    const upid = await write(start);
    expect(await recoverIntent(start, client)).toMatchObject({ outcome: 'made', upid });
    const stop = intent('POST', `/nodes/${node}/qemu/${vmid}/status/stop`, {}, node);
    const v = await recoverIntent(stop, client);
    expect(v.outcome).toBe('not-made');
    expect(v.evidence).toMatch(/^There is no qmstop\/hastop task on VM \d+ by .* so POST .* never started its task\.$/);
  });

  it('a task that failed: not-made, with its UPID and error', async () => {
    const { node, vmid } = vm('running');
    const start = intent('POST', `/nodes/${node}/qemu/${vmid}/status/start`, {}, node);
    const upid = await client.request('POST', start.path, {});
    await client.waitTask(upid as string, { pollMs: 20 }).catch(() => undefined);
    const v = await recoverIntent(start, client);
    expect(v).toMatchObject({ outcome: 'not-made', upid });
    expect(v.evidence).toMatch(/ended with the error '.*already running'/);
  });

  it('a DELETE of a snapshot: made when gone, not-made when still there', async () => {
    const { node, vmid } = vm();
    const base = `/nodes/${node}/qemu/${vmid}/snapshot`;
    await write(intent('POST', base, { snapname: 'keep' }, node));
    await write(intent('POST', base, { snapname: 'drop' }, node));
    const del = intent('DELETE', `${base}/drop`, {}, node);
    const upid = await write(del);
    const made = await recoverIntent(del, client);
    expect(made).toMatchObject({ outcome: 'made', upid });
    expect(made.evidence).toMatch(/snapshot 'drop' of VM \d+ does not exist \(any more\)/);
    const notSent = intent('DELETE', `${base}/keep`, {}, node);
    // The one qmdelsnapshot task in the window is the other delete's, which the audit knows.
    const unsure = await recoverIntent(notSent, client);
    expect(unsure).toMatchObject({ outcome: 'unknown', upid });
    expect(unsure.evidence).toMatch(/still exists, which contradicts the task/);
    const kept = await recoverIntent(notSent, client, { knownUpids: new Set([upid as string]) });
    expect(kept.outcome).toBe('not-made');
    expect(kept.evidence).toMatch(/^Snapshot 'keep' of VM \d+ still exists, and there is no qmdelsnapshot task/);
  });

  it('a synchronous config PUT: made when the keys hold the values, not-made naming the key that differs', async () => {
    const { node, vmid } = vm();
    const path = `/nodes/${node}/qemu/${vmid}/config`;
    const put = intent('PUT', path, { description: 'recovered', onboot: true }, node);
    await write(put);
    const made = await recoverIntent(put, client);
    expect(made.outcome).toBe('made');
    expect(made.evidence).toMatch(/holds the intended values \(description, onboot\)/);
    const other = intent('PUT', path, { description: 'never sent', onboot: true }, node);
    const not = await recoverIntent(other, client);
    expect(not.outcome).toBe('not-made');
    expect(not.evidence).toMatch(/description is "recovered" \(intended "never sent"\)/);
  });

  it('a node that is offline: unknown with why; a task in the cluster list still counts', async () => {
    const local = sim.cluster.nodeNames[0];
    const { node, vmid } = vm(undefined, (n) => n !== local);
    const path = `/nodes/${node}/qemu/${vmid}/snapshot`;
    const sent = intent('POST', path, { snapname: 'before' }, node);
    const upid = await write(sent);
    sim.faults.setNodeOffline(node, 'refused');
    try {
      const never = await recoverIntent(intent('POST', path, { snapname: 'after' }, node), client, { knownUpids: new Set([upid as string]) });
      expect(never.outcome).toBe('unknown');
      expect(never.evidence).toMatch(new RegExp(`^Cannot read the task list of node ${node} \\(HTTP 595 .*: node ${node} is offline or unreachable`));
      const made = await recoverIntent(sent, client);
      expect(made).toMatchObject({ outcome: 'made', upid });
      expect(made.evidence).toMatch(/found in the cluster's recent task list\); cannot read snapshot 'before'/);
    } finally {
      sim.faults.setNodeOnline(node);
    }
  });
});
