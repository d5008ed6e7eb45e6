import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkToolArguments } from './tool.js';

/** A server with one tool, spoken to in raw JSON-RPC so malformed requests reach it as sent. */
async function rawServer(check: boolean) {
  const server = new McpServer({ name: 't', version: '1' });
  server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  if (check) checkToolArguments(server);
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const answers = new Map<number, JSONRPCMessage>();
  client.onmessage = (m) => {
    if ('id' in m && typeof m.id === 'number') answers.set(m.id, m);
  };
  await client.start();
  const request = async (id: number, method: string, params: unknown) => {
    await client.send({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage);
    for (let i = 0; i < 100 && !answers.has(id); i++) await new Promise((r) => setTimeout(r, 5));
    return answers.get(id) as { error?: { code: number; message: string }; result?: unknown };
  };
  await request(0, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } });
  return { request, close: () => server.close() };
}

describe('checkToolArguments', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => close?.());

  it('answers -32602 with a readable sentence when arguments are not an object', async () => {
    const s = await rawServer(true);
    close = s.close;
    let id = 10;
    for (const [args, got] of [
      ['x', 'a string'],
      [3, 'a number'],
      [null, 'null'],
      [['a'], 'an array'],
    ] as const) {
      const answer = await s.request((id += 1), 'tools/call', { name: 'echo', arguments: args });
      expect(answer.error?.code, JSON.stringify(args)).toBe(-32602);
      expect(answer.error?.message).toContain(`"arguments" must be an object of the tool's parameters`);
      expect(answer.error?.message).toContain(`got ${got}`);
    }
    const noName = await s.request(2, 'tools/call', { arguments: {} });
    expect(noName.error?.code).toBe(-32602);
    const ok = await s.request(3, 'tools/call', { name: 'echo', arguments: { text: 'hi' } });
    expect(ok.result).toMatchObject({ content: [{ type: 'text', text: 'hi' }] });
  });

  it('is needed: without it the SDK answers -32603 with the raw zod issues', async () => {
    const s = await rawServer(false);
    close = s.close;
    const answer = await s.request(1, 'tools/call', { name: 'echo', arguments: 'x' });
    expect(answer.error?.code).toBe(-32603);
  });
});
