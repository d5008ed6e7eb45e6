/**
 * The supervisor with real child processes (small hand-written entries in a temporary folder).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ChildEntryMissingError, locateEntry } from './locate.js';
import { ChildProcessError, SupervisedChild, type ChildExit, type ChannelDecoder } from './supervisor.js';

const messageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready'), env: z.array(z.string()) }).strict(),
  z.object({ type: z.literal('echo'), text: z.string() }).strict(),
  z.object({ type: z.literal('refuse'), why: z.string() }).strict(),
]);
type Message = z.infer<typeof messageSchema>;

/** A line-per-message framing for the socket channel: enough to test the channel, not the sandbox's. */
class Lines implements ChannelDecoder {
  failure: Error | undefined;
  private rest = '';
  push(chunk: Buffer): unknown[] {
    const out: unknown[] = [];
    if (this.failure) return out;
    const lines = (this.rest + chunk.toString('utf8')).split('\n');
    this.rest = lines.pop() ?? '';
    for (const line of lines) {
      try {
        out.push(JSON.parse(line));
      } catch {
        this.failure = new Error('not a JSON line');
        break;
      }
    }
    return out;
  }
}

const IPC_ECHO = `
process.send({ type: 'ready', env: Object.keys(process.env) });
process.on('message', (m) => {
  if (m.text === 'garbage') process.send({ type: 'echo', text: 1 });
  else if (m.text === 'exit') process.exit(3);
  else process.send({ type: 'echo', text: m.text });
});
process.on('disconnect', () => process.exit(0));
`;

