/**
 * A tiny seeded pseudo-random generator (mulberry32), so a preset and a seed always produce the
 * same cluster: tests can name VMIDs and guest names without reading them back first.
 */
export interface Rng {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max] (both inclusive). */
  int(min: number, max: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** `n` lowercase hex digits. */
  hex(n: number): string;
}

export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new RangeError('pick() needs a non-empty list');
      return items[Math.floor(next() * items.length)] as T;
    },
    hex: (n) => {
      let out = '';
      while (out.length < n)
        out += Math.floor(next() * 0x10000)
          .toString(16)
          .padStart(4, '0');
      return out.slice(0, n);
    },
  };
}

/**
 * Stateless noise in [0, 1) for (key, tick): runtime metrics are a pure function of guest and
 * time, so they move every tick without timers and read the same from every endpoint.
 */
export function noise(key: number, tick: number): number {
  let h = Math.imul(key ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(tick + 0x632be5ab, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
}
