import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LineStdioTransport } from './stdio.js';

function setup(maxLineBytes = 1024) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const transport = new LineStdioTransport(stdin, stdout, maxLineBytes);
  const messages: JSONRPCMessage[] = [];
  const replies: Array<{ id: unknown; error: { code: number; message: string } }> = [];
  transport.onmessage = (m) => messages.push(m);
  let out = '';
  stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    let nl: number;
    while ((nl = out.indexOf('\n')) !== -1) {
      replies.push(JSON.parse(out.slice(0, nl)));
      out = out.slice(nl + 1);
    }
  });
  return { stdin, transport, messages, replies };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('LineStdioTransport', () => {
  it('delivers messages split across chunks and several per chunk', async () => {
    const { stdin, transport, messages } = setup();
    await transport.start();
    stdin.write('{"jsonrpc":"2.0","id":1,"me');
    stdin.write('thod":"ping"}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\r\n\n');
    await flush();
    expect(messages).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ]);
  });

  it('answers unparseable and invalid lines with JSON-RPC errors and keeps reading', async () => {
    const { stdin, transport, messages, replies } = setup();
    await transport.start();
    stdin.write('not json\n[1,2]\n{"jsonrpc":"2.0","id":7,"method":42}\n{"jsonrpc":"2.0","id":8,"error":"x"}\n{"jsonrpc":"2.0","id":9,"method":"ping"}\n');
    await flush();
    expect(replies.map((r) => [r.id, r.error.code])).toEqual([
      [null, -32700],
      [null, -32600],
      [7, -32600],
    ]);
    // The malformed response is not answered; the valid request after it still arrives.
    expect(messages).toEqual([{ jsonrpc: '2.0', id: 9, method: 'ping' }]);
  });

  it('drops an oversized line with one error, whether it arrives whole or in pieces', async () => {
    const { stdin, transport, messages, replies } = setup(100);
    await transport.start();
    stdin.write(`${'x'.repeat(150)}\n`);
    stdin.write('y'.repeat(80));
    stdin.write('y'.repeat(80));
    stdin.write('y'.repeat(80));
    stdin.write('\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    await flush();
    expect(replies.map((r) => r.error.code)).toEqual([-32600, -32600]);
    expect(replies[0]?.error.message).toMatch(/longer than 100 bytes/);
    expect(messages).toEqual([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
  });
});
