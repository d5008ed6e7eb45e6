import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ToolCallDrain } from './drain.js';
import { drainToolCalls } from './shutdown.js';

/** A server whose `hold` tool answers only when the test releases it; the drain attached as serve does. */
async function setup() {
  const server = new McpServer({ name: 't', version: '1' });
  const releases: Array<() => void> = [];
  let started = 0;
  server.registerTool('hold', { description: 'waits' }, async () => {
    started++;
    await new Promise<void>((resolve) => releases.push(resolve));
    return { content: [{ type: 'text', text: 'held and answered' }] };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const drain = new ToolCallDrain();
  drain.attach(serverSide);
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(clientSide);
  const clientErrors: Error[] = [];
  client.onerror = (err) => clientErrors.push(err);
  const call = (signal?: AbortSignal) => client.callTool({ name: 'hold', arguments: {} }, undefined, signal ? { signal } : {}) as Promise<CallToolResult>;
  const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;
  const until = async (n: number) => {
    while (started < n) await new Promise((r) => setTimeout(r, 5));
  };
  return { drain, call, text, releases, until, started: () => started, clientErrors };
}

describe('ToolCallDrain', () => {
  it('waits until each pending call was answered, and refuses new ones once stopping without running them', async () => {
    const t = await setup();
    const inFlight = [t.call(), t.call()];
    await t.until(2);
    expect(t.drain.pendingCalls).toBe(2);
    t.drain.stop();
    const refused = await t.call();
    expect(refused.isError).toBe(true);
    expect(t.text(refused)).toMatch(/server is stopping: this call was not run and nothing was sent; retry it against the restarted server/);
    expect(t.started()).toBe(2);
    let idle = false;
    const waiting = t.drain.idle().then(() => (idle = true));
    t.releases[0]?.();
    await inFlight[0];
    expect(idle).toBe(false);
    t.releases[1]?.();
    await waiting;
    expect((await Promise.all(inFlight)).map(t.text)).toEqual(['held and answered', 'held and answered']);
  });

  it('past the drain answers the pending calls that their outcome is unknown, once, and reports it', async () => {
    const t = await setup();
    const pending = t.call();
    await t.until(1);
    const report = await drainToolCalls(t.drain, { drain: async () => undefined }, 50);
    expect(report).toMatchObject({ clean: false, pending: 1, abandoned: ['hold'] });
    const answer = await pending;
    expect(answer.isError).toBe(true);
    expect(t.text(answer)).toMatch(/^error \[unknown\]: the server stopped before this call was answered .*50 ms drain.*may or may not have been made/);
    // The handler's own answer, late, is not sent a second time.
    t.releases[0]?.();
    await new Promise((r) => setTimeout(r, 20));
    expect(t.clientErrors).toEqual([]);
    expect(t.drain.pendingCalls).toBe(0);
  });

  it('reports a clean drain when the runs end and every answer left in time', async () => {
    const t = await setup();
    const pending = t.call();
    await t.until(1);
    const report = await drainToolCalls(t.drain, { drain: async () => t.releases[0]?.() }, 5_000);
    expect(report).toMatchObject({ clean: true, pending: 1, abandoned: [] });
    expect(t.text(await pending)).toBe('held and answered');
  });

  it('does not wait for a call its client cancelled (the SDK sends no answer for it)', async () => {
    const t = await setup();
    const controller = new AbortController();
    const cancelled = t.call(controller.signal).catch(() => 'cancelled');
    await t.until(1);
    controller.abort();
    expect(await cancelled).toBe('cancelled');
    await t.drain.idle();
    expect(t.drain.pendingCalls).toBe(0);
  });
});
