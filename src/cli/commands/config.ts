/**
 * `pve-code-mcp config check`: validate the configuration, run a script in the sandbox as the
 * server would (isolated-vm's native module, the worker's confinement), then for each cluster test
 * TLS, auth, the schema and the token's permissions, printing a fix for each failure.
 */
import { createClassClients, createClients } from '../../client/config.js';
import { loadClusterSchema } from '../../client/schema-source.js';
import { type AppConfig } from '../../app/config/app-config.js';
import { describeUnmatched } from '../../app/config/http-settings.js';
import { configJsonSchema } from '../../app/config/json-schema.js';
import { fixFor } from '../../app/cluster-status.js';
import { describeRules } from '../../policy/lint.js';
import { SandboxEngine } from '../../sandbox/engine.js';
import { describeConfinement, WorkerConfinementError } from '../../sandbox/worker-launch.js';
import { EXIT, parseCommandArgs, UsageError, type CliIo } from '../args.js';
import type { Command } from '../command.js';
import { appConfigFrom, CONFIG_OPTIONS, CONFIG_USAGE } from '../context.js';
import { lintCluster } from '../lint.js';

const usage = `Usage: pve-code-mcp config check [options]
       pve-code-mcp config schema

check   Validate the configuration, run a script in the sandbox, and test each cluster: TLS,
        authentication (the per-class tokens too), schema, permissions, and the policy lint:
        every allow/deny/privileged rule against the cluster's schema, every target rule and
        scope against its inventory. A rule that matches nothing fails the check. Then, for
        each deny and target rule, what it protects: a deny rule that pins a whole guest,
        node, pool or storage also acts as a target rule (shown), any other protects its paths.
schema  Print the JSON Schema of the config file (point "$schema" at a copy of it).
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
    if (args.positionals.length === 1 && args.positionals[0] === 'schema') {
      io.out(JSON.stringify(configJsonSchema(), null, 2));
      return EXIT.ok;
    }
    if (args.positionals[0] !== 'check' || args.positionals.length !== 1) throw new UsageError("the config subcommands are 'check' and 'schema'");
    // Degraded: a cluster whose secret cannot be read fails its own checks; the others are still tested.
    const config = await appConfigFrom(args, { degraded: true });
    io.out(`configuration ${config.source}: valid (${config.pve.clusters.length} cluster(s), default '${config.pve.defaultCluster}')`);
    io.out(`  state dir ${config.stateDir}; audit log ${config.audit.file}${config.audit.hmacKey ? ' (HMAC)' : ''}`);
    const { http } = config;
    if (http.oauth || http.principals.length > 0) {
      io.out(`  http: ${http.principals.length} principal rule(s); principals no rule matches get ${describeUnmatched(http.unmatched)}`);
      io.out(`  http: at most ${http.sessionsPerPrincipal} session(s) per principal, ${http.maxSessions} in all; a session with a request in flight is never closed to make room`);
    }
    let failures = await step(io, 'sandbox', () => checkSandbox(config.sandbox));
    let warnings = 0;
    for (const cluster of config.pve.clusters) {
      const policy = config.policyFor(cluster.name);
      const fourEyes = policy.approver.other ? `; approvals by another principal (four eyes${policy.approver.group !== undefined ? `, group '${policy.approver.group}'` : ''})` : '';
      io.out(`cluster ${cluster.name} (${cluster.url}), policy ${policy.name}${fourEyes}:`);
      if (cluster.unavailable) {
        for (const issue of cluster.unavailable.issues) {
          io.out(`  FAIL  secret: ${issue.key}: ${issue.message}`);
        }
        io.out('        fix: provide the secret; the cluster is not tested further (serve starts without it and retries)');
        failures += 1;
        continue;
      }
      const clients = createClients({ ...config.pve, clusters: [cluster] }, { logger: { warn: (m) => io.err(`warning: ${m}`) } });
      const client = clients.get(cluster.name);
      const byClass = createClassClients(cluster, { logger: { warn: (m) => io.err(`warning: ${m}`) } });
      if (!client) continue;
      try {
        let reachable = false;
        failures += await step(io, 'TLS + authentication', async () => {
          const v = await client.version();
          reachable = true;
          return `PVE ${v.version} as ${client.authId}`;
        });
        for (const [cls, classClient] of Object.entries(byClass)) {
          failures += await step(io, `${cls} token`, async () => {
            await classClient.version();
            return `authenticated as ${classClient.authId}`;
          });
        }
        let model: Awaited<ReturnType<typeof loadClusterSchema>>['model'] | undefined;
        failures += await step(io, 'schema', async () => {
          const s = await loadClusterSchema(client, {
            ...(cluster.schema ? { schema: cluster.schema } : {}),
            ...(config.pve.cacheDir ? { cacheDir: config.pve.cacheDir } : {}),
          });
          model = s.model;
          return `${s.model.operations.length} operations (${s.origin}${s.fallbackReason ? `: ${s.fallbackReason}` : ''})`;
        });
        if (reachable) {
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
        if (model) {
          const lint = await lintCluster(cluster, policy, model, client);
          const errors = lint.findings.filter((f) => f.severity === 'error');
          const warns = lint.findings.filter((f) => f.severity === 'warning');
          const scope = lint.inventoryError === undefined ? 'schema and inventory' : 'schema only';
          if (errors.length === 0)
            io.out(
              `  ok    policy lint (${scope}): ${policy.config.allow.length + policy.config.deny.length + policy.config.privileged.length} rule(s), ${policy.config.targets.length} target rule(s)${warns.length > 0 ? `, ${warns.length} warning(s)` : ''}`,
            );
          else io.out(`  FAIL  policy lint (${scope}): ${errors.length} rule(s) match nothing`);
          for (const f of errors) io.out(`        error: ${f.key}: ${f.message}`);
          for (const f of warns) io.out(`        warning: ${f.key}: ${f.message}`);
          if (lint.inventoryError !== undefined) io.out(`        warning: targets and scopes not checked against the inventory: ${lint.inventoryError}`);
          failures += errors.length > 0 ? 1 : 0;
          warnings += warns.length + (lint.inventoryError !== undefined ? 1 : 0);
        }
        // What each rule protects, so an operator sees whether a path rule covers its target from every path.
        for (const d of describeRules(policy.config)) io.out(`        ${d.key}: ${d.text}`);
      } finally {
        await Promise.all([client, ...Object.values(byClass)].map((c) => c.close()));
      }
    }
    io.out(failures === 0 ? `all checks passed${warnings > 0 ? ` (${warnings} warning(s))` : ''}` : `${failures} check(s) failed`);
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
    const fix = err instanceof SandboxCheckError ? err.fix : fixFor(err);
    if (fix) io.out(`        fix: ${fix}`);
    return 1;
  }
}
