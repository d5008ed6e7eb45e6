/**
 * What every end-to-end test needs: an in-process simulator, a temporary product config pointing
 * at it over real HTTPS (pinned by fingerprint), and the BUILT CLI (`dist/src/cli/bin.js`) run as
 * a child process, exactly as an MCP client or an operator starts it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { officialSchemaFile } from '../../../src/schema/official-schemas.js';
import { startSimulator, type RunningSimulator } from '../../../src/simulator/index.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const BIN = join(REPO_ROOT, 'dist', 'src', 'cli', 'bin.js');

if (!existsSync(BIN)) {
  throw new Error(`${BIN} is missing: the end-to-end tests spawn the built CLI; run \`npm run build\` first (npm test does)`);
}

/** The official 9.1 schema, when the checkout sits next to it (see the common brief). */
export const OFFICIAL_SCHEMA = officialSchemaFile('9.1');

/** Policy used by the e2e configs: operator powers, destructive writes need a human's approval. */
const E2E_POLICY = { preset: 'operator', approval: { require: ['destructive'] } } as const;

export interface E2eEnv {
  sim: RunningSimulator;
  dir: string;
  configFile: string;
  stateDir: string;
  /** Environment for child processes: state defaults point into the temp dir, never at $HOME. */
  env: Record<string, string>;
  /** Write another config next to the first (same simulator), e.g. with a wrong fingerprint. */
  writeConfig(name: string, overrides?: ConfigOverrides): string;
  close(): Promise<void>;
}

export interface ConfigOverrides {
  fingerprint?: string;
  sandbox?: Record<string, unknown>;
}

/** `scenarios`: the simulator's fault scenarios (`locked:101:snapshot`…), as `--scenario` takes them. */
/** `preset`: the simulator's cluster shape (`demo`, default; `scale-40` for 40 guests…). */
export async function startE2eEnv(options: { sandbox?: Record<string, unknown>; scenarios?: Array<string | Record<string, unknown>>; preset?: string } = {}): Promise<E2eEnv> {
  const sim = await startSimulator({ preset: options.preset ?? 'demo', port: 0, authFailureDelayMs: 0, ...(options.scenarios ? { scenarios: options.scenarios } : {}) });
  const dir = mkdtempSync(join(tmpdir(), 'pve-e2e-'));
  const stateDir = join(dir, 'state');
  const writeConfig = (name: string, overrides: ConfigOverrides = {}): string => {
    const file = join(dir, name);
    const config = {
      clusters: {
        sim: {
          url: sim.url,
          auth: { tokenId: sim.token.id, secret: sim.token.secret },
          tls: { fingerprint: overrides.fingerprint ?? sim.fingerprint },
          policy: 'e2e',
        },
      },
      cacheDir: join(dir, 'cache'),
      stateDir,
      policies: { e2e: E2E_POLICY },
      sandbox: overrides.sandbox ?? options.sandbox ?? {},
    };
    writeFileSync(file, JSON.stringify(config, null, 2), { mode: 0o600 });
    return file;
  };
  const configFile = writeConfig('config.json');
  const env = childEnv(dir);
  return {
    sim,
    dir,
    configFile,
    stateDir,
    env,
    writeConfig,
    async close() {
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The environment of the processes a test starts: this one's without `PVE_*` (a test names its
 * cluster in its config), with the state defaults pointing into the test's directory, never $HOME.
 */
export function childEnv(dir: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('PVE_')) env[k] = v;
  env.XDG_STATE_HOME = join(dir, 'xdg-state');
  return env;
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Run the built CLI to completion. */
export function runCli(args: string[], options: { env?: Record<string, string>; input?: string; timeoutMs?: number; cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: options.env ?? (process.env as Record<string, string>),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`pve-code-mcp ${args.join(' ')} did not finish within ${options.timeoutMs ?? 60_000} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}
