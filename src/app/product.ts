/**
 * The composition root: one object that holds the connected clusters (client, schema, search
 * index, SDK declarations, policy), the sandbox engine, the approval store and the audit log, and
 * answers the three tools with plain data. The MCP server and the CLI are thin shells around it (the
 * text and the answer shapes live with the tools in src/server/tools), so a script run from a
 * terminal goes through exactly the same sandbox, policy and audit as one from an agent.
 */
import { mkdirSync } from 'node:fs';
import { AuditLog } from '../audit/log.js';
import { readRunChanges } from '../audit/run-changes.js';
import { canonicalJson } from '../safety/canonical.js';
import { recoverOrphanIntents } from './intent-recovery.js';
import type { TaskProgressEvent } from '../bridge/handler.js';
import { PveClient } from '../client/client.js';
import { createClassClients, createClients, type ClusterConfig } from '../client/config.js';
import { loadClusterSchema, type LoadedSchema } from '../client/schema-source.js';
import { describeOperations, type DescribeResult } from '../describe/index.js';
import type { Unserved } from '../describe/unserved.js';
import { operationVerdict, VERDICT_TEXT } from '../describe/verdict.js';
import { ApiSearch, type SearchHit, type SearchOptions } from '../search/index.js';
import { SandboxEngine } from '../sandbox/engine.js';
import { describeConfinement } from '../sandbox/worker-launch.js';
import type { RunOutcome } from '../sandbox/outcome.js';
import { ApprovalStore, type Approver, type ApproverRequirement } from '../safety/approval.js';
import type { Plan } from '../safety/plan.js';
import { HaltSwitch, haltRefusal } from '../safety/halt.js';
import { Policy } from '../policy/policy.js';
import { RunClusters, type ClusterHandle } from '../policy/clusters.js';
import { PermissionCache } from '../policy/privileges.js';
import type { SessionTaint } from '../policy/taint.js';
import { SecretScrubber } from '../safety/redact.js';
import { StandingStore } from '../safety/standing-store.js';
import { readRunbook, RunbookError, runbookNames, runbookSummary } from '../runbook/catalog.js';
import { describeArgs, type ArgSpecs } from '../script/args.js';
import { userInfo } from 'node:os';
import { Secret } from '../client/secret.js';
import type { CallDeadline } from '../run/deadline.js';
import { RunPipeline, type RunResult } from '../run/pipeline.js';
import type { ApiModel, RiskClass } from '../schema/model.js';
import { TypeCheckService, type RemoteScriptChecker } from '../script/typecheck-service.js';
import { sdkDeclarationFiles, type DeclarationFile } from '../typegen/index.js';
import type { AppConfig } from './config.js';
import { ServerStoppingError, UnknownClusterError } from './errors.js';
import { ClusterUnavailableError, DEFAULT_CLUSTER_RETRY, describeClusterFailure, retryDelay, type ClusterFailure, type RetrySchedule } from './cluster-status.js';

export interface ClusterRuntime {
  readonly name: string;
  /** The cluster's main credentials: schema loading, and every class without a token of its own. */
  readonly client: PveClient;
  /** The client a call of this class goes out with (`tokens` of the cluster config). */
  clientFor(risk?: RiskClass): PveClient;
  /** Every client of the cluster, each once (the main one and the per-class ones). */
  readonly clients: readonly PveClient[];
  readonly schema: LoadedSchema;
  readonly model: ApiModel;
  readonly policy: Policy;
  readonly search: ApiSearch;
  declarations(): DeclarationFile[];
  /** What runs use: this cluster's SDK, checked in the shared type-check process (registered on first call). */
  typeChecker(): RemoteScriptChecker;
  /**
   * The cluster's own schema, found after a cache-first start: `schema` and `model` become it; with
   * a new model the search index, the declarations and the checker are built again on first use.
   * True when the model changed.
   */
  replaceSchema(next: LoadedSchema): boolean;
}

export interface RunScriptInput {
  /** The script; or `runbook`, the name of a saved one (exactly one of them). */
  code?: string;
  runbook?: string;
  dryRun?: boolean;
  cluster?: string;
  typecheck?: boolean;
  /** The script's argument values (`RunInput.args`), with how to read them. */
  args?: Record<string, unknown>;
  argsFromText?: boolean;
  argPatterns?: boolean;
}

