/**
 * An MCP client connected in memory to a fresh server session of a product: what the demo's
 * walkthrough and the benchmarks talk to, through the same `createMcpServer` a transport gets.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Product } from '../app/product.js';
import { createMcpServer } from './mcp.js';

export interface InMemoryConnection {
  client: Client;
  /** Closes the client and its server session (not the product). */
  close(): Promise<void>;
}

export async function connectInMemory(product: Product, clientName: string): Promise<InMemoryConnection> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = createMcpServer(product);
  await server.connect(serverSide);
  const client = new Client({ name: clientName, version: '1' });
  await client.connect(clientSide);
  return {
    client,
    async close() {
      await client.close();
      await server.close();
    },
  };
}
