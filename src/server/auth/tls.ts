/**
 * TLS for `serve --http`: a certificate chain and key from files, checked at start, and reloaded
 * when either file changes (certbot and cert-manager replace them in place or by renaming), with
 * no restart and no dropped connections. A new pair that does not load (half-written, key and
 * certificate that do not match) is logged and the previous pair stays in use.
 */
import { readFileSync, statSync } from 'node:fs';
import type { Server as HttpsServer } from 'node:https';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import { HttpConfigError } from './errors.js';

export interface TlsFiles {
  certFile: string;
  keyFile: string;
  /** How often the files are checked for changes (default 10 s). */
  reloadIntervalMs?: number;
}

/** Reads and checks the pair; throws HttpConfigError saying which file and why. */
export function loadTlsPair(files: TlsFiles): Pick<SecureContextOptions, 'cert' | 'key'> & { cert: Buffer; key: Buffer } {
  const read = (file: string, key: string): Buffer => {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new HttpConfigError(key, `cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  };
  const cert = read(files.certFile, 'http.tls.cert');
  const key = read(files.keyFile, 'http.tls.key');
  if (!/-----BEGIN CERTIFICATE-----/.test(cert.toString('latin1'))) throw new HttpConfigError('http.tls.cert', `${files.certFile} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key.toString('latin1'))) throw new HttpConfigError('http.tls.key', `${files.keyFile} holds no PEM private key (-----BEGIN … PRIVATE KEY-----)`);
  try {
    createSecureContext({ cert, key });
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new HttpConfigError(
      'http.tls',
      /mismatch/i.test(why) ? `the key in ${files.keyFile} does not belong to the certificate in ${files.certFile}` : `cannot use ${files.certFile} and ${files.keyFile}: ${why}`,
    );
  }
  return { cert, key };
}

function fingerprint(file: string): string {
  try {
    const st = statSync(file);
    return `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return 'missing';
  }
}

/** Watches the pair and swaps the server's secure context when it changes. */
export function watchTls(server: HttpsServer, files: TlsFiles, log: (line: string) => void): { stop(): void; reloads(): number } {
  let seen = `${fingerprint(files.certFile)}|${fingerprint(files.keyFile)}`;
  let reloads = 0;
  const timer = setInterval(() => {
    const now = `${fingerprint(files.certFile)}|${fingerprint(files.keyFile)}`;
    if (now === seen) return;
    try {
      const pair = loadTlsPair(files);
      server.setSecureContext(pair);
      seen = now;
      reloads += 1;
      log(`http: TLS certificate reloaded from ${files.certFile}`);
    } catch (err) {
      // Keep serving with the pair that works; try again at the next change (or tick, if the files are mid-update).
      log(`http: TLS certificate not reloaded, the previous one stays in use: ${err instanceof Error ? err.message : String(err)}`);
      seen = now;
    }
  }, files.reloadIntervalMs ?? 10_000);
  timer.unref();
  return { stop: () => clearInterval(timer), reloads: () => reloads };
}
