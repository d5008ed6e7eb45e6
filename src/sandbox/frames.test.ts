import { describe, expect, it } from 'vitest';
import { encodeFrame, FrameReader, type FrameError } from './frames.js';

const LIMITS = { maxHeaderBytes: 4096, maxPayloadBytes: 1 << 20 };

function collect(limits = LIMITS) {
  const messages: unknown[] = [];
  const errors: FrameError[] = [];
  const frames = new FrameReader(limits);
  const reader = {
    push(chunk: Buffer): void {
      messages.push(...frames.push(chunk));
      if (frames.failure && !errors.includes(frames.failure)) errors.push(frames.failure);
    },
  };
  return { reader, messages, errors };
}

const SAMPLES = [
  { type: 'ready', pid: 42 },
  { type: 'run', jobId: 1, js: 'return "ü ✓ 🎉";\n', limits: { wallMs: 1000 } },
  { type: 'reply', jobId: 1, callId: 7, ok: true, json: '{"data":"quote \\" and \\\\ and \\n"}' },
  { type: 'call', jobId: 1, callId: 8, json: '{"kind":"request","method":"GET","path":"/version","params":{}}' },
  { type: 'log', jobId: 1, line: '' },
  { type: 'end', jobId: 1, end: { status: 'ok', resultJson: '[1,2,"drei"]' }, stats: { wallMs: 1, cpuMs: 1, logsDropped: 0, rssMb: 50 } },
  { type: 'end', jobId: 1, end: { status: 'ok' }, stats: { wallMs: 1, cpuMs: 1, logsDropped: 0, rssMb: 50 } },
  { type: 'fatal', message: 'gone' },
];

describe('sandbox channel frames', () => {
  it('carries every message type unchanged, the bulk string as raw payload', () => {
    const { reader, messages, errors } = collect();
    for (const m of SAMPLES) reader.push(encodeFrame(m));
    expect(messages).toEqual(SAMPLES);
    expect(errors).toEqual([]);
    // The reply's JSON is not escaped a second time: its bytes appear verbatim in the frame.
    const reply = SAMPLES[2] as { json: string };
    expect(encodeFrame(reply as never).includes(Buffer.from(reply.json))).toBe(true);
  });

  it('keeps an empty bulk string apart from an absent one', () => {
    const { reader, messages } = collect();
    reader.push(encodeFrame({ type: 'log', jobId: 1, line: '' } as never));
    reader.push(encodeFrame({ type: 'log', jobId: 1 } as never));
    expect(messages).toEqual([
      { type: 'log', jobId: 1, line: '' },
      { type: 'log', jobId: 1 },
    ]);
  });

  it('reassembles frames split at every byte, multi-byte characters included', () => {
    const stream = Buffer.concat(SAMPLES.map((m) => encodeFrame(m)));
    for (let cut = 1; cut < stream.length; cut++) {
      const { reader, messages } = collect();
      reader.push(stream.subarray(0, cut));
      reader.push(stream.subarray(cut));
      expect(messages).toEqual(SAMPLES);
    }
    const { reader, messages } = collect();
    for (const byte of stream) reader.push(Buffer.from([byte]));
    expect(messages).toEqual(SAMPLES);
  });

  it('refuses a frame over the limits once and reads nothing after it', () => {
    const { reader, messages, errors } = collect({ maxHeaderBytes: 4096, maxPayloadBytes: 10 });
    reader.push(encodeFrame({ type: 'log', jobId: 1, line: 'x'.repeat(11) } as never));
    reader.push(encodeFrame({ type: 'ready', pid: 1 } as never));
    expect(messages).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toMatch(/over the limit/);
  });

  it('refuses a header announced larger than allowed before it arrives', () => {
    const { reader, errors } = collect({ maxHeaderBytes: 16, maxPayloadBytes: 16 });
    const prefix = Buffer.alloc(8);
    prefix.writeUInt32BE(1 << 30, 0);
    prefix.writeUInt32BE(0xffff_ffff, 4);
    reader.push(prefix);
    expect(errors[0]?.message).toMatch(/over the limit/);
  });

  it('reports a header that is not JSON', () => {
    const { reader, errors } = collect();
    const header = Buffer.from('{not json');
    const prefix = Buffer.alloc(8);
    prefix.writeUInt32BE(header.length, 0);
    prefix.writeUInt32BE(0xffff_ffff, 4);
    reader.push(Buffer.concat([prefix, header]));
    expect(errors[0]?.message).toMatch(/not JSON/);
  });

  it('passes odd headers on as data for the schema to judge, without touching prototypes', () => {
    const { reader, messages, errors } = collect();
    for (const header of ['{"type":"__proto__"}', '{"type":"end","end":"text"}', '[1,2]', '"just a string"']) {
      const h = Buffer.from(header);
      const prefix = Buffer.alloc(8);
      prefix.writeUInt32BE(h.length, 0);
      prefix.writeUInt32BE(3, 4);
      reader.push(Buffer.concat([prefix, h, Buffer.from('abc')]));
    }
    expect(errors).toEqual([]);
    expect(messages).toEqual([{ type: '__proto__' }, { type: 'end', end: 'text' }, [1, 2], 'just a string']);
    expect(({} as Record<string, unknown>).type).toBeUndefined();
  });
});

describe('sandbox channel frames: decoding failures', () => {
  it('reports a payload that cannot become one string instead of throwing into the socket handler', () => {
    const { reader, errors } = collect({ maxHeaderBytes: 4096, maxPayloadBytes: 1 << 30 });
    const original = Buffer.prototype.toString;
    let calls = 0;
    // Simulates V8's string-length limit on the payload (allocating 512 MB in a test is not an option).
    Buffer.prototype.toString = function (this: Buffer, ...args: Parameters<Buffer['toString']>) {
      calls++;
      if (calls === 2) throw new Error('Cannot create a string longer than 0x1fffffe8 characters');
      return original.apply(this, args);
    } as Buffer['toString'];
    try {
      expect(() => reader.push(encodeFrame({ type: 'log', jobId: 1, line: 'x' } as never))).not.toThrow();
    } finally {
      Buffer.prototype.toString = original;
    }
    expect(errors[0]?.message).toMatch(/cannot be decoded as one string/);
  });
});
