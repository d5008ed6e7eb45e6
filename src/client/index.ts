/** Public surface of the Proxmox VE client. */
export { PveClient, type PveClientOptions, type PveVersion, type RequestOptions } from './client.js';
export {
  type AuthOptions,
  type OtpProvider,
  type TicketAuthOptions,
  type TokenAuthOptions,
  DEFAULT_RENEW_AFTER_MS,
} from './auth.js';
export {
  type ClusterConfig,
  type LoadConfigOptions,
  type PveConfig,
  type SecretRef,
  createClients,
  loadConfig,
} from './config.js';
export * from './errors.js';
export * from './error-codes.js';
export * from './http-errors.js';
export * from './outcome.js';
export * from './task-errors.js';
export { encodeRequest, type EncodedRequest } from './encoding.js';
export { type PveLogger, stderrLogger } from './logger.js';
export { type Envelope } from './response.js';
export { DEFAULT_RETRY, RETRYABLE_STATUSES, type RetryOptions, isRetryable } from './retry.js';
export {
  APIDOC_PATH,
  type LoadClusterSchemaOptions,
  type LoadedSchema,
  defaultCacheDir,
  loadClusterSchema,
} from './schema-source.js';
export { Secret } from './secret.js';
export { DEFAULT_TASK_TIMEOUT_MS, type TaskResult, type TaskStatus, type WaitTaskOptions, isTaskOk } from './tasks.js';
export { type TlsOptions, parseFingerprint } from './tls.js';
export {
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TIMEOUTS,
  MIN_MAX_RESPONSE_BYTES,
  type TimeoutOptions,
} from './transport.js';
