/**
 * The tool calls of every session, as the graceful stop sees them. It sits between a transport
 * and the MCP server that reads it: a `tools/call` request is pending from the moment it arrives
 * until its answer was handed to the transport (written to stdout, or onto the call's HTTP
 * stream), or until the client cancelled it or went away. When the server stops it refuses new
 * tool calls with a plain answer (nothing was run), waits for the pending ones, and past the
 * drain answers those still pending itself, saying that their outcome is unknown. Only the
 * transport boundary knows when an answer left: the tool handler returning is not enough.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isJSONRPCErrorResponse, isJSONRPCNotification, isJSONRPCRequest, isJSONRPCResultResponse, type CallToolResult, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';

interface PendingCall {
  id: RequestId;
  tool: string;
  /** Sends on the transport itself, past the drain's own filter. */
  send(message: JSONRPCMessage): Promise<void>;
  /** Answered by the drain: the handler's late answer is dropped. */
  abandoned: boolean;
}

export const STOPPING_MESSAGE = 'the server is stopping: this call was not run and nothing was sent; retry it against the restarted server';

export class ToolCallDrain {
  private stopping = false;
  private readonly pending = new Set<PendingCall>();
  private readonly idleWaiters: Array<() => void> = [];

  /** Tool calls that have not been answered yet. */
  get pendingCalls(): number {
    return this.pending.size;
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  /** Call after `server.connect(transport)`: the server's handlers are in place then, and are wrapped. */
  attach(transport: Transport): void {
    const deliver = transport.onmessage;
    const send = transport.send.bind(transport);
    const calls = new Map<RequestId, PendingCall>();
    transport.onmessage = (message, extra) => {
      if (isJSONRPCRequest(message) && message.method === 'tools/call') {
        const tool = typeof message.params?.name === 'string' ? message.params.name : '?';
        if (this.stopping) {
          void send(toolAnswer(message.id, `error [stopping]: ${STOPPING_MESSAGE}`)).catch(() => undefined);
          return;
        }
        const call: PendingCall = { id: message.id, tool, send, abandoned: false };
        calls.set(message.id, call);
        this.pending.add(call);
      } else if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') {
        // The SDK sends nothing for a call its client cancelled: nobody waits for it any more.
        const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
        const call = id === undefined ? undefined : calls.get(id);
        if (call) this.settle(calls, call);
      }
      deliver?.(message, extra);
    };
    transport.send = async (message, options) => {
      const id = isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message) ? message.id : undefined;
      const call = id === undefined ? undefined : calls.get(id);
      if (!call) return send(message, options);
      if (call.abandoned) return;
      try {
        await send(message, options);
      } finally {
        this.settle(calls, call);
      }
    };
    const closed = transport.onclose;
    transport.onclose = () => {
      // The client is gone: there is nobody to answer.
      for (const call of [...calls.values()]) this.settle(calls, call);
      closed?.();
    };
  }

  /** From now on a new tool call is answered at once that the server is stopping. */
  stop(): void {
    this.stopping = true;
  }

  /** Resolves once no tool call is pending. */
  idle(): Promise<void> {
    if (this.pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Answers every pending call with `message` (their outcome is unknown), waiting at most
   * `waitMs` for the answers to be written; returns the tools of the calls it answered.
   */
  async abandon(message: string, waitMs: number): Promise<string[]> {
    const calls = [...this.pending];
    const sent = calls.map((call) => {
      call.abandoned = true;
      return call.send(toolAnswer(call.id, message)).catch(() => undefined);
    });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(sent), new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
    for (const call of calls) this.pending.delete(call);
    this.wakeIfIdle();
    return calls.map((c) => c.tool);
  }

  private settle(calls: Map<RequestId, PendingCall>, call: PendingCall): void {
    calls.delete(call.id);
    this.pending.delete(call);
    this.wakeIfIdle();
  }

  private wakeIfIdle(): void {
    if (this.pending.size > 0) return;
    for (const wake of this.idleWaiters.splice(0)) wake();
  }
}

/** A tool error result: the model reads it like any failed call. */
function toolAnswer(id: RequestId, text: string): JSONRPCMessage {
  const result: CallToolResult = { isError: true, content: [{ type: 'text', text }] };
  return { jsonrpc: '2.0', id, result };
}
