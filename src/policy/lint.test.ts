import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PveClient } from '../client/client.js';
import { loadSchemaFromFile } from '../schema/loader.js';
import type { ApiModel } from '../schema/model.js';
import { hasOfficialSchema, officialSchemaFile, OFFICIAL_SCHEMA_SKIP_MESSAGE } from '../schema/official-schemas.js';
import { startSimulator, type RunningSimulator } from '../simulator/index.js';
import { describeRules, inventoryFromResources, lintPolicy, type Inventory, type LintFinding } from './lint.js';
import { parsePolicyConfig } from './policy-config.js';

const lint = (model: ApiModel, policy: unknown, inventory?: Inventory, tokenClasses?: Array<'read' | 'write' | 'destructive' | 'privileged'>): LintFinding[] =>
  lintPolicy(parsePolicyConfig(policy), model, {
    key: 'policies.p',
    ...(inventory ? { inventory } : {}),
    ...(tokenClasses ? { tokenClasses: { key: 'clusters.c.tokens', classes: tokenClasses } } : {}),
  });
const errors = (f: LintFinding[]) => f.filter((x) => x.severity === 'error');

let sim: RunningSimulator;
let inventory: Inventory;

beforeAll(async () => {
  sim = await startSimulator({ preset: 'demo', port: 0, authFailureDelayMs: 0 });
  const client = new PveClient({ name: 'sim', url: sim.url, auth: { kind: 'token', tokenId: sim.token.id, secret: sim.token.secret }, tls: { fingerprint: sim.fingerprint } });
  try {
    inventory = inventoryFromResources(await client.request('GET', '/cluster/resources'));
  } finally {
    await client.close();
  }
});

afterAll(async () => {
  await sim?.close();
});

