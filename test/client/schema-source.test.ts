import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PveSchemaUnavailableError, TlsPinMismatchError, loadClusterSchema } from '../../src/client/index.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { json, startFaultServer, faultClient, type FaultServer } from './fault-server.js';
import { caught, clientFor, memoryLogger, startSim, tempDir } from './sim.js';
import type { ServerResponse } from 'node:http';

let sim: RunningSimulator;
let cache: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  sim = await startSim({ preset: 'small' });
  cache = await tempDir('pve-client-schema-');
});
afterAll(async () => {
  await sim.close();
  await cache.remove();
});

describe('schema from the cluster', () => {
  it('fetches apidoc.js and /version, caches them, then serves the verified cache once the cluster is gone', async () => {
    const client = clientFor(sim, { retry: { attempts: 2, baseDelayMs: 5, maxDelayMs: 10 } });
    try {
      const live = await loadClusterSchema(client, { cacheDir: cache.path });
      expect(live.origin).toBe('cluster');
      expect(live.model.operations.length).toBe(sim.model.operations.length);
      expect(live.model.hash).toBe(sim.model.hash);
      expect(live.version?.version).toBeTruthy();
      expect(await readFile(live.cachePath!, 'utf8')).toBe(sim.apidocText);
      expect(live.cachePath).toContain(`apidoc-${live.version!.version}-${live.contentHash!.slice(0, 16)}.js`);

      // Fetching the same schema again reuses the cache file instead of adding another.
      await loadClusterSchema(client, { cacheDir: cache.path });
      expect(await readdir(join(cache.path, 'schemas'))).toHaveLength(1);

      await sim.close();
      const cached = await loadClusterSchema(client, { cacheDir: cache.path });
      expect(cached.origin).toBe('cache');
      expect(cached.model.hash).toBe(live.model.hash);
      expect(cached.model.operations.length).toBe(live.model.operations.length);
      expect(cached.version).toEqual(live.version);
      expect(cached.fallbackReason).toMatch(/ECONNREFUSED/);

      // A truncated or edited cache file is refused rather than trusted.
      await writeFile(live.cachePath!, sim.apidocText.slice(0, -10));
      expect(await caught(() => loadClusterSchema(client, { cacheDir: cache.path }))).toBeInstanceOf(PveSchemaUnavailableError);
    } finally {
      await client.close();
      sim = await startSim({ preset: 'small' });
    }
  });

  it('raises PveSchemaUnavailableError when the cluster is down and nothing is cached', async () => {
    const client = clientFor(sim, { url: 'https://127.0.0.1:9', retry: { attempts: 1 } });
    try {
      const err = await caught(() => loadClusterSchema(client, { cacheDir: join(cache.path, 'empty') }));
      expect(err).toBeInstanceOf(PveSchemaUnavailableError);
      expect(err.message).toMatch(/"schema"/);
    } finally {
      await client.close();
    }
  });

  it('does not hide a TLS pin mismatch behind the cache', async () => {
    const good = clientFor(sim);
    await loadClusterSchema(good, { cacheDir: cache.path });
    await good.close();
    const client = clientFor(sim, { tls: { fingerprint: 'AB'.repeat(32) } });
    try {
      expect(await caught(() => loadClusterSchema(client, { cacheDir: cache.path }))).toBeInstanceOf(TlsPinMismatchError);
    } finally {
      await client.close();
    }
  });

  it('uses a schema override file or a URL on the cluster instead of fetching', async () => {
    const file = join(cache.path, 'override.js');
    await writeFile(file, sim.apidocText);
    const client = clientFor(sim);
    try {
      const fromFile = await loadClusterSchema(client, { schema: file, cacheDir: join(cache.path, 'unused') });
      expect(fromFile.origin).toBe('override');
      expect(fromFile.model.hash).toBe(sim.model.hash);
      const fromUrl = await loadClusterSchema(client, { schema: `${sim.url}/pve-docs/api-viewer/apidoc.js` });
      expect(fromUrl.origin).toBe('override');
      expect(fromUrl.model.source).toMatchObject({ kind: 'url' });
      expect(fromUrl.model.hash).toBe(sim.model.hash);
    } finally {
      await client.close();
    }
  });

  it('still returns the live schema when the cache directory cannot be written, with a warning', async () => {
    const blocker = join(cache.path, 'not-a-dir');
    await writeFile(blocker, 'x');
    const logger = memoryLogger();
    const client = clientFor(sim);
    try {
      const live = await loadClusterSchema(client, { cacheDir: join(blocker, 'cache'), logger });
      expect(live.origin).toBe('cluster');
      expect(live.cachePath).toBeUndefined();
      expect(logger.warnings[0]).toMatch(/cannot cache the schema/);
    } finally {
      await client.close();
    }
  });
});