export interface RunScriptHooks {
  approver?: Approver;
  /** Who runs it (a remote HTTP user): named in every audit entry of the run, owner of its plans and approvals. */
  principal?: RunPrincipal;
  onLog?(line: string): void;
  onProgress?(event: TaskProgressEvent): void;
  signal?: AbortSignal;
  /** The whole-call deadline (a tool call's; the CLI's `run` has none): see src/run/deadline.ts. */
  deadline?: CallDeadline;
  /** The MCP session the run belongs to (one per session; the CLI's `run` has none). */
  session?: RunSession;
}

/** What a session keeps between its runs. */
export interface RunSession {
  /** Text guests or other people control that the session's answers carried (policy `taint`). */
  readonly taint: SessionTaint;
}

export interface RunPrincipal {
  id: string;
  /** How the principal appears in the audit (`principal` of every entry of its runs). */
  audit: Record<string, unknown>;
  /** The policy this principal runs under on a cluster (checked at run time); default the cluster's. */
  policyFor?(cluster: string, configured: Policy): Policy;
  /** The server answers `POST /approvals` (OAuth mode): hints may offer it. */
  approvesOverHttp?: boolean;
  /** The web console's page of a plan, when the server serves a console: hints offer it. */
  consolePage?: (planId: string) => string;
}

export interface ProductOptions {
  config: AppConfig;
  log?: (line: string) => void;
  /**
   * `serve`: a cluster that cannot be opened (unreachable without a cached schema, refused
   * credentials, an unreadable secret) does not stop the others; it answers every call with
   * `ClusterUnavailableError` and is retried in the background.
   */
  degraded?: { retry?: RetrySchedule; startWaitMs?: number; onClusterReady?: (runtime: ClusterRuntime) => void };
  /** By cluster: operations its schema lists that the server behind it does not answer (the demo's simulator). */
  unserved?: Readonly<Record<string, Unserved>>;
}

/** A configured cluster that is not serving yet. */
export interface UnavailableCluster {
  name: string;
  failure: ClusterFailure;
  attempts: number;
  retryAt: number;
}

/** After a cache-first open: how long the comparison with the cluster's schema waits (see checkSchema). */
const SCHEMA_CHECK_DELAY_MS = 2_000;

/** How long closing waits for a network witness to publish the chain's last end. */
const WITNESS_FLUSH_MS = 2_000;

export class Product {
  private readonly engine: SandboxEngine;
  private readonly approvals: ApprovalStore;
  /** Runbook arguments as listed, by content hash. */
  private readonly runbookArgs = new Map<string, string>();
  /** The host's kill switch (src/safety/halt.ts), asked before every change. */
  readonly halt: HaltSwitch;
  private readonly permissions = new PermissionCache();
  private readonly down = new Map<string, UnavailableCluster & { timer?: NodeJS.Timeout }>();
  private closed = false;
  private recovery: Promise<void> = Promise.resolve();
  private readonly recoveryStop = new AbortController();
  /** Runs in flight: how `drain` cancels them and learns that each has its result. */
  private readonly running = new Map<AbortController, Promise<unknown>>();
  private stopping = false;
  /** Told when what a session shows may have changed (a cluster became available). */
  private readonly viewListeners = new Set<() => void>();
  /** The background comparisons of cached schemas with the clusters' (cache-first start); close() stops them. */
  private readonly schemaChecks = new Set<Promise<void>>();
  private readonly schemaCheckStop = new AbortController();

  private constructor(
    readonly config: AppConfig,
    private readonly clusters: Map<string, ClusterRuntime>,
    private readonly checkers: TypeCheckService,
    readonly audit: AuditLog,
    readonly scrubber: SecretScrubber,
    private readonly unserved: Readonly<Record<string, Unserved>>,
  ) {
    this.approvals = new ApprovalStore(config.stateDir);
    this.halt = HaltSwitch.open(config.halt.file);
    const { workers, warmWorkers, idleMs, perPrincipal } = config.sandbox;
    this.engine = new SandboxEngine({
      ...(workers !== undefined ? { workers } : {}),
      warmWorkers,
      idleMs: idleMs === 0 ? Number.POSITIVE_INFINITY : idleMs,
      ...(perPrincipal !== undefined ? { perPrincipal } : {}),
      confineWorker: config.sandbox.confineWorker,
      ...(config.sandbox.limits ? { limits: config.sandbox.limits } : {}),
    });
  }

