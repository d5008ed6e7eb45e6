/**
 * The audit's copy of a script's source, without the secrets written in it. Which literals are
 * secret is found where the script is parsed — the type-check process or the sandbox worker
 * (src/script/secret-literals.ts) — never here: the server does not parse, scan or transform a
 * script, so no script's shape can stall it. Here the source is only cut at the offsets the
 * compile returned.
 *
 * Those offsets come from a child process the server does not trust. They are checked (in order,
 * inside the source, not overlapping, each between a pair of the same quotes) so a broken or
 * compromised child can hide more of the source than it should, marked as redacted, but can never
 * make the audit show text the script does not contain.
 */
import type { SecretScan } from '../script/compiled.js';
import { REDACTED } from './redact.js';

/** Why an audit entry holds no source: what the entry says instead. */
export function withheldSource(reason: string): string {
  return `[source withheld: ${reason}]`;
}

/**
 * `source` with each span replaced by `REDACTED`; the whole source withheld when no compile read
 * it (`scan` missing) or the spans are not valid for it.
 */
export function auditSource(source: string, scan: SecretScan | undefined): string {
  if (!scan) return withheldSource('no compile read it for secret literals (too large, or the compiler was lost)');
  const QUOTES = '\'"`}';
  let out = '';
  let at = 0;
  for (const [start, end] of scan.spans) {
    // A template's text runs from a backtick or a `}` to a backtick or a `${`.
    const opens = QUOTES.includes(source.charAt(start - 1));
    const closes = end === source.length || '\'"`$\n'.includes(source.charAt(end));
    if (start < at || end < start || end > source.length || !opens || !closes) return withheldSource('the compile returned invalid secret offsets');
    out += source.slice(at, start) + REDACTED;
    at = end;
  }
  return out + source.slice(at);
}
