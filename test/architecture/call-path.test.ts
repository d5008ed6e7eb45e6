/**
 * The request leg of a live `pve.get`, traced file by file on the server's side: from the call's
 * JSON at the contract to the request leaving the client, every entry into another file's
 * exports in order (test/support/file-hops.ts). docs/architecture.md draws this path and counts
 * it: this test reads the drawing and fails when the code takes another path, so the count stays
 * what the code does. A coverage check makes sure no file on the path is left untraced.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { describe, expect, it, vi } from 'vitest';
import { parseBridgeCall } from '../../src/bridge/contract.js';
import { recorder } from '../support/file-hops.js';
import { useSimBridge } from '../support/sim-bridge.js';

vi.mock('../../src/bridge/contract.js', async (orig) => (await import('../support/file-hops.js')).traced('bridge/contract.ts', await orig()));
vi.mock('../../src/bridge/handler.js', async (orig) => (await import('../support/file-hops.js')).traced('bridge/handler.ts', await orig()));
vi.mock('../../src/bridge/runtime.js', async (orig) => (await import('../support/file-hops.js')).traced('bridge/runtime.ts', await orig()));
vi.mock('../../src/bridge/errors.js', async (orig) => (await import('../support/file-hops.js')).traced('bridge/errors.ts', await orig()));
vi.mock('../../src/bridge/stats.js', async (orig) => (await import('../support/file-hops.js')).traced('bridge/stats.ts', await orig()));
vi.mock('../../src/safety/budget.js', async (orig) => (await import('../support/file-hops.js')).traced('safety/budget.ts', await orig()));
vi.mock('../../src/safety/identity.js', async (orig) => (await import('../support/file-hops.js')).traced('safety/identity.ts', await orig()));
vi.mock('../../src/safety/redact.js', async (orig) => (await import('../support/file-hops.js')).traced('safety/redact.ts', await orig()));
vi.mock('../../src/safety/caps.js', async (orig) => (await import('../support/file-hops.js')).traced('safety/caps.ts', await orig()));
vi.mock('../../src/safety/plan.js', async (orig) => (await import('../support/file-hops.js')).traced('safety/plan.ts', await orig()));
vi.mock('../../src/policy/clusters.js', async (orig) => (await import('../support/file-hops.js')).traced('policy/clusters.ts', await orig()));
vi.mock('../../src/policy/request.js', async (orig) => (await import('../support/file-hops.js')).traced('policy/request.ts', await orig()));
vi.mock('../../src/policy/pve-reading.js', async (orig) => (await import('../support/file-hops.js')).traced('policy/pve-reading.ts', await orig()));
vi.mock('../../src/policy/call-shape.js', async (orig) => (await import('../support/file-hops.js')).traced('policy/call-shape.ts', await orig()));
vi.mock('../../src/policy/param-values.js', async (orig) => (await import('../support/file-hops.js')).traced('policy/param-values.ts', await orig()));
vi.mock('../../src/policy/path-suggest.js', async (orig) => (await import('../support/file-hops.js')).traced('policy/path-suggest.ts', await orig()));
vi.mock('../../src/policy/facts.js', async (orig) => (await import('../support/file-hops.js')).traced('policy/facts.ts', await orig()));
vi.mock('../../src/policy/escalations.js', async (orig) => (await import('../support/file-hops.js')).traced('policy/escalations.ts', await orig()));
vi.mock('../../src/policy/targets.js', async (orig) => (await import('../support/file-hops.js')).traced('policy/targets.ts', await orig()));
vi.mock('../../src/policy/volumes.js', async (orig) => (await import('../support/file-hops.js')).traced('policy/volumes.ts', await orig()));
vi.mock('../../src/policy/guests.js', async (orig) => (await import('../support/file-hops.js')).traced('policy/guests.ts', await orig()));
vi.mock('../../src/policy/policy.js', async (orig) => (await import('../support/file-hops.js')).traced('policy/policy.ts', await orig()));
vi.mock('../../src/policy/decide.js', async (orig) => (await import('../support/file-hops.js')).traced('policy/decide.ts', await orig()));
vi.mock('../../src/policy/taint.js', async (orig) => (await import('../support/file-hops.js')).traced('policy/taint.ts', await orig()));
vi.mock('../../src/policy/glob.js', async (orig) => (await import('../support/file-hops.js')).traced('policy/glob.ts', await orig()));
vi.mock('../../src/schema/model.js', async (orig) => (await import('../support/file-hops.js')).traced('schema/model.ts', await orig()));
vi.mock('../../src/schema/schema-node.js', async (orig) => (await import('../support/file-hops.js')).traced('schema/schema-node.ts', await orig()));
vi.mock('../../src/pve/upid.js', async (orig) => (await import('../support/file-hops.js')).traced('pve/upid.ts', await orig()));
vi.mock('../../src/pve/list-value.js', async (orig) => (await import('../support/file-hops.js')).traced('pve/list-value.ts', await orig()));
vi.mock('../../src/client/client.js', async (orig) => (await import('../support/file-hops.js')).traced('client/client.ts', await orig()));
vi.mock('../../src/client/encoding.js', async (orig) => (await import('../support/file-hops.js')).traced('client/encoding.ts', await orig()));
vi.mock('../../src/client/auth.js', async (orig) => (await import('../support/file-hops.js')).traced('client/auth.ts', await orig()));
vi.mock('../../src/client/secret.js', async (orig) => (await import('../support/file-hops.js')).traced('client/secret.ts', await orig()));
vi.mock('../../src/client/retry.js', async (orig) => (await import('../support/file-hops.js')).traced('client/retry.ts', await orig()));
vi.mock('../../src/client/transport.js', async (orig) => (await import('../support/file-hops.js')).traced('client/transport.ts', await orig()));
vi.mock('../../src/client/limiter.js', async (orig) => (await import('../support/file-hops.js')).traced('client/limiter.ts', await orig()));
vi.mock('../../src/client/response.js', async (orig) => (await import('../support/file-hops.js')).traced('client/response.ts', await orig()));
vi.mock('../../src/client/errors.js', async (orig) => (await import('../support/file-hops.js')).traced('client/errors.ts', await orig()));
vi.mock('../../src/client/tls.js', async (orig) => (await import('../support/file-hops.js')).traced('client/tls.ts', await orig()));
vi.mock('../../src/script/secret-names.js', async (orig) => (await import('../support/file-hops.js')).traced('script/secret-names.ts', await orig()));

/** Every module the trace wraps: a file of src/ that runs during the call must be one of these. */
const TRACED = new Set([
  'bridge/contract.ts',
  'bridge/handler.ts',
  'bridge/runtime.ts',
  'bridge/errors.ts',
  'bridge/stats.ts',
  'safety/budget.ts',
  'safety/identity.ts',
  'safety/redact.ts',
  'safety/caps.ts',
  'safety/plan.ts',
  'policy/clusters.ts',
  'policy/request.ts',
  'policy/call-shape.ts',
  'policy/pve-reading.ts',
  'policy/param-values.ts',
  'policy/path-suggest.ts',
  'policy/facts.ts',
  'policy/escalations.ts',
  'policy/targets.ts',
  'policy/volumes.ts',
  'policy/guests.ts',
  'policy/policy.ts',
  'policy/decide.ts',
  'policy/taint.ts',
  'policy/glob.ts',
  'schema/model.ts',
  'schema/schema-node.ts',
  'pve/upid.ts',
  'pve/list-value.ts',
  'client/client.ts',
  'client/encoding.ts',
  'client/auth.ts',
  'client/secret.ts',
  'client/retry.ts',
  'client/transport.ts',
  'client/limiter.ts',
  'client/response.ts',
  'client/errors.ts',
  'client/tls.ts',
  'script/secret-names.ts',
]);