const SOCKET_ECHO = `
import { Socket } from 'node:net';
const channel = new Socket({ fd: 3, readable: true, writable: true });
const post = (m) => channel.write(JSON.stringify(m) + '\\n');
let rest = '';
channel.on('data', (chunk) => {
  const lines = (rest + chunk.toString('utf8')).split('\\n');
  rest = lines.pop();
  for (const line of lines) {
    const m = JSON.parse(line);
    if (m.text === 'break') channel.write('{not json\\n');
    else post({ type: 'echo', text: m.text });
  }
});
post({ type: 'ready', env: Object.keys(process.env) });
`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('SupervisedChild', () => {
  let dir: string;
  const entry = (name: string, text: string): string => {
    const file = path.join(dir, `${name}.mjs`);
    writeFileSync(file, text);
    return file;
  };
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'supervisor-test-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function start(
    file: string,
    options: { channel?: 'ipc' | 'socket'; readyTimeoutMs?: number; handshake?: (m: Message) => boolean | string } = {},
  ): { child: SupervisedChild<Message, { text: string }, Lines>; got: Message[]; ended: ChildProcessError[]; exited: Promise<ChildExit> } {
    const got: Message[] = [];
    const ended: ChildProcessError[] = [];
    let onExit: (exit: ChildExit) => void = () => undefined;
    const exited = new Promise<ChildExit>((resolve) => (onExit = resolve));
    const child = new SupervisedChild<Message, { text: string }, Lines>(
      {
        name: 'test child',
        entry: file,
        execArgv: [],
        channel: options.channel === 'socket' ? { kind: 'socket', encode: (m) => Buffer.from(`${JSON.stringify(m)}\n`), decoder: () => new Lines() } : { kind: 'ipc' },
        schema: messageSchema,
        readyTimeoutMs: options.readyTimeoutMs ?? 10_000,
        handshake: options.handshake ?? ((m) => m.type === 'ready'),
      },
      { message: (m) => got.push(m), ended: (why) => ended.push(why), exit: onExit },
    );
    return { child, got, ended, exited };
  }

  for (const channel of ['ipc', 'socket'] as const) {
    it(`${channel}: starts with an empty environment, handshakes, carries checked messages, ends with SIGKILL`, async () => {
      const { child, got, ended, exited } = start(entry(`echo-${channel}`, channel === 'ipc' ? IPC_ECHO : SOCKET_ECHO), { channel });
      await child.ready;
      expect(child.readyMessage).toEqual({ type: 'ready', env: [] });
      expect(got).toEqual([]);
      expect(child.send({ text: 'one' })).toBe(true);
      expect(child.send({ text: 'two' })).toBe(true);
      while (got.length < 2) await sleep(5);
      expect(got).toEqual([
        { type: 'echo', text: 'one' },
        { type: 'echo', text: 'two' },
      ]);
      expect(child.decoder instanceof Lines).toBe(channel === 'socket');
      child.kill();
      expect(child.isAlive).toBe(false);
      expect(child.send({ text: 'late' })).toBe(false);
      expect(ended.map((e) => [e.kind, e.message])).toEqual([['stopped', 'the test child was stopped']]);
      const exit = await exited;
      expect(exit).toMatchObject({ code: null, signal: 'SIGKILL', reason: ended[0] });
    });
  }

  it('kills a child that sends a malformed message', async () => {
    const { child, ended, exited } = start(entry('garbage', IPC_ECHO));
    await child.ready;
    child.send({ text: 'garbage' });
    const { reason } = await exited;
    expect(reason).toBe(ended[0]);
    expect(reason).toMatchObject({ kind: 'breach', message: 'the test child sent a malformed message (text: Invalid input: expected string, received number); it was killed' });
  });

  it('kills a child that breaks its framing', async () => {
    const { child, exited } = start(entry('framing', SOCKET_ECHO), { channel: 'socket' });
    await child.ready;
    child.send({ text: 'break' });
    const { reason, signal } = await exited;
    expect(signal).toBe('SIGKILL');
    expect(reason).toMatchObject({ kind: 'breach', message: 'the test child broke its channel (not a JSON line); it was killed' });
  });

  it('reports an exit of its own with the code', async () => {
    const { child, ended, exited } = start(entry('exits', IPC_ECHO));
    await child.ready;
    child.send({ text: 'exit' });
    const exit = await exited;
    expect(exit).toMatchObject({ code: 3, signal: null });
    expect(exit.reason).toMatchObject({ kind: 'exit', message: 'the test child exited (code 3)' });
    expect(ended).toEqual([exit.reason]);
  });

  it('rejects `ready` and kills a child that stays silent past the deadline', async () => {
    const { child, exited } = start(entry('silent', 'setInterval(() => undefined, 1000);'), { readyTimeoutMs: 200 });
    const failure = await child.ready.then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(ChildProcessError);
    expect(failure).toMatchObject({ timedOut: true, message: 'the test child sent no ready signal within 200 ms' });
    expect((await exited).signal).toBe('SIGKILL');
  });

  it('rejects `ready` when the handshake refuses, and when the child exits first', async () => {
    const refused = start(entry('refuses', IPC_ECHO), { handshake: () => 'the test child is not fit to serve' });
    await expect(refused.child.ready).rejects.toMatchObject({ kind: 'start', message: 'the test child is not fit to serve' });
    expect((await refused.exited).signal).toBe('SIGKILL');
    const early = start(entry('early', 'process.exit(2);'));
    await expect(early.child.ready).rejects.toMatchObject({ kind: 'exit', message: 'the test child exited (code 2)' });
  });

  it('passes over a message the handshake waits past', async () => {
    const seen: string[] = [];
    const { child } = start(entry('chatty', `process.send({ type: 'echo', text: 'early' });\n${IPC_ECHO}`), {
      handshake: (m) => {
        seen.push(m.type);
        return m.type === 'ready';
      },
    });
    try {
      await child.ready;
      expect(seen).toEqual(['echo', 'ready']);
    } finally {
      child.kill();
    }
  });
});

describe('locateEntry', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'supervisor-locate-'));
    writeFileSync(path.join(root, 'package.json'), '{}');
    mkdirSync(path.join(root, 'src', 'kind'), { recursive: true });
    mkdirSync(path.join(root, 'dist', 'src', 'kind'), { recursive: true });
    writeFileSync(path.join(root, 'src', 'kind', 'beside.js'), '');
    writeFileSync(path.join(root, 'dist', 'src', 'kind', 'built.js'), '');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const moduleUrl = () => pathToFileURL(path.join(root, 'src', 'kind', 'owner.ts')).href;

  it('finds the entry beside the module, else at the same place under dist/', () => {
    expect(locateEntry(moduleUrl(), 'beside.js', 'x')).toBe(path.join(root, 'src', 'kind', 'beside.js'));
    expect(locateEntry(moduleUrl(), 'built.js', 'x')).toBe(path.join(root, 'dist', 'src', 'kind', 'built.js'));
  });

  it('says what is missing and how to build it', () => {
    expect(() => locateEntry(moduleUrl(), 'absent.js', 'test entry')).toThrow(ChildEntryMissingError);
    expect(() => locateEntry(moduleUrl(), 'absent.js', 'test entry')).toThrow(
      `the test entry is missing (looked for ${path.join(root, 'dist', 'src', 'kind', 'absent.js')}); build the project first (npm run build)`,
    );
  });
});