  /** Connect every configured cluster and load its schema (from the cluster, an override or the cache). */
  static async open(options: ProductOptions): Promise<Product> {
    const { config } = options;
    const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
    const logger = { warn: (m: string) => log(`warning: ${m}`) };
    const scrubber = new SecretScrubber(config.secrets);
    const clusters = new Map<string, ClusterRuntime>();
    // One process for all clusters, holding one warm checker per distinct schema.
    const { budgetMs, recycleAfterChecks, maxRssMb, maxQueue, idleMs } = config.sandbox.typecheck;
    const checkers = new TypeCheckService({ budgetMs, recycleAfterChecks, maxRssMb, maxQueue, idleMs: idleMs === 0 ? Number.POSITIVE_INFINITY : idleMs, log });
    const degraded = options.degraded;
    // `serve` starts from a cluster's cached schema and compares it with the cluster's after (checkSchema).
    const open = (cluster: ClusterConfig) => openCluster(cluster, config, checkers, scrubber, logger, degraded !== undefined);
    // Degraded: every cluster at once, each given startWaitMs before the server starts without it.
    const pending = new Map<string, Promise<ClusterRuntime>>();
    const failed = new Map<string, unknown>();
    try {
      if (!degraded) {
        for (const cluster of config.pve.clusters) clusters.set(cluster.name, await open(cluster));
      } else {
        const startWaitMs = degraded.startWaitMs ?? 15_000;
        await Promise.all(
          config.pve.clusters.map(async (cluster) => {
            const attempt = open(cluster);
            const first = await Promise.race([
              attempt.then((runtime) => ({ runtime }), (error: unknown) => ({ error })),
              new Promise<'waiting'>((resolve) => setTimeout(() => resolve('waiting'), startWaitMs).unref()),
            ]);
            if (first === 'waiting') pending.set(cluster.name, attempt);
            else if ('runtime' in first) clusters.set(cluster.name, first.runtime);
            else failed.set(cluster.name, first.error);
          }),
        );
      }
    } catch (err) {
      await Promise.all([...clusters.values()].map(closeRuntime));
      await checkers.close();
      throw err;
    }
    mkdirSync(config.stateDir, { recursive: true, mode: 0o700 });
    const { file, hmacKey, maxBytes, retention, durability, witness } = config.audit;
    const audit = AuditLog.open({ file, ...(hmacKey ? { hmacKey } : {}), maxBytes, retention, durability, ...(witness ? { witness } : {}), scrubber });
    const product = new Product(config, clusters, checkers, audit, scrubber, options.unserved ?? {});
    if (degraded) {
      const supervise = { open, log, retry: degraded.retry ?? DEFAULT_CLUSTER_RETRY, ...(degraded.onClusterReady ? { onReady: degraded.onClusterReady } : {}) };
      for (const cluster of config.pve.clusters) {
        const attempt = pending.get(cluster.name);
        if (attempt) {
          product.markDown(cluster, { cause: `no answer within ${Math.round((degraded.startWaitMs ?? 15_000) / 1000)} s (still trying)`, fix: 'check the URL (https://<host>:8006), that the node is up and reachable from here' }, supervise);
          product.adopt(cluster, attempt, supervise);
        } else if (failed.has(cluster.name)) {
          product.markDown(cluster, describeClusterFailure(failed.get(cluster.name)), supervise);
          product.scheduleRetry(cluster, supervise);
        }
      }
    }
    for (const runtime of clusters.values()) product.checkSchema(runtime, log);
    product.recoverIntents(log);
    return product;
  }

