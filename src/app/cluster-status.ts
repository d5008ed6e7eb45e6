/**
 * A cluster that could not be opened: why, what the operator should do, and when it is tried
 * again. `serve` keeps the other clusters serving; every call to this one answers with
 * `ClusterUnavailableError`, which names the cluster, the cause and the fix.
 */
import { type AnyPveError, exhaustive, isPveError } from '../client/error-codes.js';

export interface ClusterFailure {
  /** What went wrong, in one line. */
  cause: string;
  /** What the operator can do about it. */
  fix: string;
}

/** The cause and the fix of a failure to reach, authenticate to or load a cluster. */
export function describeClusterFailure(err: unknown): ClusterFailure {
  const cause = isPveError(err) && err.code === 'pve-config' ? err.issues.map((i) => `${i.key}: ${i.message}`).join('; ') : err instanceof Error ? err.message : String(err);
  return { cause, fix: fixFor(err) ?? 'see the cause; pve-code-mcp config check tests the connection step by step' };
}

/** The fix for a known failure, undefined for others. */
export function fixFor(err: unknown): string | undefined {
  if (isPveError(err)) return clientErrorFix(err);
  if ((err as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') return 'check the path of the cluster\'s "schema" override';
  return undefined;
}

function clientErrorFix(err: AnyPveError): string | undefined {
  switch (err.code) {
    case 'pve-config':
      return 'provide the secret (create the file, or export the variable in the environment the server starts with); the server reads it again at the next retry';
    case 'pve-tls-pin':
      return 'the certificate changed or the pin is wrong: compare with the node (System → Certificates) and update tls.fingerprint';
    case 'pve-tls':
      return 'pin the certificate: set tls.fingerprint to the SHA-256 fingerprint shown under System → Certificates, or give tls.caFile';
    case 'pve-schema-unavailable':
      return 'check the URL and that the node is up and reachable from here; once it answers, its schema is cached for later starts (or set "schema" to an apidoc.js file)';
    case 'pve-connection':
    case 'pve-outcome-unknown':
    case 'pve-timeout':
      return 'check the URL (https://<host>:8006), that the node is up and reachable from here';
    case 'pve-auth':
      return 'check the token ID (user@realm!name) and secret, or username/password/realm; is the token expired or the user disabled?';
    case 'pve-permission':
      return 'grant the user/token a role on the path named above (Datacenter → Permissions)';
    case 'pve-http':
    case 'pve-not-found':
    case 'pve-node-offline':
      return 'check that the URL points at a Proxmox VE node (https://<host>:8006)';
    case 'pve-input':
    case 'pve-aborted':
    case 'pve-protocol':
    case 'pve-too-large':
    case 'pve-task-failed':
    case 'pve-task-unknown':
      return undefined;
    default:
      return exhaustive(err, undefined);
  }
}

export class ClusterUnavailableError extends Error {
  constructor(
    readonly cluster: string,
    readonly failure: ClusterFailure,
    /** When the server tries again (epoch ms). */
    readonly retryAt: number,
    readonly available: readonly string[],
  ) {
    const seconds = Math.max(1, Math.round((retryAt - Date.now()) / 1000));
    super(
      `cluster '${cluster}' is unavailable: ${failure.cause}. Fix: ${failure.fix}. ` +
        `The server retries it in the background (next attempt in ${seconds} s)` +
        (available.length > 0 ? `; available clusters: ${available.join(', ')}` : '; no cluster is available yet'),
    );
    this.name = 'ClusterUnavailableError';
  }
}

/** Retry delays: `initialMs`, doubling, capped at `maxMs`. */
export interface RetrySchedule {
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_CLUSTER_RETRY: RetrySchedule = { initialMs: 5_000, maxMs: 300_000 };

export function retryDelay(schedule: RetrySchedule, attempt: number): number {
  return Math.min(schedule.maxMs, schedule.initialMs * 2 ** Math.max(0, attempt - 1));
}
