/** Plain-text tables for terminal output of returned rows. */

/** The rows as CSV (RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled). */
export function renderCsv(rows: readonly unknown[]): string {
  const { columns, objects } = tabulate(rows);
  const field = (v: unknown): string => {
    const text = v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  return [columns.map(field).join(','), ...objects.map((row) => columns.map((c) => field(row[c])).join(','))].join('\r\n');
}

function tabulate(rows: readonly unknown[]): { columns: string[]; objects: Array<Record<string, unknown>> } {
  const objects = rows.map((r) => (r !== null && typeof r === 'object' && !Array.isArray(r) ? (r as Record<string, unknown>) : { value: r }));
  const columns: string[] = [];
  for (const row of objects) for (const key of Object.keys(row)) if (!columns.includes(key)) columns.push(key);
  return { columns, objects };
}

export function renderTable(rows: readonly unknown[]): string {
  if (rows.length === 0) return '(no rows)';
  const { columns, objects } = tabulate(rows);
  const cell = (v: unknown): string => (v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  const body = objects.map((row) => columns.map((c) => cell(row[c])));
  const widths = columns.map((c, i) => Math.min(60, Math.max(c.length, ...body.map((r) => (r[i] as string).length))));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => c.slice(0, widths[i]).padEnd(widths[i] as number))
      .join('  ')
      .trimEnd();
  return [line(columns), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}
