/**
 * `simulator` suite: how fast the simulator starts per preset and answers over real HTTPS —
 * `/cluster/resources` (the heaviest listing: every guest, node and storage) as root, as a user
 * filtered to one pool, gzip-compressed, and a trivial `/version` for the per-request floor.
 * Targets: scale-10000 starts within 5 s; its `/cluster/resources` p50 within 1 s.
 */
import { Agent, request } from 'undici';
import { startSimulator, type RunningSimulator } from '../src/simulator/index.js';
import { ms, summarize, withinTarget, type Table } from './lib/table.js';
import type { SuiteContext } from './lib/suite.js';

const START_TARGET_MS = 5_000;
const RESOURCES_P50_TARGET_MS = 1_000;

const insecure = new Agent({ connect: { rejectUnauthorized: false } });

async function timeGets(sim: RunningSimulator, path: string, headers: Record<string, string>, n: number): Promise<{ times: number[]; bytes: number }> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await request(`${sim.url}${path}`, { dispatcher: insecure, headers });
    const body = Buffer.from(await res.body.arrayBuffer());
    times.push(performance.now() - t0);
    if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}`);
    bytes = body.length;
  }
  return { times, bytes };
}

export async function simulatorSuite({ quick }: SuiteContext): Promise<Table[]> {
  const presets = quick ? ['demo', 'scale-2000'] : ['demo', 'scale-2000', 'scale-10000'];
  const reps = quick ? 3 : 10;
  const startRows: Table['rows'] = [];
  const callRows: Table['rows'] = [];
  for (const preset of presets) {
    const t0 = performance.now();
    const sim = await startSimulator({ preset, authFailureDelayMs: 0 });
    const startMs = performance.now() - t0;
    try {
      const guests = sim.cluster.guests().length;
      startRows.push([preset, sim.cluster.nodeNames.length, guests, ms(startMs), preset === 'scale-10000' ? withinTarget(startMs, START_TARGET_MS) : '']);
      const pool = [...sim.cluster.state.pools.keys()][0];
      sim.access.addUser('bench@pve');
      if (pool) sim.access.grant({ path: `/pool/${pool}`, roles: ['PVEAuditor'], users: ['bench@pve'] });
      const user = sim.access.addToken('bench@pve', 'bench', { privsep: false });
      const root = { authorization: sim.token.header };
      const cases: Array<[string, string, Record<string, string>]> = [
        ['/cluster/resources (root)', '/api2/json/cluster/resources', root],
        ['/cluster/resources (gzip)', '/api2/json/cluster/resources', { ...root, 'accept-encoding': 'gzip' }],
        [`/cluster/resources (pool ${pool ?? '-'} only)`, '/api2/json/cluster/resources', { authorization: user.header }],
        ['/version', '/api2/json/version', root],
      ];
      for (const [label, path, headers] of cases) {
        await timeGets(sim, path, headers, 1);
        const { times, bytes } = await timeGets(sim, path, headers, label === '/version' ? reps * 20 : reps);
        const s = summarize(times);
        const target = preset === 'scale-10000' && label.endsWith('(root)') ? withinTarget(s.median, RESOURCES_P50_TARGET_MS) : '';
        callRows.push([preset, label, bytes, ms(s.median), ms(s.p95), target]);
      }
    } finally {
      await sim.close();
    }
  }
  return [
    {
      title: 'simulator start (cluster generation, ticket key, certificate, own schema, listen)',
      columns: ['preset', 'nodes', 'guests', 'start ms', 'target'],
      rows: startRows,
      notes: [`target: scale-10000 starts within ${START_TARGET_MS} ms`],
    },
    {
      title: 'simulator requests over HTTPS (keep-alive, one client)',
      columns: ['preset', 'request', 'bytes', 'p50 ms', 'p95 ms', 'target'],
      rows: callRows,
      notes: [`target: scale-10000 /cluster/resources p50 within ${RESOURCES_P50_TARGET_MS} ms`],
    },
  ];
}
