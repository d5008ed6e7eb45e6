/**
 * MCP over stdio: newline-delimited JSON-RPC on stdin/stdout. Unlike the SDK's stdio transport,
 * which drops unparseable lines silently and closes the session when one line outgrows its
 * buffer, this one answers every line it cannot use with a JSON-RPC error (parse error, invalid
 * request, message too large) and keeps serving: a confused or hostile client gets told, the
 * server stays up, and memory stays bounded.
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** As large as an HTTP request body may be (see http.ts). */
export const MAX_STDIO_LINE_BYTES = 4 * 1024 * 1024;

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

type RequestId = string | number;

export class LineStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Inside a line that outgrew the limit: drop bytes until its newline, then answer once. */
  private discarding = false;
  private started = false;
  private closed = false;

  constructor(
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
    private readonly maxLineBytes = MAX_STDIO_LINE_BYTES,
  ) {}

  private readonly onData = (chunk: Buffer): void => {
    let rest = chunk;
    for (let nl = rest.indexOf(0x0a); nl !== -1; nl = rest.indexOf(0x0a)) {
      const head = rest.subarray(0, nl);
      rest = rest.subarray(nl + 1);
      if (this.discarding) {
        this.discarding = false;
        this.reply(null, INVALID_REQUEST, `Invalid request: a message longer than ${this.maxLineBytes} bytes was dropped`);
        continue;
      }
      if (this.buffered + head.length > this.maxLineBytes) {
        this.resetBuffer();
        this.reply(null, INVALID_REQUEST, `Invalid request: a message longer than ${this.maxLineBytes} bytes was dropped`);
        continue;
      }
      this.chunks.push(head);
      const line = Buffer.concat(this.chunks).toString('utf8');
      this.resetBuffer();
      this.handleLine(line);
    }
    if (rest.length === 0 || this.discarding) return;
    if (this.buffered + rest.length > this.maxLineBytes) {
      this.resetBuffer();
      this.discarding = true;
      return;
    }
    this.chunks.push(rest);
    this.buffered += rest.length;
  };

  private readonly onStdinError = (error: Error): void => {
    this.onerror?.(error);
  };

  async start(): Promise<void> {
    if (this.started) throw new Error('LineStdioTransport already started');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStdinError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStdinError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.resetBuffer();
    this.onclose?.();
  }

  private handleLine(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      this.reply(null, PARSE_ERROR, 'Parse error: each line must be one JSON-RPC message in JSON');
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(json);
    if (parsed.success) {
      this.onmessage?.(parsed.data);
      return;
    }
    if (Array.isArray(json)) {
      this.reply(null, INVALID_REQUEST, 'Invalid request: batches are not supported, send one message per line');
      return;
    }
    const obj = json !== null && typeof json === 'object' ? (json as Record<string, unknown>) : undefined;
    // A malformed response is not answered: two peers doing that would echo errors forever.
    if (obj && ('result' in obj || 'error' in obj) && !('method' in obj)) {
      this.onerror?.(new Error('ignored a malformed JSON-RPC response'));
      return;
    }
    const id = obj && (typeof obj.id === 'string' || (typeof obj.id === 'number' && Number.isFinite(obj.id))) ? (obj.id as RequestId) : null;
    const problem = parsed.error.issues[0];
    const where = problem && problem.path.length > 0 ? ` at '${problem.path.join('.')}'` : '';
    this.reply(id, INVALID_REQUEST, `Invalid request${where}: expected {"jsonrpc":"2.0","id":…,"method":"…","params":{…}}`);
  }

  private reply(id: RequestId | null, code: number, message: string): void {
    // JSON-RPC allows a null id exactly here: the request's id could not be read.
    this.write({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage).catch((err: unknown) => {
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
    });
  }

  private write(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.closed) {
        reject(new Error('the stdio transport is closed'));
        return;
      }
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once('drain', () => resolve());
    });
  }

  private resetBuffer(): void {
    this.chunks = [];
    this.buffered = 0;
  }
}
