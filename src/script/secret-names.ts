/**
 * Names that mark a secret wherever they appear: the key rules of the redaction of call records
 * and results (src/safety/redact.ts). They live here, before src/safety, because the secret
 * literals of a script are found where the script is parsed (the type-check process, the sandbox
 * worker), and that code is in this folder.
 */

/** Field names that are secret wherever they appear (compared case-insensitively). */
const ALWAYS_SECRET = new Set([
  'password',
  'cipassword',
  'ticket',
  'csrfpreventiontoken',
  'secret',
  'token',
  'otp',
  'totp',
  'tfa-challenge',
  'recovery',
  'keyring',
  'encryption-key',
  'eab-hmac-key',
  'client-key',
  'private-key',
]);

/** Name fragments that mark a secret (`bind-password`, `client-secret`, `smtp-passwd`…). */
const SECRET_FRAGMENT = /pass(word|wd|phrase)|secret|private[-_]?key|hmac[-_]?key/i;

/** Whether `key` names a secret whatever the API path. */
export function isSecretName(key: string): boolean {
  const lower = key.toLowerCase();
  return ALWAYS_SECRET.has(lower) || SECRET_FRAGMENT.test(lower);
}
