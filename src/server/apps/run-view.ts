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
import { getUiCapability, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { viewHtml, type ViewConfig } from './view-html.js';

export const RUN_VIEW_URI = 'ui://pve-code-mcp/run.html';

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
  const capabilities = server.server.getClientCapabilities();
  return getUiCapability(capabilities)?.mimeTypes?.includes(RESOURCE_MIME_TYPE) === true;
}

/** `config`: read at every resources/read (the console's URL is known once the listener is up). */
export function registerRunView(server: McpServer, config: () => ViewConfig): RunView {
  const initialized = server.server.oninitialized;
  server.server.oninitialized = () => {
    if (negotiatesApps(server)) {
      server.registerResource(
        'run-view',
        RUN_VIEW_URI,
        { title: 'run_script view', description: 'Tables, charts and plans of run_script results', mimeType: RESOURCE_MIME_TYPE, _meta: { ui: VIEW_UI_META } },
        async (uri) => ({ contents: [{ uri: uri.href, mimeType: RESOURCE_MIME_TYPE, text: viewHtml(config()), _meta: { ui: VIEW_UI_META } }] }),
      );
    }
    initialized?.();
  };
  return {
    annotate: (tools) => (negotiatesApps(server) ? tools.map((t) => (t.name === 'run_script' ? { ...t, _meta: RUN_SCRIPT_UI } : t)) : tools),
  };
}
