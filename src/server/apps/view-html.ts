/**
 * The HTML of the run_script view, built at run time from files in the package: the view's own
 * scripts and style (views/, shipped beside the code) and the ext-apps view-side bundle
 * (`@modelcontextprotocol/ext-apps/app-with-deps`, a dependency), all inlined, so the view needs no
 * network at all. Its Content-Security-Policy allows exactly these inline script and style bodies
 * (by hash) and nothing else: no fetch, no remote script, image, font or frame.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { packageRoot } from '../../schema/package-root.js';

/** The view's scripts, concatenated in this order into one module (each uses the ones before it). */
const VIEW_SCRIPTS = ['format.js', 'table.js', 'json.js', 'chart.js', 'plan.js', 'main.js'] as const;
const VIEW_STYLE = 'view.css';
const EXT_APPS_BUNDLE = '@modelcontextprotocol/ext-apps/app-with-deps';

export class ViewFilesError extends Error {
  readonly code = 'view-files';
  constructor(message: string) {
    super(message);
    this.name = 'ViewFilesError';
  }
}

/** What a server tells its view; the same for every call of a session. */
export interface ViewConfig {
  version: string;
  /** The console's base URL (`https://mcp.example.lan:8765/console`); absent when the server runs on stdio. */
  consoleUrl?: string;
}

interface ViewParts {
  script: string;
  style: string;
  csp: string;
}

let cached: ViewParts | undefined;

/** The page; the parts are read and hashed once per process. */
export function viewHtml(config: ViewConfig): string {
  if (!cached) cached = loadParts();
  const parts = cached;
  // A data block, never executed; `<` is escaped so a value cannot close the element.
  const data = JSON.stringify(config).replace(/</g, '\\u003c');
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${parts.csp}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>pve-code-mcp run</title>',
    `<style>${parts.style}</style>`,
    '</head><body><main id="root"><p class="waiting">Waiting for the run…</p></main>',
    `<script type="application/json" id="pve-view-config">${data}</script>`,
    `<script type="module">${parts.script}</script>`,
    '</body></html>',
  ].join('\n');
}

function loadParts(): ViewParts {
  const dir = join(packageRoot(), 'views');
  const read = (file: string): string => {
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      throw new ViewFilesError(
        `the run_script view cannot be built: ${file} cannot be read (${err instanceof Error ? err.message : String(err)}); reinstall the package, whose files must include views/`,
      );
    }
  };
  const bundle = extAppsBundle(read(createRequire(import.meta.url).resolve(EXT_APPS_BUNDLE)));
  const script = [bundle, ...VIEW_SCRIPTS.map((f) => read(join(dir, f)))].join('\n;\n');
  const style = read(join(dir, VIEW_STYLE));
  // A closing tag inside the inlined text would end the element early.
  if (/<\/script/i.test(script) || /<\/style/i.test(style)) throw new ViewFilesError('the run_script view cannot be inlined: a script or style contains a closing tag');
  const csp = ["default-src 'none'", `script-src '${sha256(script)}'`, `style-src '${sha256(style)}'`, 'img-src data:', "base-uri 'none'", "form-action 'none'"].join('; ');
  return { script, style, csp };
}

/**
 * The ext-apps bundle is an ES module ending in one `export{local as Name, …}`; inlined into the
 * view's single module it becomes `const ExtApps = (() => {…; return {Name: local, …}})()`, which
 * the view's scripts use. The function keeps the bundle's minified top-level names out of theirs.
 */
export function extAppsBundle(source: string): string {
  const match = /export\s*\{([^{}]*)\}\s*;?\s*$/.exec(source);
  if (!match || source.slice(0, match.index).includes('export{')) {
    throw new ViewFilesError(`${EXT_APPS_BUNDLE} no longer ends in a single export list: the view's inlining needs updating for this ext-apps version`);
  }
  const entries = (match[1] ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => {
      const [local, exported] = part.split(/\s+as\s+/);
      return `${JSON.stringify(exported ?? local)}: ${local}`;
    });
  return `const ExtApps = (() => {\n${source.slice(0, match.index)}\nreturn {${entries.join(', ')}};\n})();`;
}

function sha256(text: string): string {
  return `sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}`;
}
