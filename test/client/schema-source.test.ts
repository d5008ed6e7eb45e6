import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PveSchemaUnavailableError, TlsPinMismatchError, loadClusterSchema } from '../../src/client/index.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { caught, clientFor, memoryLogger, startSim, tempDir } from './sim.js';

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
