/**
 * Schema `pattern`s are Perl regexes, often stringified compiled ones (`(?^:…)`, `(?^i:…)`).
 * PVE matches them anchored (`m/^$pattern$/`). JavaScript before V8 12.5 has no inline modifier
 * groups, so a case-insensitive group makes the whole match case-insensitive (slightly more
 * lenient, never stricter). Patterns JavaScript cannot compile are not enforced.
 */
const cache = new Map<string, RegExp | null>();

export function compilePerlPattern(pattern: string): RegExp | undefined {
  const hit = cache.get(pattern);
  if (hit !== undefined) return hit ?? undefined;
  let flags = '';
  const source = pattern.replace(/\(\?\^([a-z]*):/g, (_m, mods: string) => {
    if (mods.includes('i')) flags = 'i';
    return '(?:';
  });
  let compiled: RegExp | null;
  try {
    compiled = new RegExp(`^(?:${source})$`, flags);
  } catch {
    compiled = null;
  }
  cache.set(pattern, compiled);
  return compiled ?? undefined;
}
