/**
 * The walk: every GET of the official 9.1 schema, called against the simulator serving that
 * schema with response checks on. Path values come from the cluster's own listings (node names
 * from /nodes, VMIDs from the node's guest lists, storage IDs, firewall rule positions…): for a
 * `{param}` the walk calls the path above it and takes the field its `links` name (or the field of
 * the same name). Each answer is validated against the declared return type; the figures are
 * printed and recorded in docs/simulator.md ("Coverage of the 9.1 GETs").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSchemaFromFile } from '../../src/schema/loader.js';
import type { ApiModel, Operation, SchemaNode } from '../../src/schema/model.js';
import { hasOfficialSchema, OFFICIAL_SCHEMA_SKIP_MESSAGE, officialSchemaFile } from '../../src/schema/official-schemas.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { validateValue } from '../../src/simulator/validate.js';
import { call, login, startTestSimulator } from './helpers.js';

const available = hasOfficialSchema('9.1');

/** Share of the 9.1 GETs that must answer 200 with a valid answer. */
const MIN_ANSWERED = 0.95;

/** GETs the simulator does not answer with data, and why (kept in step with docs/simulator.md). */
export const NOT_WALKED: Record<string, string> = {
  'GET /nodes/{node}/vncwebsocket': 'a websocket upgrade for a console session, not a JSON answer',
  'GET /nodes/{node}/qemu/{vmid}/vncwebsocket': 'a websocket upgrade for a console session, not a JSON answer',
  'GET /nodes/{node}/lxc/{vmid}/vncwebsocket': 'a websocket upgrade for a console session, not a JSON answer',
  'GET /nodes/{node}/qemu/{vmid}/mtunnelwebsocket': 'a websocket tunnel of a remote migration, not a JSON answer',
  'GET /nodes/{node}/lxc/{vmid}/mtunnelwebsocket': 'a websocket tunnel of a remote migration, not a JSON answer',
  'GET /nodes/{node}/storage/{storage}/file-restore/list': 'needs a Proxmox Backup Server storage, which the presets do not have',
  'GET /nodes/{node}/storage/{storage}/file-restore/download': 'needs a Proxmox Backup Server storage, which the presets do not have',
  'GET /cluster/ceph/metadata': "the declared return type requires keys literally named '{id}' and '{node}', which no real answer has",
};

/** Values for required query parameters that have no enum (the first enum value is used otherwise). */
function queryValue(op: Operation, name: string, found: Record<string, string>): string | undefined {
  const table: Record<string, string | undefined> = {
    ds: 'cpu',
    timeframe: 'hour',
    'config-keys': 'global:fsid',
    schedule: 'mon..fri 02:30',
    name: op.path.endsWith('/apt/changelog') ? 'pve-manager' : undefined,
    server: found.server,
    portal: found.server,
    url: 'https://cdimage.debian.org/debian-cd/current/amd64/iso-cd/debian-13.1.0-amd64-netinst.iso',
    vg: 'pve',
    disk: found.disk,
    file: '/etc/hostname',
    pid: found.pid,
    reference: 'docker.io/library/debian',
    volume: op.path.endsWith('/import-metadata') ? found.importVolume : found.backupVolume,
    'cmd-safety': undefined,
    service: 'mon',
    id: 'osd.0',
    action: 'stop',
    field: 'type',
    node: found.node,
  };
  return table[name];
}

/** Where a path parameter's values come from when the path above it has no GET (or is not a list). */
const FALLBACK_SOURCES: Record<string, { list: string; field: string }> = {
  vnet: { list: '/cluster/sdn/vnets', field: 'vnet' },
  fabric: { list: '/cluster/sdn/fabrics/fabric', field: 'id' },
};

interface Outcome {
  key: string;
  status: number;
  path?: string;
  message?: string;
  problems: string[];
}

