/**
 * The wire format between the server and the sandbox worker: length-prefixed frames on a
 * socket pair (the worker's fd 3). Each frame is
 *
 *   u32 header bytes | u32 payload bytes (0xFFFFFFFF = no payload) | header JSON | payload UTF-8
 *
 * The one large string of a message (the script, a call's or reply's JSON, a log line, the
 * result) travels as the raw payload instead of as a string inside the JSON header. Node's own
 * IPC would JSON-encode that string a second time — escaping every quote of a reply that is
 * JSON already — and parse it again on the other side: two extra passes over every reply, the
 * largest cost of moving an inventory into the sandbox after the parse itself. Frames also let
 * the server cap what a (possibly compromised) worker can make it buffer.
 */
import { isPlainObject } from '../schema/schema-node.js';

/** Where each message type carries its large string (a property path); other types are header only. */
const BULK_PATHS: ReadonlyMap<string, readonly [string] | readonly [string, string]> = new Map<string, readonly [string] | readonly [string, string]>([
  ['run', ['js']],
  ['compile', ['code']],
  ['compiled', ['transpiled', 'js']],
  ['reply', ['json']],
  ['call', ['json']],
  ['log', ['line']],
  ['end', ['end', 'resultJson']],
]);

const NO_PAYLOAD = 0xffff_ffff;
const PREFIX_BYTES = 8;

export class FrameError extends Error {
  constructor(message: string) {
    super(`sandbox channel: ${message}`);
    this.name = 'FrameError';
  }
}

/** One message as one frame (a single buffer, so it goes out in one write). */
export function encodeFrame(message: { type: string }): Buffer {
  const path = BULK_PATHS.get(message.type);
  let header: unknown = message;
  let payload: string | undefined;
  if (path) {
    const [outer, inner] = path;
    const msg = message as unknown as Record<string, unknown>;
    if (inner === undefined) {
      if (typeof msg[outer] === 'string') {
        payload = msg[outer];
        header = { ...msg, [outer]: undefined };
      }
    } else {
      const holder = msg[outer];
      if (isPlainObject(holder) && typeof holder[inner] === 'string') {
        payload = holder[inner];
        header = { ...msg, [outer]: { ...holder, [inner]: undefined } };
      }
    }
  }
  const headerText = JSON.stringify(header);
  const headerBytes = Buffer.byteLength(headerText);
  const payloadBytes = payload === undefined ? 0 : Buffer.byteLength(payload);
  const frame = Buffer.allocUnsafe(PREFIX_BYTES + headerBytes + payloadBytes);
  frame.writeUInt32BE(headerBytes, 0);
  frame.writeUInt32BE(payload === undefined ? NO_PAYLOAD : payloadBytes, 4);
  frame.write(headerText, PREFIX_BYTES, 'utf8');
  if (payload !== undefined) frame.write(payload, PREFIX_BYTES + headerBytes, 'utf8');
  return frame;
}

/** Where frames go: the channel's turn writer (src/process/turn-writer.ts). */
export interface FrameChannel {
  write(frame: Buffer): boolean;
}

/** Posts messages on a channel as frames: what a run in the worker sends its calls and logs with. */
export class FramePoster {
  constructor(private readonly channel: FrameChannel) {}

  post(message: { type: string }): void {
    this.channel.write(encodeFrame(message));
  }
}

export interface FrameLimits {
  /** Largest header accepted. */
  maxHeaderBytes: number;
  /** Largest payload accepted. */
  maxPayloadBytes: number;
}

/**
 * Reassembles frames from socket chunks: `push` returns the messages a chunk completed, as plain
 * data still to be validated by the receiver's schema (pulled, so the receiver hands each one on
 * itself rather than being called back). A frame over the limits or a header that is not JSON
 * sets `failure` and nothing more is read — the channel is broken; the messages before it in the
 * same chunk are still returned.
 */
export class FrameReader {
  /** Why the channel is broken; set once, and nothing more is read. */
  failure: FrameError | undefined;
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(public limits: FrameLimits) {}

  push(chunk: Buffer): unknown[] {
    const out: unknown[] = [];
    if (this.failure) return out;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    while (!this.failure && this.buffered >= PREFIX_BYTES) {
      const head = this.peek(PREFIX_BYTES);
      const headerBytes = head.readUInt32BE(0);
      const rawPayload = head.readUInt32BE(4);
      const payloadBytes = rawPayload === NO_PAYLOAD ? 0 : rawPayload;
      if (headerBytes > this.limits.maxHeaderBytes || payloadBytes > this.limits.maxPayloadBytes) {
        this.fail(`a frame of ${headerBytes} + ${payloadBytes} bytes is over the limit (${this.limits.maxHeaderBytes} + ${this.limits.maxPayloadBytes})`);
        break;
      }
      const total = PREFIX_BYTES + headerBytes + payloadBytes;
      if (this.buffered < total) break;
      const frame = this.take(total);
      let header: unknown;
      try {
        header = JSON.parse(frame.toString('utf8', PREFIX_BYTES, PREFIX_BYTES + headerBytes));
      } catch {
        this.fail('a frame header is not JSON');
        break;
      }
      if (rawPayload !== NO_PAYLOAD) {
        let payload: string;
        try {
          payload = frame.toString('utf8', PREFIX_BYTES + headerBytes, total);
        } catch {
          // Past V8's longest string (~512 M characters): a limit can allow more bytes than that.
          this.fail(`a frame payload of ${payloadBytes} bytes cannot be decoded as one string`);
          break;
        }
        attachPayload(header, payload);
      }
      out.push(header);
    }
    return out;
  }

  private fail(message: string): void {
    this.failure = new FrameError(message);
    this.chunks = [];
    this.buffered = 0;
  }

  /** The first `n` buffered bytes without consuming them (n ≤ buffered). */
  private peek(n: number): Buffer {
    const first = this.chunks[0] as Buffer;
    if (first.length >= n) return first;
    const joined = Buffer.concat(this.chunks);
    this.chunks = [joined];
    return joined;
  }

  /** Consumes the first `n` buffered bytes (n ≤ buffered). */
  private take(n: number): Buffer {
    const first = this.peek(n);
    this.buffered -= n;
    if (first.length === n) this.chunks.shift();
    else this.chunks[0] = first.subarray(n);
    return first.subarray(0, n);
  }
}

/** Puts the payload back where the message type carries it; the receiver's schema judges the rest. */
function attachPayload(header: unknown, payload: string): void {
  if (!isPlainObject(header) || typeof header.type !== 'string') return;
  const path = BULK_PATHS.get(header.type);
  if (!path) return;
  const [outer, inner] = path;
  if (inner === undefined) header[outer] = payload;
  else {
    const holder = header[outer];
    if (isPlainObject(holder)) holder[inner] = payload;
  }
}
