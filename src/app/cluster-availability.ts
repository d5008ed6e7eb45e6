/**
 * Which configured clusters serve and which are down: opening them at start (under `serve`, a
 * cluster that does not open in time is marked down and the others serve), retrying a down one
 * with backoff, adopting it when it recovers, and comparing a cache-first schema with the
 * cluster's in the background. Sessions learn through `onViewChange` that what they show changed.
 */
import type { ClusterConfig } from '../client/config.js';
import type { SecretScrubber } from '../safety/redact.js';
import type { TypeCheckService } from '../script/typecheck-service.js';
import type { AppConfig } from './config/app-config.js';
import { UnknownClusterError } from './errors.js';
import { closeRuntime, openCluster, type ClusterRuntime } from './cluster-runtime.js';
import { ClusterUnavailableError, DEFAULT_CLUSTER_RETRY, describeClusterFailure, retryDelay, type ClusterFailure, type RetrySchedule } from './cluster-status.js';

/** A configured cluster that is not serving yet. */
export interface UnavailableCluster {
  name: string;
  failure: ClusterFailure;
  attempts: number;
  retryAt: number;
}

/** `serve`'s start: a cluster that cannot be opened does not stop the others (see ProductOptions.degraded). */
export interface DegradedStart {
  retry?: RetrySchedule;
  startWaitMs?: number;
  onClusterReady?: (runtime: ClusterRuntime) => void;
}

export interface ClusterAvailabilityOptions {
  config: AppConfig;
  checkers: TypeCheckService;
  scrubber: SecretScrubber;
  log: (line: string) => void;
  degraded?: DegradedStart;
}

/** After a cache-first open: how long the comparison with the cluster's schema waits (see checkSchema). */
const SCHEMA_CHECK_DELAY_MS = 2_000;

const DEFAULT_START_WAIT_MS = 15_000;

export class ClusterAvailability {
  private readonly down = new Map<string, UnavailableCluster & { timer?: NodeJS.Timeout }>();
  private closed = false;
  /** Told when what a session shows may have changed (a cluster became available). */
  private readonly viewListeners = new Set<() => void>();
  /** The background comparisons of cached schemas with the clusters' (cache-first start); stop() ends them. */
  private readonly schemaChecks = new Set<Promise<void>>();
  private readonly schemaCheckStop = new AbortController();

  private constructor(
    private readonly options: ClusterAvailabilityOptions,
    /** Opens one cluster (the first attempt and every retry). */
    private readonly open: (cluster: ClusterConfig) => Promise<ClusterRuntime>,
    private readonly serving: Map<string, ClusterRuntime>,
    /** Degraded start: attempts still running after startWaitMs, and clusters that failed to open. */
    private readonly startup: { pending: Map<string, Promise<ClusterRuntime>>; failed: Map<string, unknown> },
  ) {}

  /**
   * Open every configured cluster. Without `degraded` one after the other, and a failure closes
   * what opened and rejects; with it every cluster at once, each given startWaitMs. Nothing is
   * retried or checked until `start()`.
   */
  static async open(options: ClusterAvailabilityOptions): Promise<ClusterAvailability> {
    const { config, checkers, scrubber, log, degraded } = options;
    const logger = { warn: (m: string) => log(`warning: ${m}`) };
    const serving = new Map<string, ClusterRuntime>();
    const pending = new Map<string, Promise<ClusterRuntime>>();
    const failed = new Map<string, unknown>();
    // `serve` starts from a cluster's cached schema and compares it with the cluster's after (checkSchema).
    const open = (cluster: ClusterConfig) => openCluster(cluster, config, checkers, scrubber, logger, degraded !== undefined);
    try {
      if (!degraded) {
        for (const cluster of config.pve.clusters) serving.set(cluster.name, await open(cluster));
      } else {
        const startWaitMs = degraded.startWaitMs ?? DEFAULT_START_WAIT_MS;
        await Promise.all(
          config.pve.clusters.map(async (cluster) => {
            const attempt = open(cluster);
            const first = await Promise.race([
              attempt.then(
                (runtime) => ({ runtime }),
                (error: unknown) => ({ error }),
              ),
              new Promise<'waiting'>((resolve) => setTimeout(() => resolve('waiting'), startWaitMs).unref()),
            ]);
            if (first === 'waiting') pending.set(cluster.name, attempt);
            else if ('runtime' in first) serving.set(cluster.name, first.runtime);
            else failed.set(cluster.name, first.error);
          }),
        );
      }
    } catch (err) {
      await Promise.all([...serving.values()].map(closeRuntime));
      await checkers.close();
      throw err;
    }
    return new ClusterAvailability(options, open, serving, { pending, failed });
  }

  /** Marks down what did not open (and retries it), and starts the schema checks of a cache-first start. */
  start(): void {
    const { config, degraded } = this.options;
    if (degraded) {
      const { pending, failed } = this.startup;
      for (const cluster of config.pve.clusters) {
        const attempt = pending.get(cluster.name);
        if (attempt) {
          this.markDown(cluster, {
            cause: `no answer within ${Math.round((degraded.startWaitMs ?? DEFAULT_START_WAIT_MS) / 1000)} s (still trying)`,
            fix: 'check the URL (https://<host>:8006), that the node is up and reachable from here',
          });
          this.adopt(cluster, attempt);
        } else if (failed.has(cluster.name)) {
          this.markDown(cluster, describeClusterFailure(failed.get(cluster.name)));
          this.scheduleRetry(cluster);
        }
      }
    }
    for (const runtime of this.serving.values()) this.checkSchema(runtime);
  }

