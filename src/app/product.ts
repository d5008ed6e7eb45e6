/**
 * The composition root: one object that holds the connected clusters (client, schema, search
 * index, SDK declarations, policy), the sandbox engine, the approval store and the audit log, and
 * answers the three tools with plain data. The MCP server and the CLI are thin shells around it (the
 * text and the answer shapes live with the tools in src/server/tools), so a script run from a
 * terminal goes through exactly the same sandbox, policy and audit as one from an agent.
 */
import type { AuditSink } from '../audit/sink.js';
import { canonicalJson } from '../safety/canonical.js';
import { runIntentRecovery } from './intent-recovery.js';
import { openStateStore, type StateStore } from './state-store.js';
import { configFileOf } from '../client/config.js';
import type { TaskProgressEvent } from '../bridge/runtime.js';
import { describeOperations, type DescribeResult } from '../describe/index.js';
import type { Unserved } from '../describe/unserved.js';
import { operationVerdict, VERDICT_TEXT } from '../describe/verdict.js';
import type { SearchHit, SearchOptions } from '../search/index.js';
import type { SandboxEngine } from '../sandbox/engine.js';
import { describeConfinement } from '../sandbox/worker-launch.js';
import type { RunOutcome } from '../sandbox/outcome.js';
import { ApprovalStore, type Approver, type ApproverRequirement } from '../safety/approval.js';
import type { Plan } from '../safety/plan.js';
import { haltRefusal, type KillSwitch } from '../safety/halt.js';
import { Policy } from '../policy/policy.js';
import { RunClusters, type ClusterHandle } from '../policy/clusters.js';
import { PermissionCache } from '../policy/privileges.js';
import type { SessionTaint } from '../policy/taint.js';
import { SecretScrubber } from '../safety/redact.js';
import { readRunbook, RunbookError, runbookNames, runbookSummary } from '../runbook/catalog.js';
import { describeArgs, type ArgSpecs } from '../script/args.js';
import { userInfo } from 'node:os';
import type { CallDeadline } from '../run/deadline.js';
import type { RunResult } from '../run/pipeline.js';
import { TypeCheckService } from '../script/typecheck-service.js';
import type { AppConfig } from './config/app-config.js';
import { ServerStoppingError, UnknownClusterError } from './errors.js';
import { ClusterAvailability, type DegradedStart, type UnavailableCluster } from './cluster-availability.js';
import type { ClusterRuntime } from './cluster-runtime.js';

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
  degraded?: DegradedStart;
  /** By cluster: operations its schema lists that the server behind it does not answer (the demo's simulator). */
  unserved?: Readonly<Record<string, Unserved>>;
}

/** How long closing waits for a network witness to publish the chain's last end. */
const WITNESS_FLUSH_MS = 2_000;

export class Product {
  /** Loaded with the first use (see engine()); set once it is. */
  private engineLoad: Promise<SandboxEngine> | undefined;
  private loadedEngine: SandboxEngine | undefined;
  private readonly approvals: ApprovalStore;
  /** Runbook arguments as listed, by content hash. */
  private readonly runbookArgs = new Map<string, string>();
  /** The kill switch (src/safety/halt.ts): the host's file, and the shared row when the state is in PostgreSQL; asked before every change. */
  readonly halt: KillSwitch;
  private readonly permissions = new PermissionCache();
  private recovery: Promise<void> = Promise.resolve();
  private readonly recoveryStop = new AbortController();
  /** Runs in flight: how `drain` cancels them and learns that each has its result. */
  private readonly running = new Map<AbortController, Promise<unknown>>();
  private stopping = false;

  private constructor(
    readonly config: AppConfig,
    /** Which clusters serve, which are down and retried (src/app/cluster-availability.ts). */
    private readonly clusters: ClusterAvailability,
    private readonly checkers: TypeCheckService,
    /** Plans, approvals, standing approvals, the kill switch and the audit, where the config keeps them (state-store.ts). */
    readonly state: StateStore,
    readonly scrubber: SecretScrubber,
    private readonly unserved: Readonly<Record<string, Unserved>>,
  ) {
    this.approvals = state.approvals;
    this.halt = state.killSwitch;
  }

  /**
   * The sandbox engine. Its modules and the run path's (pipeline, bridge, the policy's checks) load
   * with its first use, after the server answers (warmSandbox) or with a first run, not on the way
   * to a desktop client's first tools/list.
   */
  private engine(): Promise<SandboxEngine> {
    this.engineLoad ??= import('../sandbox/engine.js').then(({ SandboxEngine }) => {
      const { workers, warmWorkers, idleMs, perPrincipal, confineWorker, limits } = this.config.sandbox;
      this.loadedEngine = new SandboxEngine({
        ...(workers !== undefined ? { workers } : {}),
        warmWorkers,
        idleMs: idleMs === 0 ? Number.POSITIVE_INFINITY : idleMs,
        ...(perPrincipal !== undefined ? { perPrincipal } : {}),
        confineWorker,
        ...(limits ? { limits } : {}),
        compiler: this.checkers,
      });
      return this.loadedEngine;
    });
    return this.engineLoad;
  }

