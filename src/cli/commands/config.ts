/**
 * `pve-code-mcp config check`: validate the configuration, run a script in the sandbox as the
 * server would (isolated-vm's native module, the worker's confinement), then for each cluster test
 * TLS, auth, the schema and the token's permissions, printing a fix for each failure.
 */
import { createClients } from '../../client/config.js';
import {
  PveAuthError,
  PveConnectionError,
  PvePermissionError,
  PveTlsError,
  TlsPinMismatchError,
} from '../../client/errors.js';
import { loadClusterSchema } from '../../client/schema-source.js';
import type { AppConfig } from '../../app/config.js';
import { SandboxEngine } from '../../sandbox/engine.js';
import { describeConfinement, WorkerConfinementError } from '../../sandbox/worker-launch.js';
import { EXIT, parseCommandArgs, UsageError, type CliIo } from '../args.js';
import type { Command } from '../command.js';
import { appConfigFrom, CONFIG_OPTIONS, CONFIG_USAGE } from '../context.js';

const usage = `Usage: pve-code-mcp config check [options]

Validate the configuration, run a script in the sandbox, and test each cluster: TLS,
authentication, schema, permissions.
${CONFIG_USAGE}`;

export const configCommand: Command = {
  name: 'config',
  usage,
  async run(argv, io) {
    const args = parseCommandArgs(argv, CONFIG_OPTIONS);
    if (args.help) {
      io.out(usage);
      return EXIT.ok;
    }
    if (args.positionals[0] !== 'check' || args.positionals.length !== 1) throw new UsageError("the config subcommand is 'check'");
    const config = await appConfigFrom(args);
    io.out(`configuration ${config.source}: valid (${config.pve.clusters.length} cluster(s), default '${config.pve.defaultCluster}')`);
    io.out(`  state dir ${config.stateDir}; audit log ${config.audit.file}${config.audit.hmacKey ? ' (HMAC)' : ''}`);
    let failures = await step(io, 'sandbox', () => checkSandbox(config.sandbox));
    const clients = createClients(config.pve, { logger: { warn: (m) => io.err(`warning: ${m}`) } });
    try {
      for (const cluster of config.pve.clusters) {
        const client = clients.get(cluster.name);
        if (!client) continue;
        io.out(`cluster ${cluster.name} (${cluster.url}), policy ${config.policyFor(cluster.name).name}:`);
        failures += await step(io, 'TLS + authentication', async () => {
          const v = await client.version();
          return `PVE ${v.version} as ${client.authId}`;
        });
        failures += await step(io, 'schema', async () => {
          const s = await loadClusterSchema(client, {
            ...(cluster.schema ? { schema: cluster.schema } : {}),
            ...(config.pve.cacheDir ? { cacheDir: config.pve.cacheDir } : {}),
          });
          return `${s.model.operations.length} operations (${s.origin}${s.fallbackReason ? `: ${s.fallbackReason}` : ''})`;
        });
        failures += await step(io, 'permissions', async () => {
          const perms = (await client.request('GET', '/access/permissions')) as Record<string, Record<string, number>>;
          const paths = Object.keys(perms);
          if (paths.length === 0) {
            throw new Error('the token has no privileges: with privilege separation, grant the token its own ACL (Datacenter → Permissions → Add → API Token Permission), e.g. PVEAuditor on /');
          }
          const privs = new Set(paths.flatMap((p) => Object.keys(perms[p] ?? {})));
          return `${privs.size} privileges on ${paths.length} path(s)`;
        });
      }
    } finally {
      await Promise.all([...clients.values()].map((c) => c.close()));
    }
    io.out(failures === 0 ? 'all checks passed' : `${failures} check(s) failed`);
    return failures === 0 ? EXIT.ok : EXIT.config;
  },
};

class SandboxCheckError extends Error {
  constructor(
    message: string,
    readonly fix: string,
  ) {
    super(message);
    this.name = 'SandboxCheckError';
  }
}

/** One trivial script through a fresh engine with the configured settings: what every run needs. */
async function checkSandbox(settings: AppConfig['sandbox']): Promise<string> {
  const started = performance.now();
  let engine: SandboxEngine;
  try {
    engine = new SandboxEngine({ workers: 1, confineWorker: settings.confineWorker, ...(settings.limits ? { limits: settings.limits } : {}) });
  } catch (err) {
    if (err instanceof WorkerConfinementError) throw new SandboxCheckError(err.message, 'upgrade Node.js to 20.19 or newer (22 or 24 recommended)');
    throw err;
  }
  try {
    const outcome = await engine.run({ code: 'return 6 * 7;', typecheck: false }, async () => ({ ok: true, data: null }));
    if (!outcome.ok || outcome.result !== 42) {
      const crashed = outcome.error === undefined || outcome.error.kind === 'crashed';
      throw new SandboxCheckError(
        `a trivial script did not run: ${outcome.error?.message ?? `it returned ${JSON.stringify(outcome.result)}`}`,
        crashed
          ? 'rebuild the native module (npm rebuild isolated-vm; it needs python3, make and a C++ compiler) and run this check again'
          : `sandbox.limits in the configuration refuse even this script (${outcome.error?.kind}): raise them`,
      );
    }
    const { workerRuntime, workerConfined } = engine.stats;
    return `a script ran in ${Math.round(performance.now() - started)} ms (${workerRuntime ?? 'isolated-vm'}), worker ${describeConfinement(workerConfined)}`;
  } finally {
    await engine.close();
  }
}

async function step(io: CliIo, name: string, fn: () => Promise<string>): Promise<number> {
  try {
    io.out(`  ok    ${name}: ${await fn()}`);
    return 0;
  } catch (err) {
    io.out(`  FAIL  ${name}: ${err instanceof Error ? err.message : String(err)}`);
    const fix = fixFor(err);
    if (fix) io.out(`        fix: ${fix}`);
    return 1;
  }
}

function fixFor(err: unknown): string | undefined {
  if (err instanceof SandboxCheckError) return err.fix;
  if (err instanceof TlsPinMismatchError) return 'the certificate changed or the pin is wrong: compare with the node (System → Certificates) and update tls.fingerprint';
  if (err instanceof PveTlsError) return 'pin the certificate: set tls.fingerprint to the SHA-256 fingerprint shown under System → Certificates, or give tls.caFile';
  if (err instanceof PveConnectionError) return 'check the URL (https://<host>:8006), that the node is up and reachable from here';
  if (err instanceof PveAuthError) return 'check the token ID (user@realm!name) and secret, or username/password/realm; is the token expired or the user disabled?';
  if (err instanceof PvePermissionError) return 'grant the user/token a role on the path named above (Datacenter → Permissions)';
  return undefined;
}
