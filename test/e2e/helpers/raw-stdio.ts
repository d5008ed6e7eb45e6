/** The built server over stdio without an SDK client: raw JSON lines, for fuzzing and exact byte counts. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { BIN, REPO_ROOT, type E2eEnv } from './harness.js';

export interface RawLine {
  text: string;
  json: { jsonrpc?: string; id?: string | number | null; result?: unknown; error?: { code: number; message: string }; method?: string };
}

export class RawStdioServer {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffer = '';
  private stderrText = '';
  /** Every message the server wrote, in order. */
  readonly received: RawLine[] = [];
  private waiters: Array<() => void> = [];
  exitCode: number | null = null;

  constructor(env: E2eEnv) {
    this.child = spawn(process.execPath, [BIN, 'serve', '--config', env.configFile], {
      cwd: REPO_ROOT,
      env: env.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout.setEncoding('utf8').on('data', (d: string) => {
      this.buffer += d;
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) !== -1) {
        const text = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        this.received.push({ text, json: JSON.parse(text) as RawLine['json'] });
      }
      this.wake();
    });
    this.child.stderr.setEncoding('utf8').on('data', (d: string) => (this.stderrText += d));
    this.child.on('exit', (code) => {
      this.exitCode = code ?? -1;
      this.wake();
    });
  }

  get stderr(): string {
    return this.stderrText;
  }

  get alive(): boolean {
    return this.exitCode === null && this.child.exitCode === null;
  }

  send(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  /** Resolves once `predicate` holds for the messages received so far. */
  async until(predicate: (received: RawLine[]) => boolean, timeoutMs = 60_000, what = 'the expected answers'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.received)) {
      if (!this.alive) throw new Error(`the server exited (${this.exitCode}) while waiting for ${what}\nstderr:\n${this.stderrText}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (${this.received.length} messages received)`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 1000));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Send a request and wait for the answer with its id. */
  async request(id: string | number, method: string, params?: unknown, timeoutMs = 60_000): Promise<RawLine> {
    this.send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) }));
    await this.until((r) => r.some((l) => l.json.id === id), timeoutMs, `the answer to ${method} (id ${String(id)})`);
    return this.received.find((l) => l.json.id === id) as RawLine;
  }

  async initialize(): Promise<void> {
    await this.request(
      'init',
      'initialize',
      {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'raw-e2e', version: '1' },
      },
      120_000,
    );
    this.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.alive) return resolve();
      this.child.once('exit', () => resolve());
      this.child.stdin.end();
      setTimeout(() => this.child.kill('SIGKILL'), 10_000).unref();
    });
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