describe('policy lint on the simulator schema', () => {
  it('accepts rules that reach operations, concrete globs included', () => {
    const f = lint(
      sim.model,
      {
        preset: 'operator',
        allow: ['POST /nodes/{node}/qemu/{vmid}/status/start', 'GET /cluster/**'],
        deny: ['* /nodes/*/qemu/100/**', 'DELETE /nodes/*/qemu/*', 'POST /nodes/*/{qemu,lxc}/*/status/{stop,reset}', 'GET /nodes/*/storage/local/**'],
        targets: [{ action: 'deny', vmids: [100, '100-110'], nodes: ['pve3'], pools: ['production'], tags: ['PROD'], storages: ['ceph'] }],
        scopes: { nodes: ['pve1', 'pve2'], vmids: ['100-199'], pools: ['infra'], tags: ['web'] },
      },
      inventory,
    );
    expect(f).toEqual([]);
  });

  it('refuses a one-character typo in a deny rule and suggests the fix', () => {
    const [e, ...rest] = errors(lint(sim.model, { preset: 'operator', deny: ['* /node/*/qemu/100/**'] }));
    expect(rest).toEqual([]);
    expect(e?.key).toBe('policies.p.deny[0]');
    expect(e?.message).toMatch(/matches no operation.*protects nothing/);
    expect(e?.suggestion).toBe('* /nodes/*/qemu/100/**');
  });

  it('suggests a missing segment, another method, and refuses a non-numeric VMID segment', () => {
    // (`/nodes/qemu/…` would name a node 'qemu' for part of its API, which the configuration refuses.)
    const missing = errors(lint(sim.model, { deny: ['POST /nodes/*/qemu/status/stop'] }));
    expect(missing[0]?.suggestion).toBe('POST /nodes/*/qemu/*/status/stop');
    const method = errors(lint(sim.model, { allow: ['DELETE /cluster/resources'] }));
    expect(method[0]?.suggestion).toBe('GET /cluster/resources');
    const word = errors(lint(sim.model, { deny: ['* /nodes/*/qemu/web-01/**'] }));
    expect(word[0]?.key).toBe('policies.p.deny[0]');
  });

  it('checks privileged entries: the operation, and each +param against the escalation rules', () => {
    expect(lint(sim.model, { preset: 'operator', privileged: ['POST /nodes/*/vzdump +script', 'PUT /nodes/*/qemu/*/config +scsi[n],scsi1,qemu-disk-host-path'] })).toEqual([]);
    const typo = errors(lint(sim.model, { privileged: ['POST /nodes/*/vzdump +scirpt'] }));
    expect(typo[0]?.message).toMatch(/'\+scirpt' names no parameter or escalation rule/);
    expect(typo[0]?.suggestion).toBe('POST /nodes/*/vzdump +script');
    const destructive = errors(lint(sim.model, { privileged: ['POST /nodes/*/qemu/*/status/shutdown +forceStop'] }));
    expect(destructive[0]?.message).toMatch(/to destructive, not privileged/);
    const notPrivileged = errors(lint(sim.model, { privileged: ['POST /nodes/*/vzdump'] }));
    expect(notPrivileged[0]?.message).toMatch(/only operations that are not privileged/);
    const wrongOp = errors(lint(sim.model, { privileged: ['POST /nodes/*/qemu/*/status/start +script'] }));
    expect(wrongOp[0]?.message).toMatch(/names no parameter/);
  });

  it('checks target rules and scopes against the inventory, with did-you-mean', () => {
    const f = lint(
      sim.model,
      {
        preset: 'operator',
        targets: [{ action: 'deny', vmids: [1000, '5000-5999'], nodes: ['pve4', 'pve-1'], pools: ['prodution'], tags: ['prdo'], storages: ['cepth'] }],
        scopes: { nodes: ['pev2'] },
      },
      inventory,
    );
    const byKey = Object.fromEntries(f.map((x) => [x.key, x]));
    expect(byKey['policies.p.targets[0].vmids[0]']).toMatchObject({ severity: 'error', suggestion: '100' });
    expect(byKey['policies.p.targets[0].vmids[1]']).toMatchObject({ severity: 'warning' });
    expect(byKey['policies.p.targets[0].nodes[0]']).toMatchObject({ severity: 'error', suggestion: 'pve1' });
    expect(byKey['policies.p.targets[0].nodes[1]']).toMatchObject({ severity: 'error', suggestion: 'pve1' });
    expect(byKey['policies.p.targets[0].pools[0]']).toMatchObject({ severity: 'error', suggestion: 'production' });
    expect(byKey['policies.p.targets[0].tags[0]']).toMatchObject({ severity: 'error', suggestion: 'prod' });
    expect(byKey['policies.p.targets[0].storages[0]']).toMatchObject({ severity: 'error', suggestion: 'ceph' });
    expect(byKey['policies.p.scopes.nodes[0]']).toMatchObject({ severity: 'error', suggestion: 'pve2' });
    // Without an inventory (cluster unreachable) only the schema is checked.
    expect(lint(sim.model, { preset: 'operator', targets: [{ action: 'deny', vmids: [1000] }] })).toEqual([]);
  });

  it('checks the targets of deny rules that act as target rules, and warns about globs that pin nothing', () => {
    const f = lint(sim.model, { preset: 'operator', deny: ['* /nodes/*/qemu/1000/**', '* /nodes/pve4/**', '* /nodes/pve*/**', '* /nodes/*/qemu/11*/**', 'DELETE /nodes/*/qemu/*'] }, inventory);
    const byKey = Object.fromEntries(f.map((x) => [x.key, x]));
    expect(byKey['policies.p.deny[0].vmids[0]']).toMatchObject({ severity: 'error', suggestion: '100' });
    expect(byKey['policies.p.deny[1].nodes[0]']).toMatchObject({ severity: 'error', suggestion: 'pve1' });
    expect(byKey['policies.p.deny[2]']?.severity).toBe('warning');
    expect(byKey['policies.p.deny[2]']?.message).toContain("names nodes by the glob 'pve*', so it protects these paths only");
    expect(byKey['policies.p.deny[2]']?.message).toContain("targets: [{action: 'deny', nodes: ['pve1', 'pve2', 'pve3']}] (what the glob matches now)");
    expect(byKey['policies.p.deny[3]']?.message).toContain('vmids: [110, 111, 112, 113, 114, 115, 116, 117, 118, 119]');
    expect(byKey['policies.p.deny[4]']).toBeUndefined();
    // Without an inventory the warning still comes, with an example.
    expect(lint(sim.model, { deny: ['* /nodes/*/qemu/10*/**'] }).map((x) => x.message)).toEqual([expect.stringContaining("vmids: ['100-199']")]);
  });

  it('describes what each deny and target rule protects', () => {
    const lines = describeRules(
      parsePolicyConfig({
        preset: 'admin',
        deny: ['* /nodes/*/qemu/100/**', 'GET /nodes/pve3/**', 'DELETE /nodes/*/lxc/200', '* /nodes/pve*/**', 'DELETE /nodes/*/qemu/*'],
        targets: [
          { action: 'approval', vmids: ['200-210'], tags: ['prod'] },
          { action: 'deny', storages: ['nas'], risk: ['destructive'] },
        ],
      }),
    );
    expect(lines).toEqual([
      {
        key: 'deny[0]',
        text: "deny '* /nodes/*/qemu/100/**' → protects VMID 100 from every call, by any path (as target rule {action: 'deny', vmids: [100], risk: ['read', 'write', 'destructive', 'privileged']})",
      },
      { key: 'deny[1]', text: "deny 'GET /nodes/pve3/**' → protects node pve3 (its guests included) from every read, by any path (as target rule {action: 'deny', nodes: ['pve3'], risk: ['read']})" },
      { key: 'deny[2]', text: "deny 'DELETE /nodes/*/lxc/200' → protects its own paths only; VMID 200 is protected from other paths by targets[0]" },
      { key: 'deny[3]', text: "deny '* /nodes/pve*/**' → protects its own paths only ('pve*' is a glob, which a target rule cannot take; see the warning)" },
      { key: 'deny[4]', text: "deny 'DELETE /nodes/*/qemu/*' → protects its own paths (it names no single guest, node, pool or storage)" },
      { key: 'targets[0]', text: 'asks approval for every write, destructive, privileged call that reaches VMIDs 200-210; tags prod, by any path' },
      { key: 'targets[1]', text: 'refuses every destructive call that reaches storages nas, by any path' },
    ]);
  });

  it('warns about rules that cannot apply under the policy and tokens never used', () => {
    const f = lint(sim.model, { preset: 'read-only', targets: [{ action: 'approval', vmids: [100], risk: ['privileged'] }] }, inventory, ['read', 'privileged']);
    expect(f.map((x) => `${x.severity} ${x.key}`)).toEqual(['warning policies.p.targets[0]', 'warning clusters.c.tokens.privileged']);
  });
});