describe('cache-first (serve)', () => {
  let server: FaultServer;
  /** apidoc.js requests held until the test answers them. */
  let held: ServerResponse[];
  let apidoc: string;
  const VERSION = { version: '9.1.1', release: '9.1', repoid: 'abcdef12' };

  beforeAll(async () => {
    server = await startFaultServer();
  });
  afterAll(async () => {
    await server.close();
  });
  const serveCluster = (hold: boolean): void => {
    held = [];
    server.behave = (req, res) => {
      if (req.url?.startsWith('/pve-docs/')) {
        if (hold) held.push(res);
        else res.end(apidoc);
      } else json(res, 200, { data: req.url === '/api2/json/version' ? VERSION : [] });
    };
  };
  const apidocRequests = (): number => server.received.filter((r) => r.startsWith('GET /pve-docs/')).length;
  const until = async (ok: () => boolean): Promise<void> => {
    while (!ok()) await new Promise((r) => setTimeout(r, 5));
  };

  it('answers from the cached schema without asking the cluster, then compares and replaces it when the cluster serves another', async () => {
    const dir = join(cache.path, 'first');
    const client = faultClient(server);
    try {
      apidoc = sim.apidocText;
      serveCluster(false);
      const first = await loadClusterSchema(client, { cacheDir: dir, cacheFirst: true });
      // Nothing cached: fetched from the cluster, as without cacheFirst.
      expect(first.origin).toBe('cluster');
      expect(first.checkCluster).toBeUndefined();

      // The cluster's apidoc.js now answers only when the test says so.
      serveCluster(true);
      const before = apidocRequests();
      const cached = await loadClusterSchema(client, { cacheDir: dir, cacheFirst: true });
      expect(cached.origin).toBe('cache');
      expect(cached.version).toEqual(VERSION);
      expect(cached.model.hash).toBe(first.model.hash);
      expect(apidocRequests()).toBe(before);

      // The same text: the same model object, nothing parsed again.
      const same = cached.checkCluster?.();
      await until(() => held.length === 1);
      held[0]?.end(apidoc);
      const unchanged = await same;
      expect(unchanged?.origin).toBe('cluster');
      expect(unchanged?.contentHash).toBe(cached.contentHash);
      expect(unchanged?.model).toBe(cached.model);

      // Another text: a new model, and the cache now holds it.
      const other = apidoc.replace(/("description"\s*:\s*")/, '$1(changed) ');
      expect(other).not.toBe(apidoc);
      const check = cached.checkCluster?.();
      await until(() => held.length === 2);
      held[1]?.end(other);
      const replaced = await check;
      expect(replaced?.origin).toBe('cluster');
      expect(replaced?.contentHash).not.toBe(cached.contentHash);
      expect(replaced?.model.hash).not.toBe(cached.model.hash);
      serveCluster(true);
      const next = await loadClusterSchema(client, { cacheDir: dir, cacheFirst: true });
      expect(next.contentHash).toBe(replaced?.contentHash);
      expect(held).toHaveLength(0);
    } finally {
      for (const res of held) res.destroy();
      await client.close();
    }
  });

  it('a check that cannot reach the cluster rejects, and the cached schema stays what it was', async () => {
    const dir = join(cache.path, 'second');
    const client = faultClient(server);
    try {
      apidoc = sim.apidocText;
      serveCluster(false);
      await loadClusterSchema(client, { cacheDir: dir });
      server.behave = (_req, res) => json(res, 503, { data: null });
      const cached = await loadClusterSchema(client, { cacheDir: dir, cacheFirst: true });
      expect(cached.origin).toBe('cache');
      expect(await caught(() => (cached.checkCluster as () => Promise<unknown>)())).toMatchObject({ code: expect.stringMatching(/^pve-/) });
    } finally {
      await client.close();
    }
  });
});
