/**
 * The floor under any bridge call on this machine: a round trip between two Node processes on
 * the sandbox channel itself (frames over a socket pair on fd 3), with nothing else done on
 * either side — no isolate, no validation, no handler. Run as a child it echoes every frame;
 * `measureChannelFloor` starts it and times sequential round trips of a reply-sized message.
 */
import { spawn } from 'node:child_process';
import { Socket } from 'node:net';
import path from 'node:path';
import { encodeFrame, FrameReader } from '../../src/sandbox/frames.js';
import { CHANNEL_FD } from '../../src/sandbox/worker-protocol.js';
import { repoRoot } from './repo.js';

const LIMITS = { maxHeaderBytes: 1 << 20, maxPayloadBytes: 1 << 24 };

/** Microseconds per round trip (median of `reps` runs of `trips` sequential round trips). */
export async function measureChannelFloor(trips: number, reps: number): Promise<number> {
  // The compiled file, also when this module runs from source (vitest): the child is plain node.
  const echo = path.join(repoRoot(), 'dist', 'bench', 'lib', 'channel-echo.js');
  const child = spawn(process.execPath, [echo, 'echo'], { stdio: ['ignore', 'inherit', 'inherit', 'pipe'] });
  const channel = child.stdio[CHANNEL_FD] as Socket;
  let answered: () => void = () => undefined;
  const reader = new FrameReader(LIMITS);
  channel.on('data', (chunk: Buffer) => {
    for (const _ of reader.push(chunk)) answered();
    if (reader.failure) throw reader.failure;
  });
  const message = { type: 'reply', jobId: 1, callId: 1, ok: true, json: '{"release":"9.1","repoid":"0123456789abcdef","version":"9.1.2"}' };
  const roundTrip = () =>
    new Promise<void>((resolve) => {
      answered = resolve;
      channel.write(encodeFrame(message));
    });
  try {
    for (let i = 0; i < 200; i++) await roundTrip();
    const perTrip: number[] = [];
    for (let r = 0; r < reps; r++) {
      const t0 = performance.now();
      for (let i = 0; i < trips; i++) await roundTrip();
      perTrip.push(((performance.now() - t0) / trips) * 1000);
    }
    return perTrip.sort((a, b) => a - b)[Math.floor(perTrip.length / 2)] as number;
  } finally {
    child.kill('SIGKILL');
  }
}

if (process.argv[2] === 'echo') {
  const channel = new Socket({ fd: CHANNEL_FD, readable: true, writable: true });
  const reader = new FrameReader(LIMITS);
  channel.on('data', (chunk: Buffer) => {
    for (const message of reader.push(chunk)) channel.write(encodeFrame(message as { type: string }));
    if (reader.failure) process.exit(1);
  });
  channel.on('close', () => process.exit(0));
}