  /** The clusters serving now. */
  get names(): string[] {
    return [...this.serving.keys()];
  }

  runtimes(): IterableIterator<ClusterRuntime> {
    return this.serving.values();
  }

  /** A serving cluster, or undefined (down or not configured). */
  find(name: string): ClusterRuntime | undefined {
    return this.serving.get(name);
  }

  /** A serving cluster; `ClusterUnavailableError` for a down one, `UnknownClusterError` for others. */
  get(name: string): ClusterRuntime {
    const found = this.serving.get(name);
    if (found) return found;
    const down = this.down.get(name);
    if (down) throw new ClusterUnavailableError(name, down.failure, down.retryAt, this.names);
    throw new UnknownClusterError(name, [...this.names, ...this.down.keys()]);
  }

  /** Configured clusters that are not serving (yet), with why and when they are tried again. */
  unavailable(): UnavailableCluster[] {
    return [...this.down.values()].map(({ name, failure, attempts, retryAt }) => ({ name, failure, attempts, retryAt }));
  }

  /** See Product.onViewChange. */
  onViewChange(listener: () => void): () => void {
    this.viewListeners.add(listener);
    return () => this.viewListeners.delete(listener);
  }

  /** No more retries, adoptions or schema swaps; resolves once the schema checks in flight ended. */
  async stop(): Promise<void> {
    this.closed = true;
    this.schemaCheckStop.abort();
    await Promise.all(this.schemaChecks);
    for (const state of this.down.values()) clearTimeout(state.timer);
  }

  /** Closes the clients of every serving cluster (after stop()). */
  async closeRuntimes(): Promise<void> {
    await Promise.all([...this.serving.values()].map(closeRuntime));
  }

  /**
   * After a cache-first open: the cluster's own schema, fetched in the background, replaces the
   * cached one that serves meanwhile when they differ (sessions are told: their resources changed).
   * One log line either way.
   */
  private checkSchema(runtime: ClusterRuntime): void {
    const { log } = this.options;
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
    const done = later
      .then(() => check(stop))
      .then(
        (current) => {
          if (this.closed) return;
          if (!runtime.replaceSchema(current)) return;
          log(
            `pve-code-mcp: cluster '${runtime.name}' serves another schema than the cached one (PVE ${cached.version?.version ?? '?'} → ${current.version?.version ?? '?'}, ${current.model.operations.length} operations): using the cluster's from now on`,
          );
          for (const listener of this.viewListeners) listener();
        },
        (err: unknown) => {
          if (this.closed) return;
          log(
            `pve-code-mcp: warning: cluster '${runtime.name}': cannot compare the cached schema (PVE ${cached.version?.version ?? '?'}) with the cluster's: ${err instanceof Error ? err.message : String(err)}; the cached one stays in use`,
          );
        },
      );
    this.schemaChecks.add(done);
    void done.finally(() => this.schemaChecks.delete(done));
  }

  private markDown(cluster: ClusterConfig, failure: ClusterFailure): void {
    const { log } = this.options;
    const state = this.down.get(cluster.name);
    const attempts = (state?.attempts ?? 0) + 1;
    this.down.set(cluster.name, { name: cluster.name, failure, attempts, retryAt: state?.retryAt ?? Date.now() });
    // The full cause and fix once; a retry that fails the same way says so in one line.
    if (state?.failure.cause === failure.cause) log(`pve-code-mcp: cluster '${cluster.name}' still unavailable (attempt ${attempts}, same cause)`);
    else log(`pve-code-mcp: cluster '${cluster.name}' is unavailable (attempt ${attempts}): ${failure.cause}\n  fix: ${failure.fix}`);
  }

  private scheduleRetry(cluster: ClusterConfig): void {
    const state = this.down.get(cluster.name);
    if (!state || this.closed) return;
    const delay = retryDelay(this.options.degraded?.retry ?? DEFAULT_CLUSTER_RETRY, state.attempts);
    state.retryAt = Date.now() + delay;
    if (state.timer === undefined)
      this.options.log(`pve-code-mcp: retrying cluster '${cluster.name}' in the background (first in ${Math.round(delay / 1000)} s, then less often); the other clusters serve meanwhile`);
    state.timer = setTimeout(() => this.adopt(cluster, this.open(cluster)), delay);
    state.timer.unref();
  }

  /** An attempt to open a down cluster: serving when it succeeds, another retry when it fails. */
  private adopt(cluster: ClusterConfig, attempt: Promise<ClusterRuntime>): void {
    attempt.then(
      (runtime) => {
        if (this.closed) return void closeRuntime(runtime);
        const attempts = this.down.get(cluster.name)?.attempts ?? 1;
        this.down.delete(cluster.name);
        this.serving.set(cluster.name, runtime);
        this.options.log(`pve-code-mcp: cluster '${cluster.name}' is available (after ${attempts} attempt${attempts === 1 ? '' : 's'}; schema from ${runtime.schema.origin})`);
        this.options.degraded?.onClusterReady?.(runtime);
        for (const listener of this.viewListeners) listener();
        this.checkSchema(runtime);
      },
      (err: unknown) => {
        if (this.closed) return;
        this.markDown(cluster, describeClusterFailure(err));
        this.scheduleRetry(cluster);
      },
    );
  }
}
