import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { notifyListChanges } from './list-changes.js';

describe('notifyListChanges', () => {
  it('tells the session its tools changed only when its own listing did, and stops listening when it closes', async () => {
    const server = new McpServer({ name: 't', version: '1' });
    server.registerTool('run', { inputSchema: { code: z.string() } }, async () => ({ content: [] }));
    let readOnly = true;
    const listeners = new Set<() => void>();
    let refreshed = 0;
    notifyListChanges(
      server,
      () => ({ readOnlyHint: readOnly }),
      (fn) => (listeners.add(fn), () => listeners.delete(fn)),
      () => void (refreshed += 1),
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'c', version: '1' });
    let told = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (told += 1));
    await client.connect(clientSide);
    const signal = async () => {
      for (const fn of listeners) fn();
      await new Promise((r) => setTimeout(r, 20));
    };
    await signal();
    expect(told).toBe(0);
    readOnly = false;
    await signal();
    expect(told).toBe(1);
    await signal();
    expect(told).toBe(1);
    expect(refreshed).toBe(3);
    await client.close();
    await new Promise((r) => setTimeout(r, 20));
    expect(listeners.size).toBe(0);
  });
});
