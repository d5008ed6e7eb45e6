/** `pve-code-mcp serve`: the MCP server over stdio (default) or Streamable HTTP. */
import type { Product } from '../../app/product.js';
import { startHttpServer } from '../../server/http.js';
import { createMcpServer } from '../../server/mcp.js';
import { LineStdioTransport } from '../../server/stdio.js';
import { boolOpt, EXIT, intOpt, parseCommandArgs, stringOpt, type CliIo, type ParsedArgs } from '../args.js';
import type { Command } from '../command.js';
import { appConfigFrom, CONFIG_OPTIONS, CONFIG_USAGE, openProduct, untilSignal } from '../context.js';
import { tuneV8ForServer } from '../v8-tuning.js';

const usage = `Usage: pve-code-mcp serve [--http [--host H] [--port N] [--token T]] [options]

Serve the three MCP tools. Default transport: stdio (what MCP clients start).
  --http              Streamable HTTP instead, on 127.0.0.1 (bearer token required)
  --host H            listen address for --http (default 127.0.0.1)
  --port N            port for --http (default 8765)
  --token T           bearer token for --http (default: PVE_MCP_TOKEN or a random one, printed)
${CONFIG_USAGE}`;

export const HTTP_OPTIONS = {
  http: { type: 'boolean' },
  host: { type: 'string' },
  port: { type: 'string' },
  token: { type: 'string' },
} as const;

export const serveCommand: Command = {
  name: 'serve',
  usage,
  async run(argv, io) {
    const args = parseCommandArgs(argv, { ...CONFIG_OPTIONS, ...HTTP_OPTIONS }, false);
    if (args.help) {
      io.out(usage);
      return EXIT.ok;
    }
    // Before the product opens: the collections while it loads already size the heap's limits.
    tuneV8ForServer();
    const product = await openProduct(await appConfigFrom(args), io);
    return serveProduct(product, args, io);
  },
};

/** Serve until the client goes away (stdio) or a signal arrives (HTTP); closes the product. */
export async function serveProduct(product: Product, args: ParsedArgs, io: CliIo): Promise<number> {
  try {
    await product.warm();
    io.err(`pve-code-mcp: ${product.sandboxSummary()}`);
    if (boolOpt(args, 'http')) {
      const token = stringOpt(args, 'token') ?? process.env.PVE_MCP_TOKEN;
      const http = await startHttpServer(() => createMcpServer(product), {
        ...(stringOpt(args, 'host') ? { host: stringOpt(args, 'host') as string } : {}),
        port: intOpt(args, 'port') ?? 8765,
        ...(token ? { token } : {}),
        log: (line) => io.err(line),
      });
      io.err(`MCP over Streamable HTTP: ${http.url}\nAuthorization: Bearer ${http.token}\n(Ctrl-C to stop)`);
      await untilSignal();
      await http.close();
      return EXIT.ok;
    }
    const server = createMcpServer(product);
    const transport = new LineStdioTransport();
    const closed = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
      process.stdin.once('end', () => resolve());
    });
    await server.connect(transport);
    io.err('pve-code-mcp: serving MCP on stdio');
    await Promise.race([closed, untilSignal()]);
    await server.close();
    return EXIT.ok;
  } finally {
    await product.close();
  }
}