describe.skipIf(!hasOfficialSchema('9.1'))(`policy lint on the official 9.1 schema${hasOfficialSchema('9.1') ? '' : ` (${OFFICIAL_SCHEMA_SKIP_MESSAGE})`}`, () => {
  let model: ApiModel;
  beforeAll(async () => {
    model = await loadSchemaFromFile(officialSchemaFile('9.1'));
  });

  it('accepts the README examples and refuses their typos', () => {
    expect(
      errors(lint(model, { preset: 'operator', deny: ['* /nodes/*/qemu/100/**'], privileged: ['POST /nodes/*/vzdump +script', 'POST /nodes/*/lxc +mp[n]', 'PUT /nodes/*/qemu/*/config +hostpci[n]'] })),
    ).toEqual([]);
    expect(errors(lint(model, { deny: ['* /nodes/*/qemu/100/**', 'DELETE /nodes/*/storage/*/content/**'] }))).toEqual([]);
    const f = errors(lint(model, { deny: ['* /nodes/*/qemu/100/staus/**'], targets: [{ action: 'deny', vmids: [100] }], privileged: ['PUT /nodes/*/qemu/*/config +hostpic[n]'] }));
    expect(f.map((x) => x.suggestion)).toEqual(['* /nodes/*/qemu/100/status/**', 'PUT /nodes/*/qemu/*/config +hostpci[n]']);
  });
});