const DOC = new URL('../../docs/architecture.md', import.meta.url);
const CALL = '{"kind":"request","method":"GET","path":"/nodes/{node}/qemu/{vmid}/status/current","params":{"node":"pve1","vmid":100}}';

const bridge = useSimBridge();
const handler = () => bridge.handler('hops');

/** The call as the sandbox channel hands it over (worker-run.ts): JSON to the contract, then the handler. */
async function liveGet(h = handler()): Promise<unknown> {
  const parsed = parseBridgeCall(CALL, 100_000);
  if (!parsed.ok) throw new Error(parsed.message);
  return h(parsed.call, { signal: new AbortController().signal });
}

/** The drawn request leg ("Out (N): …"): its count, its hops, and the server's part of it (after `worker-run.ts`). */
function drawnLeg(): { count: number; hops: number; server: string[] } {
  const text = readFileSync(DOC, 'utf8');
  const out = /^Out \((\d+)\): ([\s\S]*?\*\*⇄ PVE\*\*)/m.exec(text);
  if (!out) throw new Error('docs/architecture.md has no "Out (N): … ⇄ PVE" line');
  const steps = [...(out[2] ?? '').matchAll(/`([\w./-]+\.(?:ts|js))`|\*\*(⇄[^*]*)\*\*/g)].map((m) => (m[1] ?? m[2] ?? '').trim());
  return { count: Number(out[1]), hops: steps.filter((s) => !s.startsWith('⇄')).length - 1, server: steps.slice(steps.indexOf('sandbox/worker-run.ts') + 1) };
}

describe('the request leg of a live pve.get', () => {
  it('takes the path docs/architecture.md draws, file by file', async () => {
    await liveGet();
    const h = handler();
    const leaving = (): void => recorder.mark('⇄ PVE');
    subscribe('undici:request:create', leaving);
    recorder.start();
    try {
      expect(await liveGet(h)).toMatchObject({ ok: true });
    } finally {
      recorder.stop();
      unsubscribe('undici:request:create', leaving);
    }
    const leg = recorder.hops.slice(0, recorder.hops.indexOf('⇄ PVE') + 1);
    const drawn = drawnLeg();
    expect(drawn.count, 'the count drawn is the hops listed').toBe(drawn.hops);
    expect(leg).toEqual(drawn.server);
  });

  it('leaves no file that runs during the call out of the trace', async () => {
    await liveGet();
    const h = handler();
    const session = new Session();
    session.connect();
    try {
      await session.post('Profiler.enable');
      await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
      await session.post('Profiler.takePreciseCoverage');
      await liveGet(h);
      const { result } = await session.post('Profiler.takePreciseCoverage');
      const ran = result
        .filter((s) => /\/src\/(?!simulator\/)/.test(s.url) && s.functions.some((f) => f.functionName !== '' && (f.ranges[0]?.count ?? 0) > 0))
        .map((s) => s.url.slice(s.url.lastIndexOf('/src/') + 5));
      expect(
        ran.filter((f) => !TRACED.has(f)),
        'trace these too',
      ).toEqual([]);
    } finally {
      session.disconnect();
    }
  });
});
