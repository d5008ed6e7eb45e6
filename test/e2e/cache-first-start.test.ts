/**
 * `serve`'s cache-first start (src/client/schema-source.ts `cacheFirst`, Product `checkSchema`): with
 * the cluster's schema in the cache, the product serves before the cluster's apidoc.js has been
 * fetched; the cluster's copy, compared in the background, replaces the cached one when it differs,
 * and an open MCP session is told (resources/list_changed) and reads the new schema.
 */
import type { ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResourceListChangedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { parseAppConfig } from '../../src/app/config/app-config.js';
import { Product } from '../../src/app/product.js';
import { connectInMemory } from '../../src/server/in-memory.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { json, startFaultServer, type FaultServer } from '../client/fault-server.js';

const VERSION = { version: '9.1.1', release: '9.1', repoid: 'abcdef12' };

let sim: RunningSimulator;
let cluster: FaultServer;
let dir: string;
/** apidoc.js requests held until the test answers them. */
let held: ServerResponse[] = [];

beforeAll(async () => {
  // Only for its apidoc.js text: the cluster here is a plain HTTPS server the test controls.
  sim = await startSimulator({ preset: 'small' });
  cluster = await startFaultServer();
  dir = mkdtempSync(join(tmpdir(), 'pve-cache-first-'));
});
afterAll(async () => {
  for (const res of held) res.destroy();
  await cluster.close();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

function serveCluster(apidoc: string | 'hold'): void {
  held = [];
  cluster.behave = (req, res) => {
    if (!req.url?.startsWith('/pve-docs/')) return json(res, 200, { data: req.url === '/api2/json/version' ? VERSION : [] });
    if (apidoc === 'hold') held.push(res);
    else res.end(apidoc);
  };
}

async function openServe(log: string[]): Promise<Product> {
  const config = await parseAppConfig(
    {
      clusters: { lab: { url: cluster.url, auth: { tokenId: 'root@pam!test', secret: '00000000-0000-0000-0000-000000000000' }, tls: { fingerprint: cluster.fingerprint }, policy: 'read-only' } },
      cacheDir: join(dir, 'cache'),
      stateDir: join(dir, 'state'),
      audit: { hmacKey: 'cache-first-test-key' },
    },
    { source: 'test', baseDir: dir },
  );
  // `degraded` is what serve opens with, and what turns the cache-first start on.
  return Product.open({ config, log: (line) => log.push(line), degraded: { startWaitMs: 60_000 } });
}

async function until(ok: () => boolean, what: () => string): Promise<void> {
  const end = Date.now() + 30_000;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting: ${what()}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('cache-first start', () => {
  it("serves from the cache before the cluster answers for its schema, then takes the cluster's differing one and tells the session", async () => {
    const log: string[] = [];
    // The first start has no cache: it fetches (and caches) the cluster's schema, as before.
    serveCluster(sim.apidocText);
    const first = await openServe(log);
    const cachedHash = first.cluster('lab').model.hash;
    expect(first.cluster('lab').schema.origin).toBe('cluster');
    await first.close();

    // Now the cluster holds every apidoc.js request until the test answers.
    serveCluster('hold');
    const product = await openServe(log);
    try {
      const runtime = product.cluster('lab');
      expect(runtime.schema.origin).toBe('cache');
      const session = await connectInMemory(product, 'cache-first-test');
      let resourcesChanged = 0;
      let toolsChanged = 0;
      session.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void resourcesChanged++);
      session.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void toolsChanged++);
      // The session is answered from the cached schema while the cluster's apidoc.js is still pending.
      expect((await session.client.listTools()).tools.map((t) => t.name)).toEqual(['search_api', 'get_schema', 'run_script']);
      const found = await session.client.callTool({ name: 'search_api', arguments: { query: 'list virtual machines' } });
      expect(found.isError).toBeFalsy();
      await until(
        () => held.length === 1,
        () => 'the background check never asked for apidoc.js',
      );
      expect(runtime.model.hash).toBe(cachedHash);

      // The cluster answers with another schema: it replaces the cached one.
      const other = sim.apidocText.replace(/("description"\s*:\s*")/, '$1(changed) ');
      held[0]?.end(other);
      await until(
        () => resourcesChanged > 0,
        () => log.join('\n'),
      );
      expect(runtime.schema.origin).toBe('cluster');
      expect(runtime.model.hash).not.toBe(cachedHash);
      expect(log.filter((l) => /serves another schema than the cached one/.test(l))).toHaveLength(1);
      // The version resource reads the new schema; the tools listing did not change, so it is not re-announced.
      const version = await session.client.readResource({ uri: 'pve://lab/version' });
      expect(JSON.parse((version.contents[0] as { text: string }).text).schema.hash).toBe(runtime.model.hash);
      expect(toolsChanged).toBe(0);
      await session.close();
    } finally {
      await product.close();
    }
  }, 120_000);

  it('keeps the cached schema, and says so in one line, when the check cannot reach the cluster', async () => {
    const log: string[] = [];
    cluster.behave = (_req, res) => json(res, 503, { data: null });
    const product = await openServe(log);
    try {
      expect(product.cluster('lab').schema.origin).toBe('cache');
      await until(
        () => log.some((l) => /cannot compare the cached schema/.test(l)),
        () => log.join('\n'),
      );
      expect(product.cluster('lab').schema.origin).toBe('cache');
    } finally {
      await product.close();
    }
  }, 120_000);
});
