/**
 * Plain-text result tables for benchmarks: aligned columns, numbers right-aligned, plus the
 * statistics benchmarks report (median, p95, ratios). No timing logic here, only presentation.
 */

export type Cell = string | number;

export interface Table {
  title: string;
  columns: string[];
  rows: Cell[][];
  /** Lines printed under the table (targets, caveats, what a column means). */
  notes?: string[];
}

export interface Summary {
  n: number;
  min: number;
  median: number;
  p95: number;
  max: number;
}

/** Nearest-rank percentile (p in 0..100) of unsorted samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

export function summarize(samples: readonly number[]): Summary {
  return {
    n: samples.length,
    min: Math.min(...samples),
    median: median(samples),
    p95: percentile(samples, 95),
    max: Math.max(...samples),
  };
}

/** Milliseconds with precision that suits the magnitude (0.012, 1.35, 12.4, 321). */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return '-';
  if (value < 0.1) return value.toFixed(3);
  if (value < 10) return value.toFixed(2);
  if (value < 100) return value.toFixed(1);
  return value.toFixed(0);
}

export function pct(fraction: number): string {
  return Number.isFinite(fraction) ? `${(fraction * 100).toFixed(1)}%` : '-';
}

/** `a / b` as "2.50×"; "-" when b is zero or either is not a number. */
export function ratio(a: number, b: number): string {
  return Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? `${(a / b).toFixed(2)}×` : '-';
}

/** "ok" or "MISSED" against an upper bound, for target columns. */
export function withinTarget(value: number, max: number): string {
  return value <= max ? 'ok' : 'MISSED';
}

export function renderTable(table: Table): string {
  const header = table.columns;
  const body = table.rows.map((row) => header.map((_, i) => cellText(row[i])));
  const numeric = header.map((_, i) => table.rows.length > 0 && table.rows.every((row) => isNumberLike(row[i])));
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] as string).length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (numeric[i] ? c.padStart(widths[i] as number) : c.padEnd(widths[i] as number)))
      .join('  ')
      .trimEnd();
  const out = [table.title, line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)];
  for (const note of table.notes ?? []) out.push(`  ${note}`);
  return out.join('\n');
}

function cellText(cell: Cell | undefined): string {
  if (cell === undefined) return '';
  return typeof cell === 'number' ? String(cell) : cell;
}

function isNumberLike(cell: Cell | undefined): boolean {
  if (typeof cell === 'number') return true;
  return typeof cell === 'string' && /^[-+]?[\d.,]+(%|×|\s?ms)?$|^-$/.test(cell);
}
