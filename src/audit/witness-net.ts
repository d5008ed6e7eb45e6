/**
 * What the network witnesses share: how the receiver is trusted, a TLS connection whose
 * certificate is checked before anything is written (the HTTPS token included), and deadlines on
 * every wait, so a receiver that hangs costs a report, not a stuck queue.
 */
import { readFileSync } from 'node:fs';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { parseFingerprint } from '../client/tls.js';
import { AuditError } from '../files/errors.js';

export const DEFAULT_WITNESS_TIMEOUT_MS = 10_000;

/** How the receiver's certificate is trusted (default: the system CA store and its host name). */
export interface WitnessTlsOptions {
  /** SHA-256 fingerprint of the receiver's certificate, `AB:CD:…` (colons optional). */
  fingerprint?: string;
  /** PEM file with the CA (or the self-signed certificate) to trust instead of the system store. */
  caFile?: string;
}

export interface ResolvedTls {
  pin?: string;
  ca?: Buffer;
}

export function resolveTls(tls: WitnessTlsOptions | undefined, key: string): ResolvedTls {
  const out: ResolvedTls = {};
  if (tls?.fingerprint !== undefined) {
    const pin = parseFingerprint(tls.fingerprint);
    if (!pin) throw new AuditError('audit-witness', `${key}.fingerprint is not a SHA-256 fingerprint: expected 32 hex bytes such as AB:CD:…:EF`);
    out.pin = pin;
  }
  if (tls?.caFile !== undefined) {
    try {
      out.ca = readFileSync(tls.caFile);
    } catch (err) {
      throw new AuditError('audit-witness', `cannot read ${key}.caFile ${tls.caFile} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): give the path of a PEM file`);
    }
  }
  return out;
}

/**
 * A TLS connection whose certificate was checked before anything is written: by its pinned
 * fingerprint, else by the CA (system store or `caFile`) and the host name.
 */
export function connectTls(host: string, port: number, trust: ResolvedTls, timeoutMs: number): Promise<TLSSocket> {
  let socket: TLSSocket | undefined;
  const connected = new Promise<TLSSocket>((resolve, reject) => {
    const isName = !/^[\d.]+$/.test(host) && !host.includes(':');
    const s = tlsConnect({ host, port, ...(isName ? { servername: host } : {}), rejectUnauthorized: false, ...(trust.ca ? { ca: trust.ca } : {}) });
    socket = s;
    s.once('error', reject);
    s.once('secureConnect', () => {
      const fp = s.getPeerCertificate()?.fingerprint256?.toUpperCase();
      const problem = trust.pin
        ? fp === trust.pin
          ? undefined
          : `its certificate fingerprint ${fp ?? '(none)'} is not the pinned ${trust.pin}`
        : s.authorized
          ? undefined
          : `its certificate is not trusted (${String(s.authorizationError)}${fp ? `; fingerprint ${fp}` : ''}): give tls.caFile or pin tls.fingerprint`;
      if (problem) {
        s.destroy();
        reject(new Error(`TLS with ${hostPort(host, port)} failed: ${problem}`));
        return;
      }
      s.removeListener('error', reject);
      resolve(s);
    });
  });
  return withTimeout(connected, timeoutMs, `no TLS connection within ${timeoutMs} ms`, () => socket?.destroy());
}

export function withTimeout<T>(work: Promise<T>, ms: number, message: string, onTimeout?: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout?.();
      reject(new Error(message));
    }, ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

export function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}