  /**
   * After a cache-first open: the cluster's own schema, fetched in the background, replaces the
   * cached one that serves meanwhile when they differ (sessions are told: their resources changed).
   * One log line either way.
   */
  private checkSchema(runtime: ClusterRuntime, log: (line: string) => void): void {
    const cached = runtime.schema;
    const check = cached.checkCluster;
    if (!check) return;
    // Not at once: the first seconds are the session's handshake and listing, and fetching 4 MB
    // over TLS and hashing it would compete with them for the same thread.
    const stop = this.schemaCheckStop.signal;
    const later = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, SCHEMA_CHECK_DELAY_MS);
      stop.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
    const done = later.then(() => check(stop)).then(
      (current) => {
        if (this.closed) return;
        if (!runtime.replaceSchema(current)) return;
        log(`pve-code-mcp: cluster '${runtime.name}' serves another schema than the cached one (PVE ${cached.version?.version ?? '?'} → ${current.version?.version ?? '?'}, ${current.model.operations.length} operations): using the cluster's from now on`);
        for (const listener of this.viewListeners) listener();
      },
      (err: unknown) => {
        if (this.closed) return;
        log(`pve-code-mcp: warning: cluster '${runtime.name}': cannot compare the cached schema (PVE ${cached.version?.version ?? '?'}) with the cluster's: ${err instanceof Error ? err.message : String(err)}; the cached one stays in use`);
      },
    );
    this.schemaChecks.add(done);
    void done.finally(() => this.schemaChecks.delete(done));
  }

  /**
   * In the background: what became of the changes servers that died had sent (intent-recovery.ts).
   * Started once per start; close() stops it.
   */
  private recoverIntents(log: (line: string) => void): void {
    this.recovery = recoverOrphanIntents({
      audit: this.audit,
      client: (name) => this.clusters.get(name)?.client,
      log,
      signal: this.recoveryStop.signal,
    }).then(
      () => undefined,
      (err: unknown) => log(`pve-code-mcp: looking up the outcome of changes a stopped server had sent failed: ${err instanceof Error ? err.message : String(err)}; they stay open in the audit until the next start`),
    );
  }

  /** Configured clusters that are not serving (yet), with why and when they are tried again. */
  unavailableClusters(): UnavailableCluster[] {
    return [...this.down.values()].map(({ name, failure, attempts, retryAt }) => ({ name, failure, attempts, retryAt }));
  }

  private markDown(cluster: ClusterConfig, failure: ClusterFailure, s: Supervision): void {
    const state = this.down.get(cluster.name);
    const attempts = (state?.attempts ?? 0) + 1;
    this.down.set(cluster.name, { name: cluster.name, failure, attempts, retryAt: state?.retryAt ?? Date.now() });
    // The full cause and fix once; a retry that fails the same way says so in one line.
    if (state?.failure.cause === failure.cause) s.log(`pve-code-mcp: cluster '${cluster.name}' still unavailable (attempt ${attempts}, same cause)`);
    else s.log(`pve-code-mcp: cluster '${cluster.name}' is unavailable (attempt ${attempts}): ${failure.cause}\n  fix: ${failure.fix}`);
  }

  private scheduleRetry(cluster: ClusterConfig, s: Supervision): void {
    const state = this.down.get(cluster.name);
    if (!state || this.closed) return;
    const delay = retryDelay(s.retry, state.attempts);
    state.retryAt = Date.now() + delay;
    if (state.timer === undefined) s.log(`pve-code-mcp: retrying cluster '${cluster.name}' in the background (first in ${Math.round(delay / 1000)} s, then less often); the other clusters serve meanwhile`);
    state.timer = setTimeout(() => this.adopt(cluster, s.open(cluster), s), delay);
    state.timer.unref();
  }

  /** An attempt to open a down cluster: serving when it succeeds, another retry when it fails. */
  private adopt(cluster: ClusterConfig, attempt: Promise<ClusterRuntime>, s: Supervision): void {
    attempt.then(
      (runtime) => {
        if (this.closed) return void closeRuntime(runtime);
        const attempts = this.down.get(cluster.name)?.attempts ?? 1;
        this.down.delete(cluster.name);
        this.clusters.set(cluster.name, runtime);
        s.log(`pve-code-mcp: cluster '${cluster.name}' is available (after ${attempts} attempt${attempts === 1 ? '' : 's'}; schema from ${runtime.schema.origin})`);
        s.onReady?.(runtime);
        for (const listener of this.viewListeners) listener();
        this.checkSchema(runtime, s.log);
      },
      (err: unknown) => {
        if (this.closed) return;
        this.markDown(cluster, describeClusterFailure(err), s);
        this.scheduleRetry(cluster, s);
      },
    );
  }

  get defaultCluster(): string {
    return this.config.pve.defaultCluster;
  }

  /** The clusters serving now. */
  get clusterNames(): string[] {
    return [...this.clusters.keys()];
  }

  /** Every configured cluster, serving or not: what hints and the policy views count. */
  get configuredClusters(): string[] {
    return this.config.pve.clusters.map((c) => c.name);
  }

  /**
   * The policy a principal's calls on a cluster are decided by (the cluster's own without one).
   * Known for a configured cluster that is not serving: its policy comes from the configuration.
   */
  policyFor(cluster: string, principal?: RunPrincipal): Policy {
    const configured = this.clusters.get(cluster)?.policy ?? this.configuredPolicy(cluster);
    return principal?.policyFor ? principal.policyFor(cluster, configured) : configured;
  }

  private configuredPolicy(cluster: string): Policy {
    if (!this.configuredClusters.includes(cluster)) throw new UnknownClusterError(cluster, this.configuredClusters);
    return this.config.policyFor(cluster);
  }

  /**
   * Calls `listener` whenever what a session shows may have changed (a cluster that was down
   * became available: its SDK resources appear). Returns the unsubscribe.
   */
  onViewChange(listener: () => void): () => void {
    this.viewListeners.add(listener);
    return () => this.viewListeners.delete(listener);
  }

  cluster(name?: string): ClusterRuntime {
    const key = name ?? this.defaultCluster;
    const found = this.clusters.get(key);
    if (found) return found;
    const down = this.down.get(key);
    if (down) throw new ClusterUnavailableError(key, down.failure, down.retryAt, this.clusterNames);
    throw new UnknownClusterError(key, [...this.clusterNames, ...this.down.keys()]);
  }

  /**
   * Start the kept sandbox workers and the type-check process (every cluster's SDK built in it)
   * now, so the first run does not pay for them: for benchmarks and the demo. `serve` starts only
   * the kept workers (`warmSandbox`), after it answers: a desktop client starts every server at
   * launch, and most sessions never run a script.
   */
  async warm(): Promise<void> {
    for (const runtime of this.clusters.values()) runtime.typeChecker();
    await Promise.all([this.engine.warm(), this.checkers.warm()]);
  }

  /** Starts the kept sandbox workers (`sandbox.warmWorkers`); rejects when a worker cannot start. */
  warmSandbox(): Promise<void> {
    return this.engine.warm();
  }

  /** One line for the server's log: how scripts will run (workers, isolated-vm, confinement). */
  sandboxSummary(): string {
    const { workers, warmWorkers, workerRuntime, workerConfined } = this.engine.stats;
    return `sandbox: up to ${workers} worker${workers === 1 ? '' : 's'} (${warmWorkers} kept warm), ${workerRuntime ?? 'isolated-vm (not started)'}, ${describeConfinement(workerConfined)}`;
  }

  /**
   * Hits carry the verdict of the policy the principal's calls on the cluster are decided by (the
   * cluster's own without one) at default parameters and the parameters that
   * raise them; an operation the server behind the cluster does not answer says so in its verdict.
   */
  search(query: string, options: SearchOptions & { cluster?: string; principal?: RunPrincipal } = {}): SearchHit[] {
    const { cluster, principal, ...rest } = options;
    const runtime = this.cluster(cluster);
    const unserved = this.unserved[runtime.name];
    const policy = this.policyFor(runtime.name, principal);
    return runtime.search.search(query, rest).map((hit): SearchHit => {
      const op = runtime.model.get(hit.method, hit.path);
      if (!op) return hit;
      const v = operationVerdict(op, { cluster: runtime.name, policy });
      const verdict = VERDICT_TEXT[v.verdict] + (unserved?.operations.has(op.key) ? `; ${unserved.mark}` : '');
      return { ...hit, verdict, ...(v.raisedBy.length > 0 ? { raisedBy: v.raisedBy.map((r) => r.param) } : {}) };
    });
  }

  describe(operations: string[], options: { params?: string[]; cluster?: string; principal?: RunPrincipal } = {}): DescribeResult {
    const runtime = this.cluster(options.cluster);
    const unserved = this.unserved[runtime.name];
    return describeOperations(runtime.model, operations, {
      ...(options.params ? { params: options.params } : {}),
      policy: { cluster: runtime.name, policy: this.policyFor(runtime.name, options.principal) },
      ...(unserved ? { unserved } : {}),
    });
  }

  /** The run as the safety layer ended it, scrubbed of known secrets. */
  async runScript(input: RunScriptInput, hooks: RunScriptHooks = {}): Promise<RunResult<RunOutcome>> {
    if (this.stopping) throw new ServerStoppingError();
    const stop = new AbortController();
    const run = this.runPipeline(input, { ...hooks, signal: hooks.signal ? AbortSignal.any([hooks.signal, stop.signal]) : stop.signal });
    this.running.set(stop, run.catch(() => undefined));
    try {
      const result = await run;
      const error = result.outcome?.error;
      // The agent learns why its run ended: not its own cancel, and safe to retry only once it checked what was made.
      if (stop.signal.aborted && error?.kind === 'cancelled') error.message = `${error.message}: the server is stopping (retry against the restarted server once you checked what this run changed)`;
      return result;
    } finally {
      this.running.delete(stop);
    }
  }

  /**
   * Graceful stop: refuse new runs (`ServerStoppingError`), cancel the runs in flight through the
   * same path an MCP cancellation takes, and resolve once every one of them has its result (each
   * caller still gets its answer). `close` comes after.
   */
  /** Whether a graceful stop has begun: what fails from here on (a worker still starting) is the stop's doing. */
  get isStopping(): boolean {
    return this.stopping;
  }

  async drain(): Promise<void> {
    this.stopping = true;
    const runs = [...this.running];
    for (const [stop] of runs) stop.abort(new ServerStoppingError());
    await Promise.all(runs.map(([, run]) => run));
  }

  /**
   * The runbooks agents may run (`pve://runbooks`): name, summary, declared arguments (read by a
   * compile in a sandbox worker, once per content) and the standing approvals that cover them.
   */
  async runbooks(): Promise<Array<{ name: string; summary: string; args: string; standing: string[] }>> {
    const dir = this.config.runbooks?.dir;
    if (!dir) return [];
    const standing = new StandingStore(this.approvals.dir).list().filter((a) => !a.revokedAt && Date.parse(a.expiresAt) > Date.now());
    const out = [];
    for (const name of runbookNames(dir)) {
      const book = readRunbook(dir, name);
      let args = this.runbookArgs.get(book.contentHash);
      if (args === undefined) {
        const compiled = await this.engine.compile({ code: book.code, typecheck: false });
        args = compiled.ok ? describeArgs(compiled.args ?? ({} as ArgSpecs)) : 'does not compile: run it to see why';
        this.runbookArgs.set(book.contentHash, args);
      }
      const covering = standing.filter((a) => a.runbook === name && a.contentHash === book.contentHash);
      out.push({ name, summary: runbookSummary(book.code), args, standing: covering.map((a) => standingLine(a)) });
    }
    return out;
  }

  private async runPipeline(input: RunScriptInput, hooks: RunScriptHooks): Promise<RunResult<RunOutcome>> {
    if ((input.code === undefined) === (input.runbook === undefined)) throw new RunbookError('give code (a script) or runbook (the name of a saved script): exactly one of them', 'code-or-runbook');
    // A runbook is read for this run: its hash is that of the code that runs.
    const book = input.runbook !== undefined ? readRunbook(this.config.runbooks?.dir, input.runbook) : undefined;
    const code = book ? book.code : (input.code as string);
    const runtime = this.cluster(input.cluster);
    const principal = hooks.principal;
    // What the session had received when this run started: its answers reached the model that wrote this script.
    const taintedBy = [...(hooks.session?.taint.sources ?? [])];
    // Each cluster the run reaches, resolved once: the principal's policy on it, after taint.
    const clusters = new RunClusters(runHandle(runtime, principal, taintedBy), (name) => runHandle(this.cluster(name), principal, taintedBy));
    const audit = this.audit;
    const checker = input.typecheck === false ? undefined : runtime.typeChecker();
    const pipeline = new RunPipeline({
      executor: this.engine,
      clusters,
      ...(principal ? { principal: principal.id } : {}),
      ...(checker ? { checker } : {}),
      approvals: new ApprovalStore(this.approvals.dir, principal?.id, (plan) => fourEyes(plan, (name) => clusters.get(name).policy), principal?.approvesOverHttp === true, principal?.consolePage),
      ...(hooks.approver ? { approver: hooks.approver } : {}),
      audit: principal
        ? { append: (type, data) => audit.append(type, { ...data, principal: principal.audit }), intend: (data) => audit.intend({ ...data, principal: principal.audit }) }
        : audit,
      secrets: this.scrubber,
      permissions: this.permissions,
      halted: () => haltRefusal(this.halt.state()),
      ...(book ? { standing: new StandingStore(this.approvals.dir), runner: principal?.id ?? userInfo().username, tainted: (clusters.home.policy.taintedBy?.length ?? 0) > 0 } : {}),
      // A principal undoes only its own runs (the host's user only runs made without a principal):
      // the reversal reads guests with the server's credentials and answers with their values.
      runChanges: (runId) => readRunChanges(this.config.audit.file, runId).filter((c) => canonicalJson(c.principal ?? null) === canonicalJson(principal?.audit ?? null)),
      ...(hooks.onProgress ? { onProgress: hooks.onProgress } : {}),
      ...(hooks.onLog ? { onLog: hooks.onLog } : {}),
    });
    const { args, argsFromText } = input;
    // A runbook's declarations are the operator's: their patterns are tested (src/script/args.ts).
    const argPatterns = input.argPatterns === true || book !== undefined;
    const given = { ...(args ? { args } : {}), ...(argsFromText ? { argsFromText } : {}), ...(argPatterns ? { argPatterns } : {}), ...(book ? { runbook: book.name } : {}) };
    const result = await pipeline.run({ code, ...given, ...(input.dryRun ? { dryRun: true } : {}), ...(hooks.signal ? { signal: hooks.signal } : {}), ...(hooks.deadline ? { deadline: hooks.deadline } : {}) });
    const calls = result.stats.calls;
    // The answer carries what the script read: from here on the session has received it.
    hooks.session?.taint.receive(calls.tainted, calls.taintedUnlisted);
    return this.scrubber.scrubDeep(result);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopping = true;
    this.recoveryStop.abort();
    this.schemaCheckStop.abort();
    await Promise.all([this.recovery, ...this.schemaChecks]);
    for (const state of this.down.values()) clearTimeout(state.timer);
    await Promise.all([this.engine.close(), this.checkers.close()]);
    await Promise.all([...this.clusters.values()].map(closeRuntime));
    await this.audit.flushWitness(WITNESS_FLUSH_MS).catch(() => undefined);
    this.audit.close();
  }
}

