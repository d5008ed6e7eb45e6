/**
 * Named cluster shapes. `demo` is the one people look at (3 nodes, ~30 guests); `small` is a
 * stand-alone node; `scale-<N>` builds N guests spread over up to 50 nodes for benchmarks.
 */

export interface PresetSpec {
  name: string;
  /** Undefined: a stand-alone node without a corosync cluster. */
  clusterName?: string;
  nodes: number;
  guests: number;
  /** Seed used when the caller gives none. */
  defaultSeed: number;
  /**
   * `round-robin`: guest i on node i mod n (the small fixed presets, whose layout tests know);
   * `balanced`: node hardware sized to the load and guests placed where there is room, so every
   * node carries a mix of roles and no node, storage or CPU runs at 100%.
   */
  layout: 'round-robin' | 'balanced';
}

const FIXED: Record<string, Omit<PresetSpec, 'name'>> = {
  demo: { clusterName: 'demo', nodes: 3, guests: 30, defaultSeed: 1, layout: 'round-robin' },
  small: { nodes: 1, guests: 8, defaultSeed: 1, layout: 'round-robin' },
};

export const PRESET_NAMES = ['demo', 'small', 'scale-2000', 'scale-10000'] as const;

const MAX_GUESTS = 100_000;

export class UnknownPresetError extends Error {
  override name = 'UnknownPresetError';
  constructor(preset: string) {
    super(`Unknown simulator preset '${preset}': use ${PRESET_NAMES.join(', ')} or scale-<N> with N between 1 and ${MAX_GUESTS}.`);
  }
}

export function resolvePreset(name: string): PresetSpec {
  const fixed = FIXED[name];
  if (fixed) return { name, ...fixed };
  const m = /^scale-(\d+)$/.exec(name);
  const guests = m ? Number(m[1]) : NaN;
  if (!Number.isInteger(guests) || guests < 1 || guests > MAX_GUESTS) throw new UnknownPresetError(name);
  // About 200 guests per node, as dense production clusters run, capped at PVE's practical 50 nodes.
  const nodes = Math.min(50, Math.max(2, Math.ceil(guests / 200)));
  return { name, clusterName: 'scale', nodes, guests, defaultSeed: 1, layout: 'balanced' };
}
