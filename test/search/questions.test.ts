/**
 * Search by question (issue 27): operator questions on the official 9.1 schema and on the demo
 * simulator's own schema, the inventory questions that lead with the cluster's resource list, a
 * single-guest verb over its every-guest twin, and the pointer to the SDK's guest helpers.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { casesFor, readQuerySet, recallAt } from '../../bench/search-queries.js';
import { loadSchemaFromFile } from '../../src/schema/loader.js';
import type { ApiModel } from '../../src/schema/model.js';
import { hasOfficialSchema, officialSchemaFile } from '../../src/schema/official-schemas.js';
import { ApiSearch } from '../../src/search/engine.js';
import { helperLine } from '../../src/search/helpers.js';
import { startSimulator } from '../../src/simulator/index.js';

const querySet = readQuerySet();
const INVENTORY = ['which node has the most free memory', 'which guests are locked', 'what is using the most disk', 'all guests with their status and node'];

async function demoModel(): Promise<ApiModel> {
  const sim = await startSimulator({ preset: 'demo', port: 0, authFailureDelayMs: 0 });
  await sim.close();
  return sim.model;
}

type SetName = 'questionHoldout4' | 'questionHoldout5' | 'questionHoldout6' | 'questionHoldout7' | 'questionHoldout8' | 'questionHoldout9' | 'questionHoldout10';
/**
 * Floors about a point under the figures measured at the end of round 10b (docs/search.md), so a
 * regression fails. They are not the goal (r@1 0.75, r@5 0.95). The seventh to ninth were written
 * blind by helpers who never read the search code and have been tuned on since. The tenth, written
 * blind after the common names and never tuned on, is the honest figure: on the demo schema at the
 * goal, on 9.1 its questions are (77/96) and the whole set is not (73.9/92.5).
 */
const FLOORS: Record<string, Record<SetName, { recall1: number; recall5: number }>> = {
  'the official 9.1 schema': {
    questionHoldout4: { recall1: 0.72, recall5: 0.94 },
    questionHoldout5: { recall1: 0.82, recall5: 0.93 },
    questionHoldout6: { recall1: 0.64, recall5: 0.88 },
    questionHoldout7: { recall1: 0.86, recall5: 0.96 },
    questionHoldout8: { recall1: 0.83, recall5: 0.97 },
    questionHoldout9: { recall1: 0.79, recall5: 0.94 },
    questionHoldout10: { recall1: 0.72, recall5: 0.91 },
  },
  "the demo simulator's own schema": {
    questionHoldout4: { recall1: 0.77, recall5: 0.97 },
    questionHoldout5: { recall1: 0.85, recall5: 0.95 },
    questionHoldout6: { recall1: 0.73, recall5: 0.91 },
    questionHoldout7: { recall1: 0.88, recall5: 0.97 },
    questionHoldout8: { recall1: 0.84, recall5: 0.96 },
    questionHoldout9: { recall1: 0.8, recall5: 0.93 },
    questionHoldout10: { recall1: 0.78, recall5: 0.94 },
  },
};

const schemas: Array<[string, boolean, () => Promise<ApiModel>]> = [
  ['the official 9.1 schema', hasOfficialSchema('9.1'), () => loadSchemaFromFile(officialSchemaFile('9.1'))],
  ["the demo simulator's own schema", true, demoModel],
];

