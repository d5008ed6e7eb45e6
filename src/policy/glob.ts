/**
 * Operation patterns for policy rules: `METHOD /path/glob`.
 *
 * - METHOD is `GET`, `POST`, `PUT`, `DELETE`, `*`, or a comma list (`POST,DELETE`).
 * - In the path, `*` matches within one segment (`/status/*`, `vm-*`), `**` matches any number of
 *   whole segments (including none), `{a,b}` matches either literal, and `{name}` (no comma)
 *   matches the template placeholder literally, so `/nodes/{node}/qemu` names the template.
 *
 * A pattern is tested against both the concrete path and the operation's template, so rules can
 * be written either way (`DELETE /nodes/*\/qemu/101` or `POST /nodes/{node}/qemu/{vmid}/status/stop`).
 */
import { HTTP_METHODS, type HttpMethod } from '../schema/model.js';

export interface OpPattern {
  /** The pattern as written, for messages. */
  source: string;
  methods: ReadonlySet<HttpMethod>;
  path: RegExp;
}

export class PatternError extends Error {
  constructor(pattern: string, reason: string) {
    super(`invalid operation pattern '${pattern}': ${reason}. Expected 'METHOD /path/glob', e.g. 'POST /nodes/*/qemu/*/status/*'.`);
    this.name = 'PatternError';
  }
}

export function compileOpPattern(source: string): OpPattern {
  const m = /^\s*([A-Za-z*,]+)\s+(\/\S*)\s*$/.exec(source);
  if (!m?.[1] || !m[2]) throw new PatternError(source, 'it needs a method and a path starting with /');
  return { source, methods: parseMethods(source, m[1]), path: compilePathGlob(source, m[2]) };
}

function parseMethods(source: string, text: string): Set<HttpMethod> {
  if (text === '*') return new Set(HTTP_METHODS);
  const methods = new Set<HttpMethod>();
  for (const part of text.toUpperCase().split(',')) {
    if (!(HTTP_METHODS as readonly string[]).includes(part)) {
      throw new PatternError(source, `unknown method '${part}' (use ${HTTP_METHODS.join(', ')} or *)`);
    }
    methods.add(part as HttpMethod);
  }
  return methods;
}

function compilePathGlob(source: string, glob: string): RegExp {
  const segments = glob.split('/').slice(1);
  if (segments.length === 1 && segments[0] === '') return /^\/$/;
  let re = '';
  for (const seg of segments) {
    if (seg === '') throw new PatternError(source, 'empty path segment');
    if (seg === '**') {
      re += '(?:/[^/]+)*';
      continue;
    }
    if (seg.includes('**')) throw new PatternError(source, "'**' must be a whole segment");
    re += '/' + compileSegment(seg);
  }
  return new RegExp(`^${re}$`);
}

/** One path segment of a glob as a regex source (`*`, `{a,b}`, `{name}` literal). */
export function compileSegment(seg: string): string {
  let out = '';
  let i = 0;
  while (i < seg.length) {
    const ch = seg[i] as string;
    if (ch === '*') {
      out += '[^/]*';
      i++;
    } else if (ch === '{') {
      const close = seg.indexOf('}', i);
      const body = close > i ? seg.slice(i + 1, close) : '';
      if (close > i && body.includes(',')) {
        out += `(?:${body.split(',').map(escapeRegex).join('|')})`;
      } else {
        out += escapeRegex(close > i ? seg.slice(i, close + 1) : ch);
      }
      i = close > i ? close + 1 : i + 1;
    } else {
      out += escapeRegex(ch);
      i++;
    }
  }
  return out;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function matchesOp(pattern: OpPattern, method: HttpMethod, paths: readonly string[]): boolean {
  return pattern.methods.has(method) && paths.some((p) => pattern.path.test(p));
}
