/**
 * Every endpoint family is registered: each function a family module exports under the
 * `…Endpoints` name is in FAMILIES (so no operation is written and then never served), and each
 * registered family serves at least one operation of the simulator's own schema.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generateSigningKeys, TicketAuthority } from './access/tickets.js';
import { AccessStore } from './access/store.js';
import { createCluster } from './cluster/index.js';
import { accessFamilyEndpoints, clusterEndpoints, FAMILIES } from './families.js';

const here = dirname(fileURLToPath(import.meta.url));
const FAMILY_FOLDERS = ['cluster/endpoints', 'access'];

async function exportedFamilies(): Promise<Array<[string, unknown]>> {
  const found: Array<[string, unknown]> = [];
  for (const folder of FAMILY_FOLDERS) {
    for (const file of readdirSync(join(here, folder))) {
      if (!/\.(ts|js)$/.test(file) || /\.test\.|\.d\.ts$/.test(file)) continue;
      const mod = (await import(join(here, folder, file))) as Record<string, unknown>;
      for (const [name, value] of Object.entries(mod)) {
        if (typeof value === 'function' && name.endsWith('Endpoints')) found.push([`${folder}/${file} ${name}`, value]);
      }
    }
  }
  return found;
}

describe('endpoint families', () => {
  it('registers every family a module exports', async () => {
    const exported = await exportedFamilies();
    expect(exported.length).toBeGreaterThanOrEqual(FAMILIES.length);
    const registered = new Set<unknown>(FAMILIES.map((f) => f.build));
    expect(exported.filter(([, fn]) => !registered.has(fn)).map(([name]) => name)).toEqual([]);
  });

  it('serves at least one operation from each registered family', async () => {
    const state = createCluster({ preset: 'demo' }).state;
    const env = { store: new AccessStore(() => 0), tickets: new TicketAuthority(await generateSigningKeys(), 7200, () => 0), clusterName: () => 'demo' };
    const served = new Set([...clusterEndpoints(state), ...accessFamilyEndpoints(env)]);
    const empty = FAMILIES.map((f, i) => {
      const built = f.kind === 'cluster' ? f.build(state) : f.kind === 'guest' ? [...f.build(state, 'qemu'), ...f.build(state, 'lxc')] : f.build(env);
      return built.length > 0 && built.every((e) => [...served].some((s) => s.method === e.method && s.path === e.path)) ? undefined : i;
    });
    expect(empty.filter((i) => i !== undefined)).toEqual([]);
  });
});