  /** Connect every configured cluster and load its schema (from the cluster, an override or the cache). */
  static async open(options: ProductOptions): Promise<Product> {
    const { config } = options;
    const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
    const scrubber = new SecretScrubber(config.secrets);
    // One process for all clusters, holding one warm checker per distinct schema.
    const { budgetMs, recycleAfterChecks, maxRssMb, maxQueue, idleMs } = config.sandbox.typecheck;
    const checkers = new TypeCheckService({ budgetMs, recycleAfterChecks, maxRssMb, maxQueue, idleMs: idleMs === 0 ? Number.POSITIVE_INFINITY : idleMs, log });
    const clusters = await ClusterAvailability.open({ config, checkers, scrubber, log, ...(options.degraded ? { degraded: options.degraded } : {}) });
    let state: StateStore;
    try {
      const configFile = configFileOf(config.source);
      state = openStateStore({ state: config.state, audit: config.audit, haltFile: config.halt.file, scrubber, ...(configFile ? { configFile } : {}) });
    } catch (err) {
      await clusters.stop();
      await Promise.all([checkers.close(), clusters.closeRuntimes()]);
      throw err;
    }
    const product = new Product(config, clusters, checkers, state, scrubber, options.unserved ?? {});
    clusters.start();
    product.recoverIntents(log);
    return product;
  }

  /**
   * In the background: what became of the changes servers that died had sent (intent-recovery.ts).
   * At start, then periodically while the server runs; close() stops it.
   */
  private recoverIntents(log: (line: string) => void): void {
    this.recovery = runIntentRecovery(
      {
        audit: this.audit,
        client: (name) => this.clusters.find(name)?.client,
        log,
        signal: this.recoveryStop.signal,
        onClusterServing: (listener) => this.clusters.onViewChange(listener),
      },
      { ...(this.config.state.postgres ? { everyMs: this.config.state.postgres.recoverEveryMs } : {}) },
    );
  }

  /** Configured clusters that are not serving (yet), with why and when they are tried again. */
  unavailableClusters(): UnavailableCluster[] {
    return this.clusters.unavailable();
  }

  get defaultCluster(): string {
    return this.config.pve.defaultCluster;
  }

  /** The clusters serving now. */
  get clusterNames(): string[] {
    return this.clusters.names;
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
    const configured = this.clusters.find(cluster)?.policy ?? this.configuredPolicy(cluster);
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
    return this.clusters.onViewChange(listener);
  }

  cluster(name?: string): ClusterRuntime {
    return this.clusters.get(name ?? this.defaultCluster);
  }

  /**
   * Start the kept sandbox workers and the type-check process (every cluster's SDK built in it)
   * now, so the first run does not pay for them: for benchmarks and the demo. `serve` starts only
   * the kept workers (`warmSandbox`), after it answers: a desktop client starts every server at
   * launch, and most sessions never run a script.
   */
  async warm(): Promise<void> {
    for (const runtime of this.clusters.runtimes()) runtime.typeChecker();
    await Promise.all([this.engine().then((e) => e.warm()), this.checkers.warm()]);
  }

  /**
   * An agent that reads signatures is about to write a script, and its first checked run would pay
   * the type-check process's cold start (~1.1 s with the PVE 9.1 SDK): start it now, in the
   * background, while the agent writes (get_schema calls this once it has answered). A process
   * already up is left alone, its idle time untouched; one cluster's SDK not yet in it is built by
   * its first check, as before.
   */
  anticipateRun(cluster?: string): void {
    if (this.stopping) return;
    setImmediate(() => {
      try {
        this.cluster(cluster).typeChecker();
      } catch {
        return; // A cluster the answer already said is unknown: nothing to prepare.
      }
      this.checkers.anticipate();
    });
  }

  /** Starts the kept sandbox workers (`sandbox.warmWorkers`); rejects when a worker cannot start. */
  async warmSandbox(): Promise<void> {
    return (await this.engine()).warm();
  }

  /** One line for the server's log: how scripts will run (workers, isolated-vm, confinement). */
  sandboxSummary(): string {
    if (!this.loadedEngine) return 'sandbox: not loaded yet (it loads with the first run)';
    const { workers, warmWorkers, workerRuntime, workerConfined } = this.loadedEngine.stats;
    return `sandbox: up to ${workers} worker${workers === 1 ? '' : 's'} (${warmWorkers} kept warm), ${workerRuntime ?? 'isolated-vm (not started)'}, ${describeConfinement(workerConfined)}`;
  }

