import { EXTENSION_ID, getUiCapability, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { negotiatesApps, UI_EXTENSION_ID, UI_MIME_TYPE } from './run-view.js';

/** A server whose client declared `capabilities` at initialize (what the SDK keeps from it). */
function serverWith(capabilities: Record<string, unknown>): McpServer {
  const server = new McpServer({ name: 't', version: '1' });
  (server.server as unknown as { _clientCapabilities: unknown })._clientCapabilities = capabilities;
  return server;
}

describe('MCP Apps negotiation', () => {
  it('uses the identifiers the ext-apps SDK exports', () => {
    expect(UI_EXTENSION_ID).toBe(EXTENSION_ID);
    expect(UI_MIME_TYPE).toBe(RESOURCE_MIME_TYPE);
  });

  it('agrees with the SDK’s getUiCapability: only a client that lists the HTML type gets views', () => {
    const cases: Record<string, unknown>[] = [
      {},
      { extensions: {} },
      { extensions: { [EXTENSION_ID]: {} } },
      { extensions: { [EXTENSION_ID]: { mimeTypes: ['text/html'] } } },
      { extensions: { [EXTENSION_ID]: { mimeTypes: 'text/html;profile=mcp-app' } } },
      { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } },
    ];
    const verdicts = cases.map((c) => negotiatesApps(serverWith(c)));
    expect(verdicts).toEqual([false, false, false, false, false, true]);
    for (const [i, c] of cases.entries()) {
      const sdk = getUiCapability(c)?.mimeTypes;
      expect(verdicts[i], JSON.stringify(c)).toBe(Array.isArray(sdk) && sdk.includes(RESOURCE_MIME_TYPE));
    }
  });
});
