/**
 * The graceful stop and the whole-call deadline, end to end: the built server as a real process,
 * the MCP SDK client over stdio and over Streamable HTTP, runs in flight against the simulator
 * (slowed down so they are still running when the server is told to stop). Every tool call in
 * flight must get its answer (not a client timeout), the server must exit 0 within the drain,
 * and `audit verify` must pass afterwards.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { BIN, REPO_ROOT, runCli, startE2eEnv, type E2eEnv } from './helpers/harness.js';
import { callTool, connectHttp, runAnswer, startHttpServe, textOf, type Connected, type HttpServerProcess } from './helpers/mcp.js';

/** Far above the test's patience: only the stop (or the deadline) may end these runs. */
const LONG = { entryTimeoutMs: 300_000, cpuMs: 300_000, wallMs: 300_000 };
const DRAIN_MS = 10_000;
const TOKEN = 'graceful-stop-token-0123456789';

const READ_LOOP = "for (let i = 0; ; i++) { console.log('read ' + i); await pve.get('/version'); }";
let round = 0;
/** Writes in a loop, each waited for (a snapshot task holds the guest's lock); names unique per test. */
const snapshotLoop = (node: string, vmid: number, tag: string) =>
  `for (let i = 0; ; i++) { console.log('snapshot ' + i); await pve.waitTask(await pve.post('/nodes/{node}/qemu/{vmid}/snapshot', { node: '${node}', vmid: ${vmid}, snapname: '${tag}' + i })); }`;
const scripts = (): string[] => {
  round++;
  return [READ_LOOP, snapshotLoop('pve1', 100, `r${round}a`), READ_LOOP, snapshotLoop('pve2', 107, `r${round}b`)];
};

/**
 * The SDK client over the server's stdin and stdout, spawned here so the test can close stdin (as
 * a client that goes away does) and still read the answers, and can see the exit code.
 */
class SpawnedStdio implements Transport {
  readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<{ code: number | null; ms: number }>;
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly buffer = new ReadBuffer();
  private stderrText = '';
  private stopAt = 0;

  constructor(env: E2eEnv, configFile: string) {
    this.child = spawn(process.execPath, [BIN, 'serve', '--config', configFile], { cwd: REPO_ROOT, env: env.env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.setEncoding('utf8').on('data', (d: string) => (this.stderrText += d));
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve({ code, ms: performance.now() - this.stopAt })));
  }

  async start(): Promise<void> {
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (let m = this.buffer.readMessage(); m; m = this.buffer.readMessage()) this.onmessage?.(m);
    });
    this.child.on('close', () => this.onclose?.());
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.child.stdin.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }

  stderr(): string {
    return this.stderrText;
  }

  /** The moment the stop was asked for: `exited.ms` counts from here. */
  markStop(): void {
    this.stopAt = performance.now();
  }
}

async function connectSpawned(env: E2eEnv, configFile = env.configFile): Promise<{ transport: SpawnedStdio; conn: Connected }> {
  const transport = new SpawnedStdio(env, configFile);
  const client = new Client({ name: 'graceful', version: '1' });
  const logs: unknown[] = [];
  await client.connect(transport, { timeout: 120_000 });
  return { transport, conn: { client, elicitations: [], logs, stderr: () => transport.stderr(), close: () => client.close() } };
}

/** Starts the four runs and resolves once each of the two that got a worker has made calls. */
async function startRuns(clients: Connected[]): Promise<Array<Promise<CallToolResult>>> {
  const progressed = new Set<number>();
  let twoRunning: () => void = () => undefined;
  const running = new Promise<void>((resolve) => (twoRunning = resolve));
  const calls = scripts().map((code, i) =>
    callTool(
      clients[i % clients.length] as Connected,
      'run_script',
      { code },
      {
        // Far longer than the drain: an unanswered call would show up as this timeout.
        timeout: 60_000,
        onProgress: (p) => {
          if (/^log: (read|snapshot) 2$/.test(p.message ?? '')) progressed.add(i);
          if (progressed.size >= 2) twoRunning();
        },
      },
    ).then((c) => c.result),
  );
  await running;
  return calls;
}

