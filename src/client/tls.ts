/**
 * How a cluster's TLS certificate is trusted: by the system/CA store (default), by a pinned SHA-256
 * fingerprint (what the PVE GUI shows for self-signed nodes), or not at all (`insecure`, loudly).
 *
 * All three modes use one connector: the handshake itself never rejects, and the decision is made
 * on the connected socket before undici writes a single byte. That lets a pinned connection skip
 * CA checks, and lets an untrusted certificate's fingerprint appear in the error, so the user can
 * compare it with the GUI and pin it.
 */
import { readFileSync } from 'node:fs';
import type { TLSSocket } from 'node:tls';
import type { buildConnector } from 'undici';
import { PveConfigError, PveTlsError, TlsPinMismatchError } from './errors.js';
import type { PveLogger } from './logger.js';

export interface TlsOptions {
  /** SHA-256 fingerprint of the node's certificate, `AB:CD:…` (case-insensitive, colons optional). */
  fingerprint?: string;
  /** PEM file with the CA (or the self-signed certificate) to trust instead of the system store. */
  caFile?: string;
  /** Accept any certificate. Logs a warning; meant for throwaway labs only. */
  insecure?: boolean;
}

const HEX_64 = /^[0-9a-f]{64}$/;

/** Canonical colon-hex uppercase form, or undefined when `input` is not a SHA-256 fingerprint. */
export function parseFingerprint(input: string): string | undefined {
  const compact = input.trim().toLowerCase().replace(/:/g, '');
  if (!HEX_64.test(compact)) return undefined;
  return compact.toUpperCase().match(/../g)!.join(':');
}

export interface ConnectorSettings {
  clusterName: string;
  tls: TlsOptions;
  connectTimeoutMs: number;
  logger: PveLogger;
}

type Verdict = Error | undefined;

/**
 * Checks the TLS settings now (a bad pin or an unreadable CA file is a configuration error at
 * start) and returns what builds the connector from undici's `buildConnector` once undici is
 * loaded: the transport loads it with its first request (transport.ts).
 */
export function createTlsConnector(settings: ConnectorSettings): (build: typeof buildConnector) => buildConnector.connector {
  const { tls, clusterName, logger } = settings;
  const pin = resolvePin(tls, clusterName);
  const ca = tls.caFile ? readCaFile(tls.caFile, clusterName) : undefined;
  if (tls.insecure && !pin) {
    logger.warn(
      `TLS certificate verification is DISABLED for cluster '${clusterName}' (insecure: true). ` +
        `Anyone on the network path can impersonate the node and capture its credentials. ` +
        `Pin the node's certificate with "fingerprint" instead.`,
    );
  }
  let reportedInsecureFingerprint = false;

  const verify = (socket: TLSSocket, host: string): Verdict => {
    const actual = peerFingerprint(socket);
    if (pin) {
      return actual === pin ? undefined : new TlsPinMismatchError(host, pin, actual ?? '(no certificate)');
    }
    if (tls.insecure) {
      if (!reportedInsecureFingerprint && actual) {
        reportedInsecureFingerprint = true;
        logger.warn(`cluster '${clusterName}': ${host} presented certificate fingerprint ${actual}; pin it with "fingerprint".`);
      }
      return undefined;
    }
    if (socket.authorized) return undefined;
    return new PveTlsError(host, String(socket.authorizationError ?? 'UNKNOWN'), actual);
  };

  return (build) => {
    const base = build({
      // The verdict is ours (see above); Node still computes `authorized` with the CA and hostname.
      rejectUnauthorized: false,
      ...(ca ? { ca } : {}),
      timeout: settings.connectTimeoutMs,
      // A resumed session skips the certificate exchange; always see the certificate.
      maxCachedSessions: 0,
    });

    return (options, callback) => {
      base(options, (err, socket) => {
        if (err || !socket) {
          callback(err ?? new Error('connector returned no socket'), null);
          return;
        }
        const verdict = verify(socket as TLSSocket, `${options.hostname}:${options.port || 443}`);
        if (verdict) {
          socket.destroy();
          callback(verdict, null);
          return;
        }
        callback(null, socket);
      });
    };
  };
}

function resolvePin(tls: TlsOptions, clusterName: string): string | undefined {
  if (tls.fingerprint === undefined) return undefined;
  const pin = parseFingerprint(tls.fingerprint);
  if (!pin) {
    throw new PveConfigError([
      {
        key: `clusters.${clusterName}.tls.fingerprint`,
        message: 'not a SHA-256 fingerprint: expected 32 hex bytes such as AB:CD:…:EF (colons optional)',
      },
    ]);
  }
  return pin;
}

function readCaFile(path: string, clusterName: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new PveConfigError([{ key: `clusters.${clusterName}.tls.caFile`, message: `cannot read ${path} (${reason}): give the path of a PEM file` }]);
  }
}

function peerFingerprint(socket: TLSSocket): string | undefined {
  const cert = socket.getPeerCertificate();
  const fp = cert && typeof cert.fingerprint256 === 'string' ? cert.fingerprint256 : undefined;
  return fp ? fp.toUpperCase() : undefined;
}
