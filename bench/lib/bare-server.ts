/**
 * The yardstick of `serve`'s start (desktop suite): a bare MCP server on the same SDK with three
 * tools of the same names and nothing behind them, over stdio. Started as `node bare-server.js`;
 * what it costs to answer tools/list is what any MCP server on this SDK and this Node pays.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'bare', version: '1' });
const echo = async (args: unknown) => ({ content: [{ type: 'text' as const, text: JSON.stringify(args) }] });
server.registerTool('search_api', { description: 'search', inputSchema: { query: z.string() } }, echo);
server.registerTool('get_schema', { description: 'schema', inputSchema: { operations: z.array(z.string()) } }, echo);
server.registerTool('run_script', { description: 'run', inputSchema: { code: z.string() } }, echo);
await server.connect(new StdioServerTransport());
