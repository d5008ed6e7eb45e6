/**
 * PVE authentication tickets and CSRF prevention tokens, in PVE's shapes:
 * ticket `PVE:<userid>:<8 HEX time>::<base64 RSA-SHA256 signature>`, CSRF token
 * `<8 HEX time>:<43-char unpadded base64 HMAC-SHA256>`; both valid for an age in (-300 s, lifetime).
 * Rotating the signing key invalidates every ticket issued so far (the "ticket expiry" fault).
 */
import { createHmac, createSign, createVerify, generateKeyPair, randomBytes, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';

const generateKeyPairAsync = promisify(generateKeyPair);

/** PVE accepts tickets and CSRF tokens minted up to this many seconds in the future (clock skew). */
export const AUTH_GRACE_SEC = 300;

export interface VerifiedTicket {
  /** For normal tickets the userid; for TFA half tickets the challenge text. */
  data: string;
  ageSec: number;
}

export interface SigningKeys {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export async function generateSigningKeys(): Promise<SigningKeys> {
  const { privateKey, publicKey } = await generateKeyPairAsync('rsa', { modulusLength: 2048 });
  return { privateKey, publicKey };
}

function hexTime(sec: number): string {
  return Math.max(0, Math.floor(sec)).toString(16).toUpperCase().padStart(8, '0');
}

export class TicketAuthority {
  private keys: SigningKeys;
  private readonly csrfSecret = randomBytes(32);

  constructor(
    keys: SigningKeys,
    /** Seconds a ticket stays valid (PVE: 7200). */
    public lifetimeSec: number,
    private readonly clockSec: () => number,
  ) {
    this.keys = keys;
  }

  /** Replace the signing key: every ticket issued before stops verifying. */
  async rotate(): Promise<void> {
    this.keys = await generateSigningKeys();
  }

  /** A ticket for `userid`; `aad` binds TFA half tickets to the user they were issued for. */
  issue(data: string, aad?: string): string {
    const plain = `PVE:${data.replace(/:/g, '%3A')}:${hexTime(this.clockSec())}`;
    return `${plain}::${this.sign(aad === undefined ? plain : `${plain}:${aad}`)}`;
  }

  verify(ticket: string, aad?: string): VerifiedTicket | undefined {
    const outer = /^(PVE:\S+)::([^:\s]+)$/.exec(ticket);
    if (!outer) return undefined;
    const plain = outer[1] as string;
    const verifier = createVerify('sha256');
    verifier.update(aad === undefined ? plain : `${plain}:${aad}`);
    let valid = false;
    try {
      valid = verifier.verify(this.keys.publicKey, outer[2] as string, 'base64');
    } catch {
      return undefined;
    }
    if (!valid) return undefined;
    const inner = /^PVE:(?:(\S+):)?([A-Z0-9]{8})$/.exec(plain);
    if (!inner?.[1]) return undefined;
    const ageSec = this.clockSec() - parseInt(inner[2] as string, 16);
    if (ageSec <= -AUTH_GRACE_SEC || ageSec >= this.lifetimeSec) return undefined;
    return { data: inner[1].replace(/%3A/gi, ':'), ageSec };
  }

  csrfToken(userid: string): string {
    const ts = hexTime(this.clockSec());
    return `${ts}:${this.csrfDigest(ts, userid)}`;
  }

  verifyCsrf(userid: string, token: string | undefined): boolean {
    const m = token ? /^([A-Z0-9]{8}):(\S+)$/.exec(token) : null;
    if (!m) return false;
    const ts = m[1] as string;
    if (m[2] !== this.csrfDigest(ts, userid)) return false;
    const age = this.clockSec() - parseInt(ts, 16);
    return age > -AUTH_GRACE_SEC && age < this.lifetimeSec;
  }

  private csrfDigest(ts: string, userid: string): string {
    return createHmac('sha256', this.csrfSecret).update(`${ts}:${userid}`).digest('base64').replace(/=+$/, '');
  }

  private sign(text: string): string {
    return createSign('sha256').update(text).sign(this.keys.privateKey, 'base64');
  }
}
