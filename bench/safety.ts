/**
 * `safety` suite: what the policy-enforcing bridge adds to each call.
 *
 * - Bridge overhead: 1,000 sequential GETs against the simulator over HTTPS, the client called
 *   directly vs. through the bridge handler (validation, path rebuild, policy, budget, redaction),
 *   and through the handler with the hash-chained audit (HMAC) written for every call.
 *   Target: handler + audit within 1.3× the direct client (the bridge's share of issue 5's target).
 * - Audit: append rate and verification rate of the hash chain.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditLog } from '../src/audit/log.js';
import { verifyAudit } from '../src/audit/verify.js';
import { createBridgeHandler } from '../src/bridge/handler.js';
import type { BridgeHandler } from '../src/bridge/protocol.js';
import { PveClient } from '../src/client/index.js';
import { resolveBudgetLimits } from '../src/policy/budget-limits.js';
import { Policy } from '../src/policy/policy.js';
import { Budgets } from '../src/safety/budget.js';
import { RunClusters, classClients } from '../src/policy/clusters.js';
import { startSimulator } from '../src/simulator/index.js';
import type { SuiteContext } from './lib/suite.js';
import { ms, ratio, withinTarget, type Table } from './lib/table.js';

const OVERHEAD_TARGET = 1.3;
const PATH = '/nodes/pve1/qemu/100/status/current';

export async function safetySuite({ quick }: SuiteContext): Promise<Table[]> {
  const calls = quick ? 200 : 1000;
  const reps = quick ? 2 : 5;
  const sim = await startSimulator({ preset: 'demo', seed: 7, port: 0, authFailureDelayMs: 0 });
  const client = new PveClient({
    name: 'bench',
    url: sim.url,
    auth: { kind: 'token', tokenId: sim.token.id, secret: sim.token.secret },
    tls: { fingerprint: sim.fingerprint },
  });
  const dir = mkdtempSync(join(tmpdir(), 'bench-safety-'));
  try {
    const policy = Policy.fromConfig({ preset: 'operator', budget: { read: calls + 10, calls: calls + 10 } });
    const handlerWith = (audit?: AuditLog): BridgeHandler =>
      createBridgeHandler({
        runId: 'bench',
        clusters: new RunClusters({ name: 'sim', model: sim.model, policy, client, byClass: classClients(client) }),
        budgets: new Budgets('sim', () => resolveBudgetLimits(policy.budgetLimits)),
        mode: 'live',
        ...(audit ? { audit } : {}),
      });
    const signal = new AbortController().signal;
    const direct = () => client.request('GET', PATH);
    const bridged = (h: BridgeHandler) => () => h({ kind: 'request', method: 'GET', path: PATH, params: {} }, { signal });

    await timeSequential(direct, 50);
    const rows: Array<[string, number]> = [];
    const directMs = await best(reps, () => timeSequential(direct, calls));
    rows.push(['client directly', directMs]);
    rows.push(['bridge handler', await best(reps, () => timeSequential(bridged(handlerWith()), calls))]);
    const audit = AuditLog.open({ file: join(dir, 'audit.jsonl'), hmacKey: 'bench-key' });
    const auditedMs = await best(reps, () => timeSequential(bridged(handlerWith(audit)), calls));
    audit.close();
    rows.push(['bridge handler + audit (HMAC)', auditedMs]);

    const overhead: Table = {
      title: `${calls} sequential GETs against the simulator (best of ${reps})`,
      columns: ['path', 'total ms', 'per call ms', 'vs direct', 'target'],
      rows: rows.map(([name, total]) => [name, ms(total), ms(total / calls), ratio(total, directMs), name === 'client directly' ? '' : withinTarget(total / directMs, OVERHEAD_TARGET)]),
      notes: [`target: ≤ ${OVERHEAD_TARGET}× the direct client`],
    };

    const entries = quick ? 5_000 : 50_000;
    const log = AuditLog.open({ file: join(dir, 'chain.jsonl'), hmacKey: 'bench-key' });
    const data = { runId: 'bench', method: 'GET', path: PATH, params: { full: 1 }, status: 'ok', durationMs: 1.2 };
    const appendStart = performance.now();
    for (let i = 0; i < entries; i++) log.append('call', data);
    const appendMs = performance.now() - appendStart;
    log.close();
    const verifyStart = performance.now();
    const verdict = verifyAudit(join(dir, 'chain.jsonl'), { hmacKey: 'bench-key' });
    const verifyMs = performance.now() - verifyStart;
    if (!verdict.ok) throw new Error(`benchmark audit does not verify: ${verdict.problems[0]?.message}`);
    const auditTable: Table = {
      title: `audit chain, ${entries} call entries (HMAC-SHA256)`,
      columns: ['operation', 'total ms', 'per entry µs'],
      rows: [
        ['append (sync write + anchor)', ms(appendMs), ((appendMs * 1000) / entries).toFixed(1)],
        ['verify', ms(verifyMs), ((verifyMs * 1000) / entries).toFixed(1)],
      ],
    };
    return [overhead, auditTable];
  } finally {
    await client.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function timeSequential(fn: () => Promise<unknown>, n: number): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < n; i++) await fn();
  return performance.now() - start;
}

async function best(reps: number, fn: () => Promise<number>): Promise<number> {
  let min = Number.POSITIVE_INFINITY;
  for (let i = 0; i < reps; i++) min = Math.min(min, await fn());
  return min;
}
