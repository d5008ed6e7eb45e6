import { describe, expect, it } from 'vitest';
import { base32Decode, totpCode, verifyTotp } from './totp.js';

describe('TOTP', () => {
  // RFC 6238 appendix B, SHA-1 seed "12345678901234567890"; the 6-digit code is the last 6 of the 8 listed.
  const secret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

  it('matches the RFC 6238 test vectors', () => {
    expect(base32Decode(secret).toString('ascii')).toBe('12345678901234567890');
    expect(totpCode(secret, 59)).toBe('287082');
    expect(totpCode(secret, 1111111109)).toBe('081804');
    expect(totpCode(secret, 2000000000)).toBe('279037');
  });

  it('accepts one step of drift, not more', () => {
    expect(verifyTotp(secret, '287082', 59 + 30)).toBe(true);
    expect(verifyTotp(secret, '287082', 59 + 61)).toBe(false);
    expect(verifyTotp(secret, 'abcdef', 59)).toBe(false);
  });
});