/** Every call has its own answer: the runs that had a worker with their logs, the queued ones too; all say why. */
function expectStoppedAnswers(results: PromiseSettledResult<CallToolResult>[]): void {
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
  const answers = results.map((r) => runAnswer((r as PromiseFulfilledResult<CallToolResult>).value));
  for (const a of answers) {
    expect(a.error, JSON.stringify(a)).toBeDefined();
    expect(a.ok).toBe(false);
    expect(a.error?.kind, JSON.stringify(a)).toBe('cancelled');
    expect(a.error?.message).toMatch(/the server is stopping/);
  }
  // The two that ran return the logs they made before the stop.
  expect(answers.filter((a) => a.logs.some((l) => / 2$/.test(l)))).toHaveLength(2);
}

async function expectAuditVerifies(env: E2eEnv): Promise<void> {
  const verify = await runCli(['audit', 'verify', '--state-dir', env.stateDir], { env: env.env });
  expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  expect(verify.stdout).toMatch(/audit OK/);
}

describe('graceful stop with runs in flight', () => {
  let env: E2eEnv;
  const faults: number[] = [];

  beforeAll(async () => {
    // One principal (the bearer token's, or stdio's) runs on both workers: fairness is not under test here.
    env = await startE2eEnv({ sandbox: { workers: 2, perPrincipal: 2, limits: LONG } });
    // Slow enough that every run is mid-call when the signal comes, fast enough to log quickly.
    faults.push(env.sim.faults.add({ path: '/version', latencyMs: 150 }), env.sim.faults.add({ path: '/nodes/*/qemu/*/snapshot', method: 'POST', latencyMs: 150 }));
  }, 120_000);

  afterAll(async () => {
    for (const id of faults) env?.sim.faults.remove(id);
    await env?.close();
  });

  describe('over stdio', () => {
    let spawned: SpawnedStdio | undefined;
    afterEach(async () => spawned?.close());

    it('SIGTERM: every call in flight is answered, the server exits 0 within the drain, the audit verifies', async () => {
      const { transport, conn } = await connectSpawned(env);
      spawned = transport;
      const calls = await startRuns([conn]);
      transport.markStop();
      transport.child.kill('SIGTERM');
      expectStoppedAnswers(await Promise.allSettled(calls));
      const exit = await transport.exited;
      expect(exit.code, transport.stderr()).toBe(0);
      expect(exit.ms).toBeLessThan(DRAIN_MS);
      expect(transport.stderr()).toMatch(/SIGTERM received: stopping; 4 tool calls in flight/);
      expect(transport.stderr()).toMatch(/every tool call in flight was answered \(4, in \d+ ms\)/);
      await expectAuditVerifies(env);
    }, 120_000);

    it('the client closing stdin: the answers still reach it on stdout, then the server exits 0', async () => {
      const { transport, conn } = await connectSpawned(env);
      spawned = transport;
      const calls = await startRuns([conn]);
      transport.markStop();
      transport.child.stdin.end();
      expectStoppedAnswers(await Promise.allSettled(calls));
      const exit = await transport.exited;
      expect(exit.code, transport.stderr()).toBe(0);
      expect(exit.ms).toBeLessThan(DRAIN_MS);
      expect(transport.stderr()).toMatch(/the client closed stdin: stopping/);
      await expectAuditVerifies(env);
    }, 120_000);
  });

  describe('over Streamable HTTP', () => {
    let server: HttpServerProcess | undefined;
    let clients: Connected[] = [];
    afterEach(async () => {
      await Promise.all(clients.map((c) => c.client.close().catch(() => undefined)));
      await server?.close();
    });

    it('SIGTERM: the answers reach both sessions before the streams close, the server exits 0, the audit verifies', async () => {
      server = await startHttpServe(env, TOKEN);
      clients = await Promise.all(['a', 'b'].map((name) => connectHttp((server as HttpServerProcess).url, TOKEN, { name })));
      const calls = await startRuns(clients);
      const child = server.child;
      const stoppedAt = performance.now();
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expectStoppedAnswers(await Promise.allSettled(calls));
      expect(await exited, server.stderr()).toBe(0);
      expect(performance.now() - stoppedAt).toBeLessThan(DRAIN_MS);
      expect(server.stderr()).toMatch(/every tool call in flight was answered \(4, in \d+ ms\)/);
      await expectAuditVerifies(env);
    }, 120_000);
  });
});

