/**
 * Compact text renderings of the tool answers. Clients without structured-content support show
 * this text to the model, so it carries the same facts in as few tokens as possible.
 */
import type { RunScriptOutput } from '../../app/product.js';
import type { DescribeResult } from '../../describe/index.js';

export function renderSearchText(query: string, lines: string[]): string {
  if (lines.length === 0) return `No operations match "${query}". Try other words (e.g. the object: vm, container, storage, node) or a pathPrefix.`;
  return lines.join('\n');
}

export function renderSchemaText(described: DescribeResult): string {
  const parts = described.operations.map((o) => o.signature);
  for (const miss of described.notFound) {
    const hint = miss.suggestions.length > 0 ? ` Did you mean: ${miss.suggestions.join(', ')}?` : ' Use search_api to find it.';
    parts.push(`Not found: ${miss.spec}.${hint}`);
  }
  return parts.join('\n\n');
}

export function renderRunText(output: RunScriptOutput): string {
  const lines: string[] = [];
  // First, so a model cannot read the (valid, shorter) JSON without seeing that it is partial.
  const truncated = output.truncated as { note?: string } | undefined;
  if (truncated?.note) lines.push(`TRUNCATED: ${truncated.note}.`);
  if (output.ok) {
    lines.push(output.result === undefined ? '(no return value)' : JSON.stringify(output.result));
  } else {
    const error = (output.error ?? {}) as { kind?: string; message?: string; line?: number; col?: number };
    const where = error.line !== undefined ? ` at ${error.line}:${error.col ?? 1}` : '';
    lines.push(`error [${error.kind ?? 'unknown'}]${where}: ${error.message ?? 'the run failed'}`);
  }
  if (output.plan) {
    const plan = output.plan as { planId: string; summary?: string };
    lines.push(`plan ${plan.planId}:\n${plan.summary ?? ''}`);
  }
  if (output.warnings) {
    for (const w of output.warnings as Array<{ line: number; col: number; message: string }>) {
      lines.push(`warning ${w.line}:${w.col} ${w.message}`);
    }
  }
  if (output.logs.length > 0) lines.push(`logs:\n${output.logs.join('\n')}`);
  lines.push(renderStats(output.stats as { ms?: number; calls?: Record<string, number> }));
  return lines.join('\n');
}

/** `(42 ms; read 3, write 1)`: only the non-zero call counters, since this line is paid for on every run. */
function renderStats(stats: { ms?: number; calls?: Record<string, number> }): string {
  const calls = Object.entries(stats.calls ?? {})
    .filter(([key, n]) => key !== 'total' && n > 0)
    .map(([key, n]) => `${key} ${n}`);
  return `(${stats.ms ?? 0} ms; ${calls.length > 0 ? calls.join(', ') : 'no calls'})`;
}
