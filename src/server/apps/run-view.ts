/**
 * The run_script view (MCP Apps, `io.modelcontextprotocol/ui`), declared only to hosts that
 * negotiate it. Tools are registered before `initialize`, so nothing about the view is: once the
 * client's capabilities are known, a host that lists the MCP Apps HTML type gets run_script's
 * `_meta.ui` in its tools/list and the view's `ui://` resource; any other host sees the tools,
 * resources and results exactly as before. The listing is computed per request (src/server/mcp.ts)
 * and no tools/list can come before `initialize`, so the tools' list never changes for a session;
 * the resource is registered at `notifications/initialized` (the SDK then tells that host the
 * resource list changed).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { viewHtml, type ViewConfig } from './view-html.js';

export const RUN_VIEW_URI = 'ui://pve-code-mcp/run.html';

/**
 * The extension's identifier and HTML type, as `@modelcontextprotocol/ext-apps/server` exports them
 * (run-view.test.ts holds them equal): that module bundles the view side too, and importing it
 * would cost every server start ~57 ms on the way to its first tools/list.
 */
export const UI_EXTENSION_ID = 'io.modelcontextprotocol/ui';
export const UI_MIME_TYPE = 'text/html;profile=mcp-app';

/**
 * The view's sandbox: no network of any kind (empty domain lists are the spec's "none"), no
 * permissions. The HTML's own Content-Security-Policy says the same by hash.
 */
const VIEW_UI_META = { csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }, prefersBorder: true };

/**
 * run_script's `_meta.ui`: the view, and `visibility: ['model']` so a host that honours it
 * refuses the view's own calls to run_script (a view never starts or approves a run).
 */
const RUN_SCRIPT_UI = { ui: { resourceUri: RUN_VIEW_URI, visibility: ['model'] } };

export interface RunView {
  /** The listing as this session's host gets it: run_script with the view when the host negotiated MCP Apps. */
  annotate(tools: Tool[]): Tool[];
}

/** Whether the session's client declared the MCP Apps extension with its HTML type. */
export function negotiatesApps(server: McpServer): boolean {
  const ui = server.server.getClientCapabilities()?.extensions?.[UI_EXTENSION_ID] as { mimeTypes?: unknown } | undefined;
  return Array.isArray(ui?.mimeTypes) && ui.mimeTypes.includes(UI_MIME_TYPE);
}

/** `config`: read at every resources/read (the console's URL is known once the listener is up). */
export function registerRunView(server: McpServer, config: () => ViewConfig): RunView {
  const initialized = server.server.oninitialized;
  server.server.oninitialized = () => {
    if (negotiatesApps(server)) {
      server.registerResource(
        'run-view',
        RUN_VIEW_URI,
        { title: 'run_script view', description: 'Tables, charts and plans of run_script results', mimeType: UI_MIME_TYPE, _meta: { ui: VIEW_UI_META } },
        async (uri) => ({ contents: [{ uri: uri.href, mimeType: UI_MIME_TYPE, text: viewHtml(config()), _meta: { ui: VIEW_UI_META } }] }),
      );
    }
    initialized?.();
  };
  return {
    annotate: (tools) => (negotiatesApps(server) ? tools.map((t) => (t.name === 'run_script' ? { ...t, _meta: RUN_SCRIPT_UI } : t)) : tools),
  };
}