  /**
   * Hits carry the verdict of the policy the principal's calls on the cluster are decided by (the
   * cluster's own without one) at default parameters and the parameters that
   * raise them; an operation the server behind the cluster does not answer says so in its verdict.
   */
  async search(query: string, options: SearchOptions & { cluster?: string; principal?: RunPrincipal } = {}): Promise<SearchHit[]> {
    const { cluster, principal, ...rest } = options;
    const runtime = this.cluster(cluster);
    const unserved = this.unserved[runtime.name];
    const policy = this.policyFor(runtime.name, principal);
    return (await runtime.search()).search(query, rest).map((hit): SearchHit => {
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
    this.running.set(
      stop,
      run.catch(() => undefined),
    );
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
    const standing = this.state.standing.list().filter((a) => !a.revokedAt && Date.parse(a.expiresAt) > Date.now());
    const out = [];
    for (const name of runbookNames(dir)) {
      const book = readRunbook(dir, name);
      let args = this.runbookArgs.get(book.contentHash);
      if (args === undefined) {
        const compiled = await (await this.engine()).compile({ code: book.code, typecheck: false });
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
    const [{ RunPipeline }, executor] = await Promise.all([import('../run/pipeline.js'), this.engine()]);
    const pipeline = new RunPipeline({
      executor,
      clusters,
      ...(principal ? { principal: principal.id } : {}),
      ...(checker ? { checker } : {}),
      approvals: new ApprovalStore(this.approvals.backend, principal?.id, (plan) => fourEyes(plan, (name) => clusters.get(name).policy), principal?.approvesOverHttp === true, principal?.consolePage),
      ...(hooks.approver ? { approver: hooks.approver } : {}),
      audit: principal ? { append: (type, data) => audit.append(type, { ...data, principal: principal.audit }), intend: (data) => audit.intend({ ...data, principal: principal.audit }) } : audit,
      secrets: this.scrubber,
      permissions: this.permissions,
      halted: () => haltRefusal(this.halt.state()),
      ...(book ? { standing: this.state.standing, runner: principal?.id ?? userInfo().username, tainted: (clusters.home.policy.taintedBy?.length ?? 0) > 0 } : {}),
      // A principal undoes only its own runs (the host's user only runs made without a principal):
      // the reversal reads guests with the server's credentials and answers with their values.
      runChanges: (runId) => audit.runChanges(runId).filter((c) => canonicalJson(c.principal ?? null) === canonicalJson(principal?.audit ?? null)),
      ...(hooks.onProgress ? { onProgress: hooks.onProgress } : {}),
      ...(hooks.onLog ? { onLog: hooks.onLog } : {}),
    });
    const { args, argsFromText } = input;
    // A runbook's declarations are the operator's: their patterns are tested (src/script/args.ts).
    const argPatterns = input.argPatterns === true || book !== undefined;
    const given = { ...(args ? { args } : {}), ...(argsFromText ? { argsFromText } : {}), ...(argPatterns ? { argPatterns } : {}), ...(book ? { runbook: book.name } : {}) };
    const result = await pipeline.run({
      code,
      ...given,
      ...(input.dryRun ? { dryRun: true } : {}),
      ...(hooks.signal ? { signal: hooks.signal } : {}),
      ...(hooks.deadline ? { deadline: hooks.deadline } : {}),
    });
    const calls = result.stats.calls;
    // The answer carries what the script read: from here on the session has received it.
    hooks.session?.taint.receive(calls.tainted, calls.taintedUnlisted);
    return this.scrubber.scrubDeep(result);
  }

  async close(): Promise<void> {
    this.stopping = true;
    this.recoveryStop.abort();
    await Promise.all([this.recovery, this.clusters.stop()]);
    // An engine still loading is closed once it has loaded.
    await Promise.all([this.engineLoad?.then((e) => e.close()), this.checkers.close()]);
    await this.clusters.closeRuntimes();
    await this.audit.flushWitness(WITNESS_FLUSH_MS).catch(() => undefined);
    this.state.close();
  }

  /** The audit, wherever the state lives (files or the shared database). */
  get audit(): AuditSink {
    return this.state.audit;
  }
}

function standingLine(a: {
  id: string;
  approvedBy: string;
  expiresAt: string;
  args: Record<string, { values?: unknown[]; min?: number; max?: number }>;
  targets: { pools?: string[]; tags?: string[]; vmids?: number[] };
  risks: string[];
  maxWrites: number;
  used: { writes: number };
}): string {
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
  return { name: runtime.name, model: runtime.model, policy, client: runtime.client, byClass: runtime.byClass };
}
