/**
 * The simulator's TLS identity: a self-signed certificate made at start (or one the caller gives)
 * and its SHA-256 fingerprint in the colon-separated uppercase hex form the PVE GUI shows, so
 * clients can be tested with fingerprint pinning.
 */
import { X509Certificate } from 'node:crypto';
import { generate } from 'selfsigned';

export interface TlsIdentity {
  cert: string;
  key: string;
  fingerprint: string;
}

export class CertificateError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CertificateError';
  }
}

export function fingerprintOf(certPem: string): string {
  try {
    return new X509Certificate(certPem).fingerprint256;
  } catch (error) {
    throw new CertificateError('The given certificate is not a valid PEM X.509 certificate; pass the PEM text, not a path.', { cause: error });
  }
}

export async function tlsIdentity(given?: { cert: string; key: string }, hostname = 'localhost'): Promise<TlsIdentity> {
  if (given) return { cert: given.cert, key: given.key, fingerprint: fingerprintOf(given.cert) };
  const notBeforeDate = new Date(Date.now() - 60_000);
  const notAfterDate = new Date(notBeforeDate.getTime() + 2 * 365 * 86_400_000);
  const pems = await generate([{ name: 'commonName', value: hostname }], {
    keySize: 2048,
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: hostname },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  return { cert: pems.cert, key: pems.private, fingerprint: fingerprintOf(pems.cert) };
}