function standingLine(a: { id: string; approvedBy: string; expiresAt: string; args: Record<string, { values?: unknown[]; min?: number; max?: number }>; targets: { pools?: string[]; tags?: string[]; vmids?: number[] }; risks: string[]; maxWrites: number; used: { writes: number } }): string {
  const args = Object.entries(a.args).map(([n, b]) => `${n} ∈ ${b.values ? b.values.map((v) => JSON.stringify(v)).join('|') : `${b.min ?? ''}..${b.max ?? ''}`}`);
  const targets = [...(a.targets.pools ?? []).map((p) => `pool ${p}`), ...(a.targets.tags ?? []).map((t) => `tag ${t}`), ...(a.targets.vmids ?? []).map((v) => `VMID ${v}`)];
  return `standing approval ${a.id} by ${a.approvedBy} until ${a.expiresAt}: ${[...args, ...targets].join(', ') || 'any arguments and guests'}; ${a.risks.join('/')} writes, ${a.maxWrites - a.used.writes} of ${a.maxWrites} left`;
}

/**
 * Four eyes for a plan: required when the policy of any cluster a write that needs approval goes
 * to says `approval.approver: other`; the group is the first such policy's `approvers.group`.
 */
function fourEyes(plan: Plan, policyOf: (cluster: string) => Policy): ApproverRequirement | undefined {
  let found: ApproverRequirement | undefined;
  for (const w of plan.writes) {
    if (!w.needsApproval) continue;
    const rule = policyOf(w.cluster).approver;
    if (!rule.other) continue;
    if (rule.group !== undefined) return { group: rule.group };
    found ??= {};
  }
  return found;
}

