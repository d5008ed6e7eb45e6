/**
 * One search result and its one-line rendering for the model: `METHOD /path — summary [risk]`,
 * under a policy `[risk, verdict; raised by p1, p2]`.
 * A line must stay within LINE_TOKEN_BUDGET tokens so ten hits cost a few hundred tokens at most;
 * the summary is what gets trimmed, never the path the model has to copy.
 */
import type { HttpMethod, OperationKey, RiskClass } from '../schema/model.js';

export interface SearchHit {
  key: OperationKey;
  method: HttpMethod;
  path: string;
  summary: string;
  risk: RiskClass;
  /** Relevance, comparable only within one result list. */
  score: number;
  /**
   * What the cluster's policy says at default parameters (`allowed`, `needs approval`, `refused`,
   * `in scope only`), followed by `; not in simulator` where the server behind the cluster does not answer it.
   */
  verdict?: string;
  /** Parameters that raise the operation's class. */
  raisedBy?: string[];
}

export const LINE_TOKEN_BUDGET = 40;

/** Cap on summary length even when the budget would allow more: a listing line, not documentation. */
const SUMMARY_MAX_CHARS = 90;
/** Conservative characters per token for English summary text (measured on PVE summaries). */
const SUMMARY_CHARS_PER_TOKEN = 3;
/** Tokens of the fixed frame: method, spaces, dash, brackets and the longest risk word. */
const FRAME_TOKENS = 7;
/** Raising parameters named on a line; the rest are counted (get_schema lists them all). */
const MAX_RAISERS = 2;
/** Characters per token assumed for the tag's extra text (verdict words, parameter names): conservative. */
const TAG_CHARS_PER_TOKEN = 2;

export function formatHit(hit: SearchHit): string {
  const tag = hitTag(hit);
  const extra = Math.ceil((tag.length - hit.risk.length - 2) / TAG_CHARS_PER_TOKEN);
  const budget = LINE_TOKEN_BUDGET - FRAME_TOKENS - extra - estimatePathTokens(hit.path);
  const maxChars = Math.min(SUMMARY_MAX_CHARS, Math.max(0, budget - 1) * SUMMARY_CHARS_PER_TOKEN);
  const summary = trimSummary(hit.summary, maxChars);
  return summary ? `${hit.method} ${hit.path} — ${summary} ${tag}` : `${hit.method} ${hit.path} ${tag}`;
}

/** `[write]`, `[write, needs approval]`, `[write, allowed; raised by forceStop, skiplock]`. */
function hitTag(hit: SearchHit): string {
  const raisers = hit.raisedBy ?? [];
  const names = raisers.slice(0, MAX_RAISERS).join(', ') + (raisers.length > MAX_RAISERS ? ` +${raisers.length - MAX_RAISERS}` : '');
  return `[${hit.risk}${hit.verdict ? `, ${hit.verdict}` : ''}${raisers.length > 0 ? `; raised by ${names}` : ''}]`;
}

/**
 * Upper estimate of the tokens of a path template: BPE tokenizers split paths at every slash and
 * brace and rarely merge more than four characters of an identifier (checked against every path of
 * the 9.1, 8.4 and 7.3 schemas: never below the real count).
 */
function estimatePathTokens(path: string): number {
  let tokens = 0;
  for (const segment of path.split('/')) {
    if (segment.length === 0) continue;
    const isParam = segment.startsWith('{');
    tokens += 1 + Math.ceil(segment.replace(/[{}]/g, '').length / 4) + (isParam ? 1 : 0);
  }
  return tokens;
}

function trimSummary(summary: string, maxChars: number): string {
  const text = summary
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[.:;,]$/, '');
  if (text.length <= maxChars) return text;
  if (maxChars < 8) return '';
  const cut = text.slice(0, maxChars - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > maxChars / 2 ? cut.slice(0, space) : cut).replace(/[\s.,;:]+$/, '')}…`;
}
