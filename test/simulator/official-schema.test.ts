/**
 * Conformance against Proxmox's official 9.1 schema (read at test time from PVE_SCHEMA_DIR, never
 * copied): every implemented operation exists there, the simulator's parameter definitions agree
 * with the official ones, and responses validate against the official return schemas. Started
 * with the official file, the simulator serves it and answers 501 for operations it lacks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSchemaFromFile } from '../../src/schema/loader.js';
import type { ApiModel, Operation, ParamSpec } from '../../src/schema/model.js';
import { hasOfficialSchema, OFFICIAL_SCHEMA_SKIP_MESSAGE, officialSchemaFile } from '../../src/schema/official-schemas.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { call, login, startTestSimulator } from './helpers.js';

const available = hasOfficialSchema('9.1');

/** Disagreements between one of the simulator's parameters and the official one. */
function paramMismatches(own: ParamSpec, official: ParamSpec | undefined): string[] {
  if (!official) return ['not in the official schema'];
  const out: string[] = [];
  if (own.type !== official.type) out.push(`type ${own.type} vs official ${official.type}`);
  if (typeof official.format === 'string' && own.format !== official.format) out.push(`format ${String(own.format)} vs official ${official.format}`);
  if (!own.optional && official.optional) out.push('required here but optional officially');
  if (own.optional && !official.optional) out.push('optional here but required officially');
  if (own.enum && official.enum && !own.enum.every((v) => official.enum?.includes(v))) out.push(`enum ${own.enum.join('|')} not within official ${official.enum.join('|')}`);
  return out;
}

describe.skipIf(!available)(available ? 'simulator vs the official 9.1 schema' : `simulator vs the official 9.1 schema (${OFFICIAL_SCHEMA_SKIP_MESSAGE} to run)`, () => {
  let official: ApiModel;
  let own: RunningSimulator;
  let served: RunningSimulator;

  beforeAll(async () => {
    official = await loadSchemaFromFile(officialSchemaFile('9.1'));
    own = await startTestSimulator();
    served = await startTestSimulator({ schemaFile: officialSchemaFile('9.1'), checkResponses: true });
  });
  afterAll(async () => {
    await own?.close();
    await served?.close();
  });

  it('every implemented operation exists in the official schema', () => {
    const missing = own.implemented.filter((key) => !official.operations.some((op) => op.key === key));
    expect(missing).toEqual([]);
    expect(own.implemented.length).toBe(own.model.operations.length);
  });

  it("the simulator's parameter definitions agree with the official ones", () => {
    const problems: string[] = [];
    for (const op of own.model.operations) {
      const off = official.get(op.method, op.path) as Operation | undefined;
      if (!off) continue;
      const byName = new Map(off.params.map((p) => [p.name, p]));
      for (const p of op.params) {
        for (const m of paramMismatches(p, byName.get(p.name))) problems.push(`${op.key} ${p.name}: ${m}`);
      }
      if (op.allowtoken !== off.allowtoken) problems.push(`${op.key}: allowtoken ${op.allowtoken} vs official ${off.allowtoken}`);
      if ((op.proxyto ?? '') !== (off.proxyto ?? '')) problems.push(`${op.key}: proxyto ${op.proxyto} vs official ${off.proxyto}`);
    }
    expect(problems).toEqual([]);
  });

  it('serves the official file and validates against it; schema operations without a handler answer 501', async () => {
    const doc = await call(served, '/pve-docs/api-viewer/apidoc.js', { auth: 'none' });
    expect(doc.text.length).toBe(served.apidocText.length);
    expect(served.model.operations.length).toBe(official.operations.length);
    const notImplemented = official.operations.find((op) => op.key === 'GET /nodes/{node}/vncwebsocket');
    expect(notImplemented).toBeDefined();
    const r = await call(served, '/api2/json/nodes/pve1/vncwebsocket');
    expect(r.status).toBe(501);
    expect(r.statusText).toBe("Method 'GET /nodes/pve1/vncwebsocket' not implemented by the simulator");
    const badVmid = await call(served, '/api2/json/nodes/pve1/qemu/99/status/current');
    expect(badVmid.json.errors.vmid).toBe('invalid format - value does not look like a valid VM ID\n');
  });

  it('GET responses validate against the official return schemas', async () => {
    const onPve1 = served.cluster.guests().filter((g) => g.node === 'pve1');
    const pick = (type: string) => onPve1.find((g) => g.type === type && g.snapshots.length > 0) ?? onPve1.find((g) => g.type === type);
    const byType = { qemu: pick('qemu'), lxc: pick('lxc') };
    const tasks = await call(served, '/api2/json/nodes/pve1/tasks?limit=1&source=all');
    const storage = served.cluster.storages().find((st) => !st.nodes || st.nodes.includes('pve1'));
    const values: Record<string, string | undefined> = {
      node: 'pve1',
      userid: 'root@pam',
      tokenid: 'mcp',
      upid: tasks.json.data[0]?.upid,
      storage: storage?.storage,
      poolid: [...served.cluster.state.pools.keys()][0],
    };
    // root@pam itself, not its token: operations without a permissions block are root@pam-only.
    const root = await login(served, 'root@pam', served.rootPassword);
    const called: string[] = [];
    const skipped: string[] = [];
    for (const key of served.implemented) {
      const op = served.model.operations.find((o) => o.key === key) as Operation;
      if (op.method !== 'GET' || op.params.some((p) => !p.optional && !p.inPath)) continue;
      const guest = op.path.includes('/lxc/') ? byType.lxc : byType.qemu;
      const valueOf = (name: string) => (name === 'vmid' ? guest?.vmid.toString() : name === 'snapname' ? guest?.snapshots[0]?.name : values[name]);
      // A prune dry run needs a retention: without one configured, PVE answers 500 (see dangerous-ops.test.ts).
      if (key === 'GET /nodes/{node}/storage/{storage}/prunebackups') continue;
      if (op.pathParams.some((name) => valueOf(name) === undefined)) {
        skipped.push(key);
        continue;
      }
      const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(valueOf(name) ?? ''));
      const r = await call(served, `/api2/json${path}`, { auth: { ticket: root.ticket } });
      expect(r.status, `${key}: ${r.statusText}`).toBe(200);
      called.push(key);
    }
    expect(called.length).toBeGreaterThan(20);
    expect(skipped.length).toBeLessThan(called.length);
    expect(served.responseProblems).toEqual([]);
  });
});