/** A cluster as one run sees it: the principal's policy on it (the cluster's own without one), after taint. */
function runHandle(runtime: ClusterRuntime, principal: RunPrincipal | undefined, taintedBy: readonly string[]): ClusterHandle {
  const configured = runtime.policy;
  const policy = (principal?.policyFor ? principal.policyFor(runtime.name, configured) : configured).afterTaint(taintedBy);
  return { name: runtime.name, model: runtime.model, policy, client: runtime.clientFor };
}

interface Supervision {
  open(cluster: ClusterConfig): Promise<ClusterRuntime>;
  log(line: string): void;
  retry: RetrySchedule;
  onReady?: (runtime: ClusterRuntime) => void;
}

/** One cluster: its secrets (read again when they were missing), clients, schema and policy. */
async function openCluster(
  configured: ClusterConfig,
  config: AppConfig,
  checkers: TypeCheckService,
  scrubber: SecretScrubber,
  logger: { warn(message: string): void },
  cacheFirst: boolean,
): Promise<ClusterRuntime> {
  const cluster = configured.unavailable ? await configured.unavailable.resolve() : configured;
  if (configured.unavailable) {
    scrubber.add(Secret.from(cluster.auth.kind === 'token' ? cluster.auth.secret : cluster.auth.password).reveal());
    for (const token of Object.values(cluster.tokens ?? {})) scrubber.add(Secret.from(token.secret).reveal());
  }
  const client = createClients({ ...config.pve, clusters: [cluster] }, { logger }).get(cluster.name) as PveClient;
  const byClass = createClassClients(cluster, { logger });
  try {
    const schema = await loadClusterSchema(client, {
      ...(cluster.schema ? { schema: cluster.schema } : {}),
      ...(config.pve.cacheDir ? { cacheDir: config.pve.cacheDir } : {}),
      logger,
      cacheFirst,
    });
    return clusterRuntime(cluster.name, client, byClass, schema, config.policyFor(cluster.name), checkers);
  } catch (err) {
    await Promise.all([client, ...Object.values(byClass)].map((c) => c.close()));
    throw err;
  }
}

