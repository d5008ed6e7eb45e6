/**
 * One simulator, a product config with one cluster per named policy (all pointing at it), and
 * the built server spawned over stdio with a real MCP client: what the policy and approval suites
 * drive. State (audit, plans) lives in a temporary directory. The parts that do not depend on the
 * transport (simulator, config, audit) are `startPolicyState`, which the HTTP variant
 * (env-http.ts) shares.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { PveClient } from '../../../src/client/index.js';
import { startSimulator, type RunningSimulator, type StartSimulatorOptions } from '../../../src/simulator/index.js';
import { childEnv } from '../../e2e/helpers/harness.js';
import { callTool, connectStdio, runAnswer, type Connected, type RunAnswer } from '../../e2e/helpers/mcp.js';

/** What every policy suite has, whatever carries its MCP sessions. */
export interface PolicyState {
  sim: RunningSimulator;
  dir: string;
  stateDir: string;
  /** Environment for CLI runs against the same config and state. */
  env: Record<string, string>;
  /** The simulator's root token, for arranging state behind the product's back. */
  admin: PveClient;
  /** A cluster entry for the simulator under the named policy. */
  cluster(policy: string, extras?: Record<string, unknown>): Record<string, unknown>;
  /** Write the product config (`clusters`, `policies`, …; cache and state directories added) and return its path. */
  writeConfig(config: Record<string, unknown>): string;
  /** Every audit entry's data (with its `type`) written so far, from all files of the state directory's audit. */
  auditEntries(): Array<Record<string, unknown>>;
  /** The audit as raw text, for looking for what must not be there. */
  auditText(): string;
  close(): Promise<void>;
}

export interface PolicyStateOptions {
  simulator?: StartSimulatorOptions;
  /** Runs before the server starts (users, tokens). */
  arrange?(sim: RunningSimulator): void;
}

export interface PolicyEnv extends PolicyState {
  mcp: Connected;
  configFile: string;
  run(code: string, options?: RunOptions): Promise<RunAnswer>;
}

export interface RunOptions {
  cluster?: string;
  dryRun?: boolean;
  typecheck?: boolean;
}

export interface PolicyEnvOptions extends PolicyStateOptions {
  policies: Record<string, Record<string, unknown>>;
  /** Per-cluster extras (e.g. `tokens`), by policy name. */
  clusterExtras?: Record<string, Record<string, unknown>>;
  defaultCluster?: string;
  elicit?: (request: ElicitRequest) => ElicitResult | Promise<ElicitResult>;
  name?: string;
}

export async function startPolicyState(options: PolicyStateOptions): Promise<PolicyState> {
  const sim = await startSimulator({ preset: 'demo', port: 0, authFailureDelayMs: 0, taskDurationMs: 20, ...options.simulator });
  options.arrange?.(sim);
  const admin = new PveClient({ name: 'admin', url: sim.url, auth: { kind: 'token', tokenId: sim.token.id, secret: sim.token.secret }, tls: { fingerprint: sim.fingerprint } });
  const dir = mkdtempSync(join(tmpdir(), 'pve-policy-'));
  const stateDir = join(dir, 'state');
  const auditFiles = (): string[] => {
    try {
      return readdirSync(stateDir, { recursive: true })
        .map(String)
        .filter((f) => /audit[^/]*\.jsonl(?:\.\d+)?$/.test(f))
        .map((f) => join(stateDir, f));
    } catch {
      return [];
    }
  };
  const read = (f: string): string => {
    try {
      return readFileSync(f, 'utf8');
    } catch {
      return ''; // rotated away meanwhile
    }
  };
  const auditText = (): string => auditFiles().map(read).join('\n');
  return {
    sim,
    dir,
    stateDir,
    env: childEnv(dir),
    admin,
    cluster: (policy, extras) => ({ url: sim.url, auth: { tokenId: sim.token.id, secret: sim.token.secret }, tls: { fingerprint: sim.fingerprint }, policy, ...extras }),
    writeConfig(config) {
      const file = join(dir, 'config.json');
      writeFileSync(file, JSON.stringify({ ...config, cacheDir: join(dir, 'cache'), stateDir }), { mode: 0o600 });
      return file;
    },
    auditText,
    auditEntries: () =>
      auditText()
        .split('\n')
        .filter((l) => l.trim().startsWith('{'))
        .map((l) => JSON.parse(l) as { type?: string; data?: Record<string, unknown> })
        .map((e) => ({ type: e.type, ...e.data })),
    async close() {
      await admin.close();
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** run_script through an MCP session, the type check off unless asked (the corpus is about policy, not types). */
export async function runScript(mcp: Connected, code: string, options: RunOptions = {}): Promise<RunAnswer> {
  const { result } = await callTool(mcp, 'run_script', { code, typecheck: false, ...options }, { timeout: 60_000 });
  return runAnswer(result);
}

export async function startPolicyEnv(options: PolicyEnvOptions): Promise<PolicyEnv> {
  const state = await startPolicyState(options);
  const clusters = Object.fromEntries(Object.keys(options.policies).map((name) => [name, state.cluster(name, options.clusterExtras?.[name])]));
  const configFile = state.writeConfig({ clusters, defaultCluster: options.defaultCluster ?? Object.keys(options.policies)[0], policies: options.policies });
  const e2e = { sim: state.sim, dir: state.dir, configFile, stateDir: state.stateDir, env: state.env, writeConfig: () => configFile, close: async () => undefined };
  const mcp = await connectStdio(e2e, { name: options.name ?? 'policy', ...(options.elicit ? { elicit: options.elicit as never } : {}) }, configFile);
  return {
    ...state,
    mcp,
    configFile,
    run: (code, opts) => runScript(mcp, code, opts),
    async close() {
      await mcp.close();
      await state.close();
    },
  };
}
