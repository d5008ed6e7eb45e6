/**
 * Whether a firewall rule's `source` reaches the management network: the datacenter's
 * `management` IP set when it is defined, else the cluster's local network (the API node's
 * address with its prefix), as PVE uses them. A DROP or REJECT on 8006/22 from such a source
 * cuts the operators' own path, which PVE's built-in management rules (checked after the
 * operator's rules) do not restore. An entry that cannot be resolved (a negation, an IP set or
 * alias that cannot be read, a management network that is not known) may include it: it counts
 * as the worst case.
 */
import type { BlastReads } from './blast-radius.js';

export type SourceReach = 'includes' | 'may' | 'excludes';

type Range = [number, number];

function ipv4(text: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + p, 0);
}

/** An IPv4 address, network or range as a numeric range; undefined for anything else. */
export function rangeOf(text: string): Range | undefined {
  const range = /^([\d.]+)-([\d.]+)$/.exec(text);
  if (range) {
    const lo = ipv4(range[1] ?? '');
    const hi = ipv4(range[2] ?? '');
    return lo !== undefined && hi !== undefined && lo <= hi ? [lo, hi] : undefined;
  }
  const [addr, bits] = text.split('/');
  const base = ipv4(addr ?? '');
  const prefix = bits === undefined ? 32 : Number(bits);
  if (base === undefined || !Number.isInteger(prefix) || prefix < 0 || prefix > 32) return undefined;
  const size = 2 ** (32 - prefix);
  const lo = Math.floor(base / size) * size;
  return [lo, lo + size - 1];
}

const overlaps = (a: Range, b: Range): boolean => a[0] <= b[1] && b[0] <= a[1];

/** Classifies rule sources against the management network, reading what it needs once. */
export class SourceClassifier {
  private management?: Promise<Range[] | undefined>;

  constructor(
    private readonly r: BlastReads,
    private readonly apiNode: { node: string; ip?: string } | undefined,
  ) {}

  async classify(source: string): Promise<SourceReach> {
    const entries = source
      .split(',')
      .map((e) => e.trim())
      .filter((e) => e !== '');
    let worst: SourceReach = 'excludes';
    for (const e of entries) {
      const reach = await this.entry(e, 0);
      if (reach === 'includes') return 'includes';
      if (reach === 'may') worst = 'may';
    }
    return worst;
  }

  private async entry(e: string, depth: number): Promise<SourceReach> {
    if (e.startsWith('!') || depth > 2) return 'may';
    if (e.startsWith('+')) {
      const name = e.replace(/^\+(dc\/)?/, '');
      if (name === 'management') return 'includes';
      if (name.includes('/')) return 'may';
      const set = await this.r.list(`/cluster/firewall/ipset/${encodeURIComponent(name)}`);
      if (!set) return 'may';
      let worst: SourceReach = 'excludes';
      // Excluded (`nomatch`) entries are ignored: counting them keeps the answer on the safe side.
      for (const x of set) {
        const reach = typeof x.cidr === 'string' ? await this.entry(x.cidr, depth + 1) : 'may';
        if (reach === 'includes') return 'includes';
        if (reach === 'may') worst = 'may';
      }
      return worst;
    }
    const range = rangeOf(e);
    // The management ranges read are IPv4 (else they are unknown): an IPv6 entry cannot overlap them.
    if (!range && e.includes(':')) return (await this.managementRanges()) ? 'excludes' : 'may';
    if (!range) {
      const alias = /^(?:dc\/)?([A-Za-z][A-Za-z0-9_-]*)$/.exec(e)?.[1];
      if (!alias) return 'may';
      const def = await this.r.object(`/cluster/firewall/aliases/${encodeURIComponent(alias)}`);
      return typeof def?.cidr === 'string' ? this.entry(def.cidr, depth + 1) : 'may';
    }
    const mgmt = await this.managementRanges();
    if (!mgmt) return 'may';
    return mgmt.some((m) => overlaps(m, range)) ? 'includes' : 'excludes';
  }

  /** The `management` IP set's addresses, else the API node's local network; undefined when unknown. */
  private managementRanges(): Promise<Range[] | undefined> {
    this.management ??= (async () => {
      const sets = await this.r.list('/cluster/firewall/ipset');
      if (sets?.some((s) => s.name === 'management')) {
        const entries = (await this.r.list('/cluster/firewall/ipset/management')) ?? [];
        const ranges = entries.map((x) => (typeof x.cidr === 'string' ? rangeOf(x.cidr) : undefined));
        return ranges.every((x) => x !== undefined) ? (ranges as Range[]) : undefined;
      }
      if (!sets || !this.apiNode?.ip) return undefined;
      const ifaces = await this.r.list(`/nodes/${encodeURIComponent(this.apiNode.node)}/network`);
      const local = ifaces?.find((i) => typeof i.cidr === 'string' && i.cidr.split('/')[0] === this.apiNode?.ip);
      const range = typeof local?.cidr === 'string' ? rangeOf(local.cidr) : undefined;
      return range ? [range] : undefined;
    })();
    return this.management;
  }
}