async function closeRuntime(runtime: ClusterRuntime): Promise<void> {
  await Promise.all(runtime.clients.map((c) => c.close()));
}

function clusterRuntime(
  name: string,
  client: PveClient,
  byClass: Partial<Record<RiskClass, PveClient>>,
  loaded: LoadedSchema,
  policy: Policy,
  checkers: TypeCheckService,
): ClusterRuntime {
  let schema = loaded;
  const clients = [...new Set([client, ...Object.values(byClass)])];
  // The model the clients have: they encode array parameters as the schema declares them (repeated
  // keys), not comma-joined. Given with the first use of the model (every call resolves against it
  // first), so a cached schema is parsed after the first tools/list, not before.
  let applied: ApiModel | undefined;
  const model = (): ApiModel => {
    if (applied !== schema.model) {
      applied = schema.model;
      for (const c of clients) c.setApiModel(applied);
    }
    return applied;
  };
  let files: DeclarationFile[] | undefined;
  const declarations = (): DeclarationFile[] => (files ??= sdkDeclarationFiles(model()));
  let remote: RemoteScriptChecker | undefined;
  // Built by the first search_api (≈ 0.3 s and tens of MB for PVE 9.1), not on the way to tools/list.
  let search: ApiSearch | undefined;
  return {
    name,
    client,
    clientFor: (risk) => (risk ? byClass[risk] : undefined) ?? client,
    clients,
    get schema() {
      return schema;
    },
    get model() {
      return model();
    },
    policy,
    get search() {
      return (search ??= new ApiSearch(model()));
    },
    declarations,
    // Clusters on the same schema share one set in the process.
    typeChecker: () => (remote ??= checkers.checker(declarations(), model())),
    replaceSchema(next) {
      // By content hash: a model read from the cache is parsed only when first used.
      const changed = next.contentHash === undefined || next.contentHash !== schema.contentHash;
      schema = next;
      if (!changed) return false;
      applied = undefined;
      files = undefined;
      remote = undefined;
      search = undefined;
      return true;
    },
  };
}