describe('the whole-call deadline', () => {
  let env: E2eEnv;
  let spawned: SpawnedStdio;
  let conn: Connected;
  const DEADLINE_MS = 4_000;

  beforeAll(async () => {
    // One worker, so a second call waits for it; the deadline far below the client's timeout.
    env = await startE2eEnv({ sandbox: { workers: 1, limits: LONG, callDeadlineMs: DEADLINE_MS } });
    ({ transport: spawned, conn } = await connectSpawned(env));
  }, 120_000);

  afterAll(async () => {
    await spawned?.close();
    await env?.close();
  });

  it('answers a run past its deadline with its partial result, and one that waited for a worker past its own with where the time went', async () => {
    // The worker and the type-check process warm first: a cold start (a second or more on a loaded
    // machine) would otherwise sit between the two calls below and decide their order. A cold start
    // can itself outlast the 4 s deadline there, so the warm-up is tried again (the processes go on
    // starting) until one run answers.
    let warm: unknown;
    for (let attempt = 0; attempt < 5 && warm !== 0; attempt++) warm = runAnswer((await callTool(conn, 'run_script', { code: 'return 0;' }, { timeout: 60_000 })).result).result;
    expect(warm).toBe(0);

    // The waiting call's deadline passes in the queue only if it was sent less than the spinning run's
    // stop (its cancel, about 1 s past its deadline, and a new worker) after the spinning run started,
    // and its type check ended before its deadline. On a loaded machine either can fail; then the
    // waiting call rightly runs, or its deadline passes in the type check, and the scene is played again.
    let waitedInQueue = false;
    for (let attempt = 0; attempt < 4 && !waitedInQueue; attempt++) {
      const started = performance.now();
      // The spinning script skips the type check (it compiles in the worker in milliseconds), so it holds
      // the worker before the checked call below leaves the type-check process and queues for it.
      const spinning = callTool(conn, 'run_script', { code: "console.log('spinning');\nawait pve.get('/version');\nwhile (true) {}", typecheck: false }, { timeout: 30_000 });
      // Sent once the spinning script runs (its GET reached the cluster): a quicker compile must not let
      // it take the worker first.
      const versionReads = () => env.sim.counters.snapshot().byOperation['GET /version'] ?? 0;
      const readsBefore = versionReads();
      while (versionReads() === readsBefore && performance.now() - started < DEADLINE_MS / 2) await new Promise((r) => setTimeout(r, 10));
      const queued = callTool(conn, 'run_script', { code: 'return 1;' }, { timeout: 30_000 });

      const ran = runAnswer((await spinning).result);
      const ranMs = performance.now() - started;
      expect(ran.ok).toBe(false);
      expect(ran.error?.kind).toBe('deadline');
      expect(ran.error?.message).toMatch(
        /^the call's 4\.0 s deadline passed while the script ran \(time spent: queue \d+\.\d s, compile \d+\.\d s, preflight \d+\.\d s, run \d+\.\d s\); the run was stopped; the logs and the calls it made until then are in this answer/,
      );
      expect(ran.logs).toEqual(['spinning']);
      expect(ran.stats.calls).toMatchObject({ read: 1 });
      expect(ranMs).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
      expect(ranMs).toBeLessThan(DEADLINE_MS + 2_000);

      const waited = (await queued).result;
      const waitedMs = performance.now() - started;
      const answer = runAnswer(waited);
      if (answer.ok) {
        // It got the worker the stopped run left, before its own deadline: only ever after that run.
        expect(answer.result).toBe(1);
        expect(waitedMs).toBeGreaterThan(ranMs);
        continue;
      }
      const phase = (answer.error as { details?: { phase?: string } }).details?.phase;
      if (phase === 'compile') {
        // The loaded machine's type check outlasted the deadline before the call reached the queue.
        expect(answer.error?.message).toMatch(/deadline passed while the script was compiled and type-checked .*the script did not run, nothing was sent/);
        continue;
      }
      waitedInQueue = true;
      expect(answer.error?.kind, JSON.stringify(answer)).toBe('deadline');
      expect(answer.error?.message).toMatch(/deadline passed while the run waited for a free sandbox worker .*the script did not run, nothing was sent\. The sandbox was busy/);
      expect((answer.error as { details?: { phase?: string } }).details?.phase).toBe('queue');
      expect(textOf(waited)).toMatch(/^error \[deadline\]/);
      expect(waitedMs).toBeLessThan(DEADLINE_MS / 2 + DEADLINE_MS + 2_000);
    }
    expect(waitedInQueue).toBe(true);

    // The worker is free again and a quick run is answered as usual.
    expect(runAnswer((await callTool(conn, 'run_script', { code: 'return 2;' }, { timeout: 30_000 })).result).result).toBe(2);
  }, 120_000);
});
