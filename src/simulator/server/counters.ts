/** Request counters for tests and benchmarks: calls per `METHOD template`, and writes that reached a handler. */
export interface CounterSnapshot {
  total: number;
  writes: number;
  byOperation: Record<string, number>;
}

const RECENT_ARRIVALS = 64;

export class RequestCounters {
  private readonly byOperation = new Map<string, number>();
  private total = 0;
  private writes = 0;
  /** The last keys in the order they arrived: order-sensitive tests read it. */
  private readonly arrivals: string[] = [];

  /** Count an API request; `key` is `METHOD /template`, or `METHOD (unmatched)` for unknown paths. */
  request(key: string): void {
    this.total++;
    this.byOperation.set(key, (this.byOperation.get(key) ?? 0) + 1);
    this.arrivals.push(key);
    if (this.arrivals.length > RECENT_ARRIVALS) this.arrivals.shift();
  }

  /** Up to the last 64 request keys, oldest first. */
  recent(): string[] {
    return [...this.arrivals];
  }

  write(): void {
    this.writes++;
  }

  get(key: string): number {
    return this.byOperation.get(key) ?? 0;
  }

  snapshot(): CounterSnapshot {
    return { total: this.total, writes: this.writes, byOperation: Object.fromEntries(this.byOperation) };
  }

  reset(): void {
    this.byOperation.clear();
    this.arrivals.length = 0;
    this.total = 0;
    this.writes = 0;
  }
}