describe.skipIf(!available)(available ? 'walk of every 9.1 GET' : `walk of every 9.1 GET (${OFFICIAL_SCHEMA_SKIP_MESSAGE} to run)`, () => {
  let official: ApiModel;
  let sim: RunningSimulator;
  let ticket: string;
  let csrf: string;

  beforeAll(async () => {
    official = await loadSchemaFromFile(officialSchemaFile('9.1'));
    sim = await startTestSimulator({ schemaFile: officialSchemaFile('9.1'), checkResponses: true });
    const root = await login(sim, 'root@pam', sim.rootPassword);
    ticket = root.ticket;
    csrf = root.csrf;
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('answers every GET from state, each valid against its declared returns', async () => {
    const get = async (path: string) => call(sim, `/api2/json${path}`, { auth: { ticket } });
    const post = async (path: string, body: Record<string, string>) => call(sim, `/api2/json${path}`, { method: 'POST', auth: { ticket, csrf }, body });

    // Values for required query parameters, each from a listing.
    const found: Record<string, string> = {};
    const nodes = (await get('/nodes')).json?.data ?? [];
    const node = nodes[0]?.node as string;
    for (const st of (await get('/storage')).json?.data ?? []) {
      if (st.server) found.server ??= st.server;
      const content = (await get(`/nodes/${node}/storage/${st.storage}/content`)).json?.data ?? [];
      found.backupVolume ??= content.find((v: { content: string }) => v.content === 'backup')?.volid;
      found.importVolume ??= content.find((v: { content: string }) => v.content === 'import')?.volid;
    }
    const disks = (await get(`/nodes/${node}/disks/list`)).json?.data ?? [];
    found.disk = disks[0]?.devpath;
    const running = ((await get(`/nodes/${node}/qemu`)).json?.data ?? []).find((g: { status: string }) => g.status === 'running');
    if (running) {
      const exec = await post(`/nodes/${node}/qemu/${running.vmid}/agent/exec`, { command: 'uptime' });
      found.pid = exec.json?.data?.pid?.toString();
    }

    found.node = node;

    const listings = new Map<string, Promise<unknown>>();
    const listing = (path: string): Promise<unknown> => {
      let p = listings.get(path);
      if (!p) {
        p = get(path).then((r) => (r.status === 200 ? r.json?.data : undefined));
        listings.set(path, p);
      }
      return p;
    };
    const linkField = (template: string): string | undefined => {
      const op = official.get('GET', template) as Operation | undefined;
      const links = (op?.returns as SchemaNode | undefined)?.links as Array<{ href: string }> | undefined;
      return links?.[0]?.href.match(/^\{([^}]+)\}$/)?.[1];
    };
    /** Candidate values of `{param}` whose listing is `parentTemplate` (already filled in as `parentPath`). */
    const candidates = async (param: string, parentTemplate: string, parentPath: string): Promise<string[]> => {
      let data: unknown;
      let field: string | undefined;
      if (official.get('GET', parentTemplate)) {
        data = await listing(parentPath);
        field = linkField(parentTemplate);
      }
      const fallback = FALLBACK_SOURCES[param];
      if ((data === undefined || (Array.isArray(data) && data.length === 0)) && fallback) {
        data = await listing(fallback.list);
        field = fallback.field;
      }
      // The OSD listing is a tree: take the OSDs from its leaves.
      if (param === 'osdid' && data && typeof data === 'object' && !Array.isArray(data)) {
        const out: string[] = [];
        const walk = (n: { type?: string; id?: number; children?: unknown[] }) => {
          if (n.type === 'osd' && n.id !== undefined) out.push(String(n.id));
          for (const c of n.children ?? []) walk(c as typeof n);
        };
        walk((data as { root: { children?: unknown[] } }).root);
        return out;
      }
      if (!Array.isArray(data)) return [];
      const values: string[] = [];
      for (const item of data) {
        if (typeof item !== 'object' || item === null) continue;
        const rec = item as Record<string, unknown>;
        const v = rec[field ?? param] ?? rec[param] ?? rec.name ?? rec.id;
        if (v !== undefined && v !== null && v !== '' && v !== 'current') values.push(String(v));
      }
      return values;
    };

    const outcomes: Outcome[] = [];
    const gets = official.operations.filter((op) => op.method === 'GET').sort((a, b) => a.path.localeCompare(b.path));
    for (const op of gets) {
      if (NOT_WALKED[op.key]) continue;
      const query: string[] = [];
      let missingQuery = false;
      for (const p of op.params) {
        if (p.inPath || p.optional) continue;
        const v = p.enum?.[0] ?? queryValue(op, p.name, found);
        if (v === undefined) missingQuery = true;
        else query.push(`${encodeURIComponent(p.name)}=${encodeURIComponent(v)}`);
      }
      // A prune dry run needs a retention; none is configured on the storages, so the walk gives one.
      if (op.key === 'GET /nodes/{node}/storage/{storage}/prunebackups') query.push('prune-backups=keep-last%3D1');
      const qs = query.length ? `?${query.join('&')}` : '';
      // Fill the path left to right, trying a few candidates per parameter until the call answers 200.
      const segments = op.path.split('/');
      let last: Outcome = { key: op.key, status: 0, problems: [], message: missingQuery ? 'no value for a required parameter' : 'no path values found' };
      let tries = 0;
      const fill = async (i: number, done: string[]): Promise<boolean> => {
        if (i === segments.length) {
          if (missingQuery || tries >= 12) return false;
          tries += 1;
          const path = done.join('/');
          const before = sim.responseProblems.length;
          const r = await get(`${path}${qs}`);
          const problems = r.status === 200 ? validateValue(op.returns ?? {}, r.json?.data) : [];
          problems.push(...sim.responseProblems.slice(before).flatMap((p) => p.problems));
          last = { key: op.key, status: r.status, path, message: r.statusText, problems };
          return r.status === 200;
        }
        const seg = segments[i] as string;
        const m = /^\{(.+)\}$/.exec(seg);
        if (!m) return fill(i + 1, [...done, seg]);
        const param = m[1] as string;
        const parentTemplate = segments.slice(0, i).join('/') || '/';
        const values = (await candidates(param, parentTemplate, done.join('/') || '/')).slice(0, 4);
        for (const v of values) {
          if (await fill(i + 1, [...done, encodeURIComponent(v)])) return true;
        }
        return false;
      };
      await fill(0, []);
      outcomes.push(last);
    }

    const total = gets.length;
    const answered = outcomes.filter((o) => o.status === 200);
    const valid = answered.filter((o) => o.problems.length === 0);
    const failing = outcomes.filter((o) => o.status !== 200);
    const invalid = answered.filter((o) => o.problems.length > 0);
    const lines = [
      `9.1 GETs: ${total}; not walked by design: ${Object.keys(NOT_WALKED).length}`,
      `answered 200: ${answered.length} (${((100 * answered.length) / total).toFixed(1)}%), valid against the declared returns: ${valid.length} (${((100 * valid.length) / total).toFixed(1)}%)`,
      `other answers: ${failing.length}`,
      ...failing.map((o) => `  ${o.key} -> ${o.status} ${o.path ?? ''} ${o.message ?? ''}`),
      `invalid: ${invalid.length}`,
      ...invalid.map((o) => `  ${o.key} ${o.path}: ${o.problems.slice(0, 3).join('; ')}`),
    ];
    console.log(lines.join('\n'));
    expect(invalid.map((o) => o.key)).toEqual([]);
    expect(answered.length / total).toBeGreaterThanOrEqual(MIN_ANSWERED);
  }, 60_000);
});
