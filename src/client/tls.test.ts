import { describe, expect, it } from 'vitest';
import { parseFingerprint } from './tls.js';

const HEX = 'ab'.repeat(31) + '0f';

describe('parseFingerprint', () => {
  it('accepts colon-hex in any case and bare hex, returning uppercase colon-hex', () => {
    const canonical = (HEX.toUpperCase().match(/../g) as string[]).join(':');
    expect(parseFingerprint(canonical.toLowerCase())).toBe(canonical);
    expect(parseFingerprint(HEX)).toBe(canonical);
    expect(parseFingerprint(`  ${canonical}\n`)).toBe(canonical);
  });

  it('rejects SHA-1 length, non-hex and empty input', () => {
    expect(parseFingerprint('AB:CD:EF')).toBeUndefined();
    expect(parseFingerprint('zz'.repeat(32))).toBeUndefined();
    expect(parseFingerprint('')).toBeUndefined();
  });
});
