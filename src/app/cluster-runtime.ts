/**
 * One connected cluster: its clients (the main credentials and the per-class tokens), schema,
 * policy, and what is built from the schema on first use (search index, SDK declarations, checker).
 */
import { PveClient } from '../client/client.js';
import { createClassClients, createClients, type ClusterConfig } from '../client/config.js';
import { loadClusterSchema, type LoadedSchema } from '../client/schema-source.js';
import { Secret } from '../client/secret.js';
import type { ApiSearch } from '../search/index.js';
import { classClients } from '../policy/clusters.js';
import type { Policy } from '../policy/policy.js';
import type { SecretScrubber } from '../safety/redact.js';
import type { ApiModel, RiskClass } from '../schema/model.js';
import type { RemoteScriptChecker } from '../script/remote-checker.js';
import type { TypeCheckService } from '../script/typecheck-service.js';
import { sdkDeclarationFiles, type DeclarationFile } from '../typegen/index.js';
import type { AppConfig } from './config/app-config.js';

export interface ClusterRuntime {
  readonly name: string;
  /** The cluster's main credentials: schema loading, and every class without a token of its own. */
  readonly client: PveClient;
  /** The client a call of each class goes out with (`tokens` of the cluster config; `client` for a class without one). */
  readonly byClass: Readonly<Record<RiskClass, PveClient>>;
  /** Every client of the cluster, each once (the main one and the per-class ones). */
  readonly clients: readonly PveClient[];
  readonly schema: LoadedSchema;
  readonly model: ApiModel;
  readonly policy: Policy;
  /** The search index, built by the first search_api; the search engine's modules load with it. */
  search(): Promise<ApiSearch>;
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

/** One cluster: its secrets (read again when they were missing), clients, schema and policy. */
export async function openCluster(
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

export async function closeRuntime(runtime: ClusterRuntime): Promise<void> {
  await Promise.all(runtime.clients.map((c) => c.close()));
}

function clusterRuntime(name: string, client: PveClient, byClass: Partial<Record<RiskClass, PveClient>>, loaded: LoadedSchema, policy: Policy, checkers: TypeCheckService): ClusterRuntime {
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
    byClass: classClients(client, byClass),
    clients,
    get schema() {
      return schema;
    },
    get model() {
      return model();
    },
    policy,
    async search() {
      const { ApiSearch } = await import('../search/index.js');
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
