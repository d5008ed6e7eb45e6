/**
 * What several commands share: the config options, opening the product, and loading a schema
 * model without connecting anything (`--schema FILE`).
 */
import { loadAppConfig, type AppConfig } from '../app/config/app-config.js';
import type { Product, ProductOptions } from '../app/product.js';
import { createClients } from '../client/config.js';
import { loadClusterSchema } from '../client/schema-source.js';
import { loadSchemaFromFile } from '../schema/loader.js';
import type { ApiModel } from '../schema/model.js';
import { stringOpt, type CliIo, type OptionSpec, type ParsedArgs } from './args.js';

export const CONFIG_OPTIONS: OptionSpec = {
  config: { type: 'string', short: 'c' },
  policy: { type: 'string' },
};

export const CONFIG_USAGE = `  -c, --config FILE   config file (default: the PVE_* environment variables, see README)
  --policy NAME       policy for every cluster: read-only (default), operator, admin, or a name from the config`;

export async function appConfigFrom(args: ParsedArgs, options: { degraded?: boolean } = {}): Promise<AppConfig> {
  const file = stringOpt(args, 'config') ?? process.env.PVE_CODE_MCP_CONFIG;
  const policy = stringOpt(args, 'policy');
  return loadAppConfig({ ...(file ? { file } : {}), ...(policy ? { policy } : {}), ...(options.degraded ? { degraded: true } : {}) });
}

export async function openProduct(config: AppConfig, io: CliIo, degraded?: ProductOptions['degraded']): Promise<Product> {
  // Loaded on demand: the product pulls in the TypeScript compiler (~1 s), which `--help`,
  // `approve` and `audit verify` never need.
  const { Product } = await import('../app/product.js');
  return Product.open({ config, log: (line) => io.err(line), ...(degraded ? { degraded } : {}) });
}

/** A schema model for offline commands: `--schema FILE`, else the configured cluster's schema. */
export async function modelFrom(args: ParsedArgs, io: CliIo): Promise<ApiModel> {
  const schema = stringOpt(args, 'schema');
  if (schema) return loadSchemaFromFile(schema);
  const config = await appConfigFrom(args);
  const name = stringOpt(args, 'cluster') ?? config.pve.defaultCluster;
  const clients = createClients(config.pve, { logger: { warn: (m) => io.err(`warning: ${m}`) } });
  try {
    const client = clients.get(name);
    if (!client) throw new Error(`no cluster named '${name}' in ${config.source}`);
    const cluster = config.pve.clusters.find((c) => c.name === name);
    const loaded = await loadClusterSchema(client, {
      ...(cluster?.schema ? { schema: cluster.schema } : {}),
      ...(config.pve.cacheDir ? { cacheDir: config.pve.cacheDir } : {}),
    });
    return loaded.model;
  } finally {
    await Promise.all([...clients.values()].map((c) => c.close()));
  }
}

/**
 * SIGINT and SIGTERM for a foreground server: `first` resolves at the first one (the graceful
 * stop begins); every one after it goes to `onAgain` (exit at once). Until `dispose`, the
 * signals no longer end the process by Node's default.
 */
export class StopSignals {
  readonly first: Promise<NodeJS.Signals>;
  private resolveFirst!: (signal: NodeJS.Signals) => void;
  private seen = 0;
  private again: ((signal: NodeJS.Signals) => void) | undefined;
  private readonly handler = (signal: NodeJS.Signals): void => {
    this.seen++;
    if (this.seen === 1) this.resolveFirst(signal);
    else this.again?.(signal);
  };

  constructor() {
    this.first = new Promise((resolve) => (this.resolveFirst = resolve));
    process.on('SIGINT', this.handler);
    process.on('SIGTERM', this.handler);
  }

  onAgain(handler: (signal: NodeJS.Signals) => void): void {
    this.again = handler;
  }

  dispose(): void {
    process.off('SIGINT', this.handler);
    process.off('SIGTERM', this.handler);
  }
}
