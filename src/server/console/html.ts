/**
 * The console's HTML: every page is rendered here on the server from escaped text, with no
 * script at all, one stylesheet served from the console itself, and the headers that keep the
 * pages from being framed, sniffed, cached or sent elsewhere (docs/console.md).
 */
import type { ServerResponse } from 'node:http';

/** Text for HTML element content and double-quoted attribute values. */
export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A fragment of already-escaped HTML; only the functions here make one. */
export interface Html {
  readonly html: string;
}

/** A tagged template whose substitutions are escaped unless they are `Html` already (or arrays of it). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    out += piece(v) + (strings[i + 1] ?? '');
  });
  return { html: out };
}

function piece(v: unknown): string {
  if (v === undefined || v === null || v === false) return '';
  if (Array.isArray(v)) return v.map(piece).join('');
  if (typeof v === 'object' && 'html' in v && typeof (v as Html).html === 'string') return (v as Html).html;
  return esc(v);
}

/**
 * No script may run (there is none), styles only from the console's own stylesheet, forms post
 * only to the console, and no site may frame it (clickjacking an Approve button).
 */
export const CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CSP,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  // Not no-referrer: under it Chromium sends `Origin: null` with the console's own forms, which
  // the Origin check (rightly) refuses. Same-origin keeps plan URLs from leaving the console.
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

export interface PageOptions {
  title: string;
  /** The explorer is served (a server with clusters): the header links to it. */
  explorer?: boolean;
  /** Who is logged in, with the logout form's CSRF token. */
  user?: { id: string; csrf: string };
  /** A same-site navigation after a cross-site redirect (see the callback): the session cookie is SameSite=Strict. */
  refreshTo?: string;
}

export function page(options: PageOptions, body: Html): string {
  const nav = options.user
    ? html`<nav><a href="/console/">Plans</a> <a href="/console/runs">Runs</a>${options.explorer ? html`<a href="/console/explore">Explorer</a>` : ''}<form method="post" action="/console/logout" class="logout"><input type="hidden" name="csrf" value="${options.user.csrf}"><span class="who">${options.user.id}</span> <button type="submit">Sign out</button></form></nav>`
    : html``;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
${options.refreshTo ? `<meta http-equiv="refresh" content="0;url=${esc(options.refreshTo)}">` : ''}<title>${esc(options.title)} · pve-code-mcp console</title>
<link rel="stylesheet" href="/console/style.css"></head>
<body><header><h1>pve-code-mcp console</h1>${nav.html}</header><main>${body.html}</main></body></html>
`;
}

export function sendHtml(res: ServerResponse, status: number, body: string, headers: Record<string, string | string[]> = {}): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': 'text/html; charset=utf-8', ...headers });
  res.end(body);
}

export const STYLESHEET = `
:root { color-scheme: light; font-family: system-ui, sans-serif; }
body { margin: 0; background: #f6f7f9; color: #1d2430; }
header { display: flex; align-items: center; justify-content: space-between; padding: .6rem 1.2rem; background: #243042; color: #fff; }
header h1 { font-size: 1.05rem; margin: 0; }
header a { color: #cfe0ff; margin-right: 1rem; }
nav { display: flex; align-items: center; }
.logout { display: inline; margin-left: 1rem; }
.who { font-weight: 600; margin-right: .4rem; }
main { padding: 1rem 1.2rem; max-width: 72rem; }
h2 { font-size: 1.2rem; }
table { border-collapse: collapse; width: 100%; background: #fff; margin-bottom: 1rem; }
th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid #dde2ea; vertical-align: top; font-size: .92rem; }
th { background: #eef1f6; }
code, pre { font-family: ui-monospace, monospace; font-size: .85rem; }
textarea { font-family: ui-monospace, monospace; width: 100%; }
pre { white-space: pre-wrap; word-break: break-word; margin: .2rem 0; }
.step { background: #fff; border: 1px solid #dde2ea; border-radius: 6px; padding: .6rem .8rem; margin-bottom: .7rem; }
.summary { font-weight: 600; }
.risk { display: inline-block; padding: 0 .4rem; border-radius: 4px; background: #eef1f6; font-size: .8rem; }
.risk.destructive, .risk.privileged { background: #ffe1e1; }
.needs { color: #a33; font-weight: 600; }
.blast { border-left: 3px solid #d98a00; padding-left: .6rem; margin: .4rem 0 .5rem; }
.blast.partial { border-left-color: #a31515; }
.blast ul { margin: .3rem 0; padding-left: 1.2rem; }
.blast .family { font-size: .8rem; color: #5a6475; }
.blast li.severe { color: #a31515; }
.sev { display: inline-block; padding: 0 .35rem; border-radius: 4px; background: #a31515; color: #fff; font-size: .75rem; font-weight: 600; }
.incomplete { background: #ffe9e9; border: 1px solid #e09a9a; padding: .3rem .6rem; border-radius: 5px; margin: .3rem 0; }
.notes { background: #fff; border: 1px solid #e0c96b; border-radius: 6px; padding: .2rem .8rem; margin: .7rem 0; }
.notes h2 { font-size: 1rem; }
.not-undone b { color: #a31515; }
.status { font-weight: 600; }
.ok { color: #126b2a; } .bad { color: #a31515; }
.actions { display: flex; gap: 1rem; margin: 1rem 0; }
.actions button { font-size: 1rem; padding: .4rem 1.2rem; border-radius: 5px; border: 1px solid #888; cursor: pointer; }
.approve { background: #1f7a3a; color: #fff; }
.decline { background: #fff; color: #a31515; }
.notice { background: #fff8dc; border: 1px solid #e0c96b; padding: .5rem .8rem; border-radius: 5px; }
.error { background: #ffe9e9; border: 1px solid #e09a9a; padding: .5rem .8rem; border-radius: 5px; }
`;
