/**
 * A minimal MCP Apps host for the view tests, written to the ext-apps specification (2026-01-26)
 * with the SDK's own host side (`AppBridge`, `PostMessageTransport` from
 * `@modelcontextprotocol/ext-apps/app-bridge`): the view's HTML in a sandboxed iframe (scripts
 * only, opaque origin) under the CSP the host builds from the resource's `_meta.ui.csp`, the
 * ui/initialize handshake, then the tool's input and result. The MCP side (tools/list,
 * resources/read, tools/call) is a real SDK client in the test process; the page gets what it
 * fetched, as a host's UI gets it from the host's client.
 *
 * The bridge is bundled for the browser once per run with esbuild (Vite's bundler, installed with
 * it), from the package in node_modules: no network.
 */
import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';

const ENTRY = `
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
window.mountView = async ({ html, csp, tool, input, result }) => {
  const frame = document.getElementById('view');
  const state = (window.hostState = { initialized: false, openedLinks: [], logs: [] });
  const bridge = new AppBridge(null, { name: 'pve-test-host', version: '1.0.0' }, { openLinks: {}, logging: {} }, {
    hostContext: { theme: 'light', displayMode: 'inline', platform: 'web', toolInfo: { tool } },
  });
  bridge.onopenlink = async ({ url }) => {
    state.openedLinks.push(url);
    return {};
  };
  bridge.onloggingmessage = (params) => state.logs.push(params);
  bridge.onsizechange = ({ height }) => {
    if (height) frame.style.height = height + 'px';
  };
  bridge.oninitialized = async () => {
    state.initialized = true;
    await bridge.sendToolInput({ arguments: input });
    await bridge.sendToolResult(result);
  };
  // The host's CSP first in <head>: both it and the view's own policy apply.
  const meta = '<meta http-equiv="Content-Security-Policy" content="' + csp + '">';
  frame.srcdoc = html.replace(/<head>/i, '<head>' + meta);
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
};
`;

let bundled: Promise<string> | undefined;

function hostScript(): Promise<string> {
  bundled ??= build({
    stdin: { contents: ENTRY, resolveDir: process.cwd(), loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  }).then((out) => out.outputFiles[0]!.text);
  return bundled;
}

/** The CSP a host derives from `_meta.ui.csp` (the spec's mapping; empty lists allow nothing). */
export function hostCsp(csp: { connectDomains?: string[]; resourceDomains?: string[]; frameDomains?: string[]; baseUriDomains?: string[] } = {}): string {
  const list = (domains: string[] | undefined, none = "'none'") => (domains && domains.length > 0 ? domains.join(' ') : none);
  const resources = (csp.resourceDomains ?? []).join(' ');
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${resources}`.trim(),
    `style-src 'unsafe-inline' ${resources}`.trim(),
    `img-src data: ${resources}`.trim(),
    `font-src ${list(csp.resourceDomains)}`,
    `connect-src ${list(csp.connectDomains)}`,
    `frame-src ${list(csp.frameDomains)}`,
    `base-uri ${list(csp.baseUriDomains)}`,
  ].join('; ');
}

export interface MountedView {
  /** The view's document (inside the iframe). */
  frame: ReturnType<Page['frameLocator']>;
  /** Links the view asked the host to open. */
  openedLinks(): Promise<string[]>;
}

/** Loads the host page into `page` and shows one tool call's result in the view. */
export async function mountView(page: Page, view: { html: string; csp: string; tool: Tool; input: Record<string, unknown>; result: CallToolResult }): Promise<MountedView> {
  const script = await hostScript();
  await page.setContent(
    `<!doctype html><html><head><style>body{margin:0;background:#e9ecef;font-family:sans-serif}` +
      `#view{display:block;width:900px;height:200px;border:1px solid #ced4da;background:#fff;margin:12px}</style></head>` +
      `<body><iframe id="view" sandbox="allow-scripts" title="run_script view"></iframe><script type="module">${script.replace(/<\/script/gi, '<\\/script')}</script></body></html>`,
  );
  await page.waitForFunction(() => typeof (window as unknown as { mountView?: unknown }).mountView === 'function');
  await page.evaluate((v) => (window as unknown as { mountView(v: unknown): Promise<void> }).mountView(v), view);
  await page.waitForFunction(() => (window as unknown as { hostState?: { initialized: boolean } }).hostState?.initialized === true, undefined, { timeout: 15_000 });
  return {
    frame: page.frameLocator('#view'),
    openedLinks: () => page.evaluate(() => (window as unknown as { hostState: { openedLinks: string[] } }).hostState.openedLinks.slice()),
  };
}
