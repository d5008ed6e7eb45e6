import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClients, loadConfig, type PveClient } from '../../src/client/index.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { pickVm, startSim, tempDir } from './sim.js';

let demo: RunningSimulator;
let small: RunningSimulator;
let dir: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  [demo, small] = await Promise.all([startSim({ preset: 'demo' }), startSim({ preset: 'small', seed: 3 })]);
  dir = await tempDir('pve-client-clusters-');
});
afterAll(async () => {
  await Promise.all([demo.close(), small.close()]);
  await dir.remove();
});

describe('two clusters from one config file', () => {
  it('talks to both at once, each with its own auth, TLS trust and policy name', async () => {
    await writeFile(join(dir.path, 'small-ca.pem'), small.certificate);
    await writeFile(join(dir.path, 'small.password'), `${small.rootPassword}\n`);
    const file = join(dir.path, 'clusters.json');
    await writeFile(
      file,
      JSON.stringify({
        defaultCluster: 'prod',
        clusters: {
          prod: {
            url: demo.url,
            auth: { tokenId: demo.token.id, secret: { env: 'DEMO_TOKEN_SECRET' } },
            tls: { fingerprint: demo.fingerprint },
            policy: 'read-only',
          },
          lab: {
            url: small.url,
            auth: { username: 'root', realm: 'pam', password: { file: 'small.password' } },
            tls: { caFile: 'small-ca.pem' },
            policy: 'lab',
          },
        },
      }),
    );
    const config = await loadConfig({ file, env: { DEMO_TOKEN_SECRET: demo.token.secret } });
    expect(config.clusters.map((c) => [c.name, c.policy])).toEqual([
      ['prod', 'read-only'],
      ['lab', 'lab'],
    ]);
    const clients = createClients(config);
    const prod = clients.get('prod') as PveClient;
    const lab = clients.get('lab') as PveClient;
    try {
      expect([prod.authId, lab.authId]).toEqual([demo.token.id, 'root@pam']);
      const [prodNodes, labNodes] = await Promise.all([prod.request<Array<{ node: string }>>('GET', '/nodes'), lab.request<Array<{ node: string }>>('GET', '/nodes')]);
      expect(prodNodes.map((n) => n.node).sort()).toEqual([...demo.cluster.nodeNames].sort());
      expect(labNodes.map((n) => n.node)).toEqual([...small.cluster.nodeNames]);

      // A write on one cluster leaves the other untouched.
      const g = pickVm(small, 'stopped');
      const writesOnDemo = demo.counters.snapshot().writes;
      const upid = await lab.request<string>('POST', '/nodes/{node}/qemu/{vmid}/status/start', { node: g.node, vmid: g.vmid });
      expect((await lab.waitTask(upid, { timeoutMs: 10_000, pollMs: 50 })).ok).toBe(true);
      expect(demo.counters.snapshot().writes).toBe(writesOnDemo);
      expect(small.cluster.guest(g.vmid)?.status).toBe('running');
    } finally {
      await Promise.all([...clients.values()].map((c) => c.close()));
    }
  });
});
