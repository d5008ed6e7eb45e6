/**
 * SHA-256 crypt (`$5$salt$hash`, 5000 rounds), the scheme PVE hashes cloud-init passwords with
 * before it stores them, so the config and the cloud-init user data carry a real crypt(3) hash.
 * Implemented from the published SHA-crypt specification.
 */
import { createHash } from 'node:crypto';

const ITOA64 = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ROUNDS = 5000;

const sha256 = (...parts: Buffer[]): Buffer => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

/** `length` bytes of `block` repeated. */
function stretch(block: Buffer, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i += block.length) block.copy(out, i, 0, Math.min(block.length, length - i));
  return out;
}

export function sha256Crypt(password: string, saltText: string): string {
  const p = Buffer.from(password, 'utf8');
  const s = Buffer.from(saltText.slice(0, 16), 'utf8');
  const b = sha256(p, s, p);
  const a = createHash('sha256');
  a.update(p);
  a.update(s);
  a.update(stretch(b, p.length));
  for (let n = p.length; n > 0; n >>= 1) a.update(n & 1 ? b : p);
  const aDigest = a.digest();
  const dp = sha256(...Array.from({ length: p.length }, () => p));
  const pBytes = stretch(dp, p.length);
  const ds = sha256(...Array.from({ length: 16 + (aDigest[0] as number) }, () => s));
  const sBytes = stretch(ds, s.length);
  let c = aDigest;
  for (let i = 0; i < ROUNDS; i++) {
    const h = createHash('sha256');
    h.update(i & 1 ? pBytes : c);
    if (i % 3 !== 0) h.update(sBytes);
    if (i % 7 !== 0) h.update(pBytes);
    h.update(i & 1 ? c : pBytes);
    c = h.digest();
  }
  let out = '';
  const emit = (b2: number, b1: number, b0: number, n: number): void => {
    let w = ((c[b2] ?? 0) << 16) | ((c[b1] ?? 0) << 8) | (c[b0] ?? 0);
    for (let i = 0; i < n; i++) {
      out += ITOA64[w & 0x3f];
      w >>= 6;
    }
  };
  const order: Array<[number, number, number]> = [
    [0, 10, 20],
    [21, 1, 11],
    [12, 22, 2],
    [3, 13, 23],
    [24, 4, 14],
    [15, 25, 5],
    [6, 16, 26],
    [27, 7, 17],
    [18, 28, 8],
    [9, 19, 29],
  ];
  for (const [x, y, z] of order) emit(x, y, z, 4);
  let w = ((c[31] ?? 0) << 8) | (c[30] ?? 0);
  for (let i = 0; i < 3; i++) {
    out += ITOA64[w & 0x3f];
    w >>= 6;
  }
  return `$5$${s.toString('utf8')}$${out}`;
}
