/**
 * One simulator, a product config with one cluster per named policy (all pointing at it), and
 * the built server spawned over stdio with a real MCP client: what the policy and approval suites
 * drive. State (audit, plans) lives in a temporary directory.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { PveClient } from '../../../src/client/index.js';
import { startSimulator, type RunningSimulator, type StartSimulatorOptions } from '../../../src/simulator/index.js';
import { childEnv } from '../../e2e/helpers/harness.js';
import { callTool, connectStdio, runAnswer, type Connected, type RunAnswer } from '../../e2e/helpers/mcp.js';

export interface PolicyEnv {
  sim: RunningSimulator;
  mcp: Connected;
  dir: string;
  stateDir: string;
  configFile: string;
  /** Environment for CLI runs against the same config and state. */
  env: Record<string, string>;
  /** The simulator's root token, for arranging state behind the product's back. */
  admin: PveClient;
  run(code: string, options?: { cluster?: string; dryRun?: boolean; typecheck?: boolean }): Promise<RunAnswer>;
  /** Every audit entry's data (with its `type`) written so far, from all files of the state directory's audit. */
  auditEntries(): Array<Record<string, unknown>>;
  /** The audit as raw text, for looking for what must not be there. */
  auditText(): string;
  close(): Promise<void>;
}

export interface PolicyEnvOptions {
  policies: Record<string, Record<string, unknown>>;
  /** Per-cluster extras (e.g. `tokens`), by policy name. */
  clusterExtras?: Record<string, Record<string, unknown>>;
  defaultCluster?: string;
  simulator?: StartSimulatorOptions;
  elicit?: (request: ElicitRequest) => ElicitResult | Promise<ElicitResult>;
  /** Runs before the server starts (users, tokens). */
  arrange?(sim: RunningSimulator): void;
  name?: string;
}

export async function startPolicyEnv(options: PolicyEnvOptions): Promise<PolicyEnv> {
  const sim = await startSimulator({ preset: 'demo', port: 0, authFailureDelayMs: 0, taskDurationMs: 20, ...options.simulator });
  options.arrange?.(sim);
  const admin = new PveClient({ name: 'admin', url: sim.url, auth: { kind: 'token', tokenId: sim.token.id, secret: sim.token.secret }, tls: { fingerprint: sim.fingerprint } });
  const dir = mkdtempSync(join(tmpdir(), 'pve-policy-'));
  const stateDir = join(dir, 'state');
  const clusters = Object.fromEntries(
    Object.keys(options.policies).map((name) => [
      name,
      { url: sim.url, auth: { tokenId: sim.token.id, secret: sim.token.secret }, tls: { fingerprint: sim.fingerprint }, policy: name, ...options.clusterExtras?.[name] },
    ]),
  );
  const configFile = join(dir, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      clusters,
      defaultCluster: options.defaultCluster ?? Object.keys(options.policies)[0],
      cacheDir: join(dir, 'cache'),
      stateDir,
      policies: options.policies,
    }),
    { mode: 0o600 },
  );
  const env = childEnv(dir);
  const e2e = { sim, dir, configFile, stateDir, env, writeConfig: () => configFile, close: async () => undefined };
  const mcp = await connectStdio(e2e, { name: options.name ?? 'policy', ...(options.elicit ? { elicit: options.elicit as never } : {}) }, configFile);
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
    mcp,
    dir,
    stateDir,
    configFile,
    env,
    admin,
    async run(code, opts = {}) {
      const { result } = await callTool(mcp, 'run_script', { code, typecheck: false, ...opts }, { timeout: 60_000 });
      return runAnswer(result);
    },
    auditText,
    auditEntries: () =>
      auditText()
        .split('\n')
        .filter((l) => l.trim().startsWith('{'))
        .map((l) => JSON.parse(l) as { type?: string; data?: Record<string, unknown> })
        .map((e) => ({ type: e.type, ...e.data })),
    async close() {
      await mcp.close();
      await admin.close();
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
