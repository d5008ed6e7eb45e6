import { Writable } from 'node:stream';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { TurnWriter } from './turn-writer.js';

/** A stream that records each write it gets from Node's stream machinery, as a socket's would. */
function recorder(fail?: Error): { socket: Socket; writes: string[][] } {
  const writes: string[][] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      writes.push([chunk.toString()]);
      done(fail);
    },
    writev(chunks, done) {
      writes.push(chunks.map((c) => (c.chunk as Buffer).toString()));
      done(fail);
    },
  });
  // The channel's owners listen for errors on the socket too; the writer reports them through its callback.
  stream.on('error', () => undefined);
  return { socket: stream as unknown as Socket, writes };
}

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('TurnWriter', () => {
  it('writes the frames of one turn once, whole and in order, after the turn', async () => {
    const { socket, writes } = recorder();
    const writer = new TurnWriter(socket, () => undefined);
    for (const frame of ['a', 'b', 'c']) writer.write(Buffer.from(frame));
    expect(writes).toEqual([]);
    await turn();
    expect(writes).toEqual([['a', 'b', 'c']]);
  });

  it('writes each turn on its own', async () => {
    const { socket, writes } = recorder();
    const writer = new TurnWriter(socket, () => undefined);
    writer.write(Buffer.from('a'));
    await turn();
    writer.write(Buffer.from('b'));
    writer.write(Buffer.from('c'));
    await turn();
    expect(writes).toEqual([['a'], ['b', 'c']]);
  });

  it('flush writes at once what the turn queued', () => {
    const { socket, writes } = recorder();
    const writer = new TurnWriter(socket, () => undefined);
    writer.write(Buffer.from('fatal'));
    writer.flush();
    expect(writes).toEqual([['fatal']]);
  });

  it('reports a failed write, and refuses to write once the socket is gone', async () => {
    const { socket } = recorder(new Error('EPIPE'));
    const errors: string[] = [];
    const writer = new TurnWriter(socket, (err) => errors.push(err.message));
    writer.write(Buffer.from('a'));
    await turn();
    await turn();
    expect(errors).toContain('EPIPE');
    socket.destroy();
    expect(writer.write(Buffer.from('b'))).toBe(false);
  });
});