for (const [name, available, load] of schemas) {
  describe.skipIf(!available)(`questions on ${name}`, () => {
    let search: ApiSearch;
    let keys: Set<string>;
    beforeAll(async () => {
      const model = await load();
      search = new ApiSearch(model);
      keys = new Set(model.operations.map((op) => op.key));
    });

    it('reach recall@1 >= 0.75 and recall@5 >= 0.95 on the question set', () => {
      const result = recallAt(search, casesFor(keys, querySet.questions));
      const misses = result.cases.filter((c) => c.rank !== 1).map((c) => `${c.query} (${c.rank ?? '-'})`);
      expect(result.recall5, misses.join(' | ')).toBeGreaterThanOrEqual(0.95);
      expect(result.recall1, misses.join(' | ')).toBeGreaterThanOrEqual(0.75);
    });

    it('reach recall@1 >= 0.75 and recall@5 >= 0.95 on every held-out set of earlier rounds (tuned on since)', () => {
      for (const set of ['questionHoldout', 'questionHoldout2', 'questionHoldout3'] as const) {
        const result = recallAt(search, casesFor(keys, querySet[set]));
        const misses = result.cases.filter((c) => c.rank !== 1).map((c) => `${c.query} (${c.rank ?? '-'})`);
        expect(result.recall5, `${set}: ${misses.join(' | ')}`).toBeGreaterThanOrEqual(0.95);
        expect(result.recall1, `${set}: ${misses.join(' | ')}`).toBeGreaterThanOrEqual(0.75);
      }
    });

    it('hold the fourth to tenth holdouts above their floors (not the goal: see FLOORS)', () => {
      for (const set of ['questionHoldout4', 'questionHoldout5', 'questionHoldout6', 'questionHoldout7', 'questionHoldout8', 'questionHoldout9', 'questionHoldout10'] as const) {
        const floor = FLOORS[name]?.[set];
        const result = recallAt(search, casesFor(keys, querySet[set]));
        expect(result.recall1, `${set} recall@1`).toBeGreaterThanOrEqual(floor?.recall1 ?? 1);
        expect(result.recall5, `${set} recall@5`).toBeGreaterThanOrEqual(floor?.recall5 ?? 1);
      }
    });

    it("drops an agent's words for the API itself and keeps the act they introduce", () => {
      const snapshot = search.search('what endpoint deletes a snapshot', { limit: 1 })[0];
      expect(snapshot?.method).toBe('DELETE');
      expect(snapshot?.path.endsWith('/snapshot/{snapname}')).toBe(true);
      expect(search.search('api to list vms', { limit: 1 })[0]?.key).toBe('GET /nodes/{node}/qemu');
      expect(search.search('notification endpoints', { limit: 3 }).every((h) => h.path.startsWith('/cluster/notifications'))).toBe(true);
    });

    it('reads a participle in a request to read as a state, and a guest named by ID as an argument', () => {
      expect(search.search('list all stopped vms', { limit: 1 })[0]?.method).toBe('GET');
      expect(search.search('what backups exist for vm 101', { limit: 1 })[0]?.key).toBe('GET /nodes/{node}/storage/{storage}/content');
      expect(['PUT /pools', 'PUT /pools/{poolid}']).toContain(search.search('add vm 130 to the dev pool', { limit: 1 })[0]?.key);
    });

    it.skipIf(name !== 'the official 9.1 schema')('reads a later part of a request and a UPID as the task it names', () => {
      expect(search.search('eve@pve is locked out after too many 2fa attempts, unlock her', { limit: 1 })[0]?.key).toBe('PUT /access/users/{userid}/unlock-tfa');
      expect(search.search('stop task UPID:pve1:00001234:0000ABCD:65000000:vzdump:101:root@pam:', { limit: 1 })[0]?.key).toBe('DELETE /nodes/{node}/tasks/{upid}');
    });

    it('reads the ask of a request: a keyword verb placed last, a question after context, a question about a way to act', () => {
      expect(search.search('backup job delete backup-daily', { limit: 1 })[0]?.key).toBe('DELETE /cluster/backup/{id}');
      expect(search.search('The backup of vm 105 keeps failing at night. Where can I find the task log?', { limit: 1 })[0]?.key).toBe('GET /nodes/{node}/tasks/{upid}/log');
      expect(search.search('Is there a way to clone container 200 to another node?', { limit: 1 })[0]?.key).toBe('POST /nodes/{node}/lxc/{vmid}/clone');
    });

    it('reads "can I / could I <act>" as asking for the act, with the check that answers whether it can be done close by', () => {
      const acts: Array<[string, string]> = [
        ['can I suspend every vm on pve4 at once?', 'POST /nodes/{node}/suspendall'],
        ['can I shrink the disk of vm 101', 'PUT /nodes/{node}/qemu/{vmid}/resize'],
        ['could I restart pveproxy on pve1', 'POST /nodes/{node}/services/{service}/restart'],
      ];
      // The demo schema has no service operations: only what the schema holds is asked for.
      for (const [q, key] of acts.filter(([, k]) => keys.has(k))) expect(search.search(q, { limit: 1 })[0]?.key, q).toBe(key);
      const migrate = search.search('can I migrate vm 100 to pve2 while it runs?', { limit: 3 }).map((h) => h.key);
      expect(migrate.slice(0, 2)).toContain('GET /nodes/{node}/qemu/{vmid}/migrate');
      expect(migrate).toContain('POST /nodes/{node}/qemu/{vmid}/migrate');
      for (const q of ['can I clone ct 200?', 'can I snapshot this container?']) {
        const keys = search.search(q, { limit: 3 }).map((h) => h.key);
        expect(keys.slice(0, 2), q).toContain('GET /nodes/{node}/lxc/{vmid}/feature');
        expect(
          keys.slice(0, 2).some((k) => k.startsWith('POST /nodes/{node}/lxc/{vmid}/')),
          q,
        ).toBe(true);
      }
      const possible = search.search('is it possible to migrate vm 100 to pve2 while it runs?', { limit: 2 }).map((h) => h.key);
      expect(possible).toEqual(expect.arrayContaining(['GET /nodes/{node}/qemu/{vmid}/migrate', 'POST /nodes/{node}/qemu/{vmid}/migrate']));
    });

    it('lets the ask, not the story before it, decide how much of a request an operation covers', () => {
      const defined = 'Since upgrading to 9.1 my backups to pbs-main fail with auth errors. Let me look at how that storage is defined.';
      expect(search.search(defined, { limit: 2 }).map((h) => h.key)).toContain('GET /storage/{storage}');
      expect(search.search("restore vm 118 from last night's backup on pbs-main", { limit: 1 })[0]?.key).toBe('POST /nodes/{node}/qemu');
    });

    it('inventory questions lead with GET /cluster/resources', () => {
      for (const q of INVENTORY) expect(search.search(q, { limit: 1 })[0]?.key, q).toBe('GET /cluster/resources');
    });

    it("counts guests across the cluster in the resource list, whose items' type names both kinds, and a named node's guests in its own list", () => {
      for (const q of ['how many containers do we have', 'show me every vm or container that is locked']) {
        expect(search.search(q, { limit: 1 })[0]?.key, q).toBe('GET /cluster/resources');
      }
      expect(search.search('how many containers are on this node', { limit: 1 })[0]?.key).toBe('GET /nodes/{node}/lxc');
    });

    it('a single-guest verb outranks its every-guest twin, and the twin answers for every guest', () => {
      expect(search.search('force stop vm 118 now', { limit: 1 })[0]?.key).toBe('POST /nodes/{node}/qemu/{vmid}/status/stop');
      expect(search.search('stop vm 118 hard', { limit: 1 })[0]?.key).toBe('POST /nodes/{node}/qemu/{vmid}/status/stop');
      expect(search.search('stop every vm on pve2', { limit: 1 })[0]?.key).toBe('POST /nodes/{node}/stopall');
    });

    it.skipIf(name !== 'the official 9.1 schema')('a read that declares no properties shows what the update beside it sets', () => {
      const keys = search.search('which console viewer does the datacenter use by default', { limit: 2 }).map((h) => h.key);
      expect(keys).toContain('GET /cluster/options');
    });

    it('finds where one named guest lives in the resource list, and a named node its own figures', () => {
      expect(search.search('which node hosts vm 150', { limit: 1 })[0]?.key).toBe('GET /cluster/resources');
      expect(search.search('how many cpus does pve1 have', { limit: 2 }).map((h) => h.key)).toContain('GET /nodes/{node}/status');
    });

    it('looks a guest named by its name up in the resource list', () => {
      expect(search.search('which vm is called db01', { limit: 2 }).map((h) => h.key)).toContain('GET /cluster/resources');
    });

    it('finds the SDK helpers by name, with the operation they read', () => {
      for (const q of ['pve.findGuest', 'how do I use pve.guests()', 'findGuest web01']) expect(search.search(q, { limit: 1 })[0]?.key, q).toBe('GET /cluster/resources');
    });

    it('ranks a one-off act over its scheduled job unless the request says when', () => {
      expect(search.search('create a backup of vm 150', { limit: 1 })[0]?.key).toBe('POST /nodes/{node}/vzdump');
      expect(search.search('create a nightly backup job for vm 150', { limit: 1 })[0]?.key).toBe('POST /cluster/backup');
    });

    it('ranks an act on the guest named over the every-guest twin and over creating a guest', () => {
      expect(search.search('suspend container 301', { limit: 1 })[0]?.key).toBe('POST /nodes/{node}/lxc/{vmid}/status/suspend');
      expect(search.search('add a second disk to a vm', { limit: 1 })[0]?.key).toBe('POST /nodes/{node}/qemu/{vmid}/config');
    });

    it('acts on the node when the request names a node and no guest', () => {
      const keys = search.search('restart the host', { limit: 2 }).map((h) => h.key);
      expect(keys[0]).toBe('POST /nodes/{node}/status');
      expect(keys.filter((k) => k.includes('{vmid}'))).toEqual([]);
    });

    it('takes a guest out of HA rather than destroying it', () => {
      const keys = search.search('take vm 120 out of ha', { limit: 10 }).map((h) => h.key);
      expect(keys.slice(0, 2)).toContain('DELETE /cluster/ha/resources/{sid}');
      const destroy = keys.indexOf('DELETE /nodes/{node}/qemu/{vmid}');
      expect(destroy === -1 || destroy > keys.indexOf('DELETE /cluster/ha/resources/{sid}')).toBe(true);
    });

    it.skipIf(name !== 'the official 9.1 schema')('reads a last "in" as the particle that sets an operation apart from its twin', () => {
      expect(search.search('bring osd 3 back in', { limit: 1 })[0]?.key).toBe('POST /nodes/{node}/ceph/osd/{osdid}/in');
      expect(search.search('mark osd 3 out', { limit: 1 })[0]?.key).toBe('POST /nodes/{node}/ceph/osd/{osdid}/out');
    });

    it('reads two words that are adjacent segments of a path as that path ("acme account" is not a user)', () => {
      expect(search.search('register an acme account', { limit: 1 })[0]?.path).toBe('/cluster/acme/account');
    });

    it('adds to the thing named after "to" rather than creating another one', () => {
      expect(search.search('add 10.0.0.5 to the blocklist ipset', { limit: 1 })[0]?.key).toBe('POST /cluster/firewall/ipset/{name}');
    });

    it.skipIf(name !== 'the official 9.1 schema')('finds the path a named service or flag belongs to', () => {
      expect(search.search('restart pveproxy on pve2', { limit: 1 })[0]?.key).toBe('POST /nodes/{node}/services/{service}/restart');
    });

    it.skipIf(name !== 'the official 9.1 schema')('ranks the operation whose own last path segment the request names over its neighbours', () => {
      expect(search.search('two factor authentication entries', { limit: 1 })[0]?.key).toBe('GET /access/tfa');
      expect(['GET /storage', 'GET /nodes/{node}/storage']).toContain(search.search('which storages can hold backups', { limit: 1 })[0]?.key);
    });

    it('reads a name spelled with dashes next to its noun as one item, not as words to search', () => {
      for (const q of ['disable storage backup-nas', 'disable the nfs-backup storage'])
        expect(
          search.search(q, { limit: 3 }).map((h) => h.key),
          q,
        ).toContain('PUT /storage/{storage}');
    });

    it('puts a two-word action split around its object back together', () => {
      expect(search.search('shut the host pve3 down', { limit: 1 })[0]?.key).toBe('POST /nodes/{node}/status');
      expect(search.search('wake vm 200 up from pause', { limit: 1 })[0]?.key).toBe('POST /nodes/{node}/qemu/{vmid}/status/resume');
    });

    it('answers a question about one named item with the operation that takes it as a path argument', () => {
      // Each question is one that reached rank 1 on its schema only through this rule.
      const q = name === 'the official 9.1 schema' ? 'what is allowed by the PVEDatastoreUser role' : 'what privileges does the PVEVMAdmin role grant';
      expect(search.search(q, { limit: 1 })[0]?.key, q).toBe('GET /access/roles/{roleid}');
    });

    it("answers a question about a part of one guest's property strings with its configuration", () => {
      // `bridge` and `tag` are keys inside `net0`, not property names; the node's own network read
      // is not about the guest the question names.
      expect(search.search('what disks does vm 101 have', { limit: 1 })[0]?.key).toBe('GET /nodes/{node}/qemu/{vmid}/config');
      expect(search.search('which vlan tag does vm 110 use', { limit: 2 }).map((h) => h.key)).toContain('GET /nodes/{node}/qemu/{vmid}/config');
      const bridge = search.search('which network bridge is ct 204 attached to?', { limit: 5 }).map((h) => h.key);
      expect(bridge[0]).not.toBe('GET /nodes/{node}/network');
      expect(bridge).toContain('GET /nodes/{node}/lxc/{vmid}/config');
    });

    it('reads a change that waits for the next boot as pending', () => {
      expect(search.search('what on ct 200 only takes effect after the next reboot', { limit: 1 })[0]?.key).toBe('GET /nodes/{node}/lxc/{vmid}/pending');
    });

    it('reads what is on a storage as its content', () => {
      expect(search.search("what's on the local-lvm storage of pve3", { limit: 1 })[0]?.key).toBe('GET /nodes/{node}/storage/{storage}/content');
    });

    it('reads a demonstrative as one item the operator has in mind ("that task")', () => {
      expect(search.search('is this task still running', { limit: 1 })[0]?.key).toBe('GET /nodes/{node}/tasks/{upid}/status');
    });

    it('points at pve.guests() and pve.findGuest() where the resource list is found', () => {
      const hits = search.search('which guests are locked', { limit: 5 });
      const line = helperLine(hits.map((h) => h.key));
      expect(line).toContain('pve.guests()');
      expect(line).toContain('pve.findGuest(nameOrVmid)');
      expect(helperLine(search.search('take a snapshot of a vm', { limit: 5 }).map((h) => h.key))).toBeUndefined();
    });
  });
}
