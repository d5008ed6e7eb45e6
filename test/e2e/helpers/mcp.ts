/** MCP SDK clients connected to the built server: over stdio (spawned per client) or Streamable HTTP. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  type CallToolResult,
  type ElicitRequest,
  type ElicitResult,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { BIN, REPO_ROOT, type E2eEnv } from './harness.js';

export interface ClientOptions {
  name: string;
  /** Answer approval questions (declares the elicitation capability); absent: the client cannot elicit. */
  elicit?: (request: ElicitRequest) => ElicitResult;
}

export interface Connected {
  client: Client;
  /** Elicitation requests received so far. */
  elicitations: ElicitRequest[];
  /** `notifications/message` payloads received so far. */
  logs: unknown[];
  /** What the server process wrote to stderr (stdio only). */
  stderr(): string;
  /** The server process (stdio only). */
  pid?: number;
  close(): Promise<void>;
}

function makeClient(options: ClientOptions): Omit<Connected, 'stderr' | 'close'> {
  const client = new Client({ name: options.name, version: '1.0.0' }, { capabilities: options.elicit ? { elicitation: {} } : {} });
  const elicitations: ElicitRequest[] = [];
  const logs: unknown[] = [];
  const elicit = options.elicit;
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      elicitations.push(request);
      return elicit(request);
    });
  }
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.push(n.params.data);
  });
  return { client, elicitations, logs };
}

export async function connectStdio(env: E2eEnv, options: ClientOptions, configFile = env.configFile): Promise<Connected> {
  const parts = makeClient(options);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve', '--config', configFile],
    env: env.env,
    cwd: REPO_ROOT,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  try {
    await parts.client.connect(transport, { timeout: 120_000 });
  } catch (err) {
    throw new Error(`cannot connect to the stdio server: ${String(err)}\nserver stderr:\n${stderr}`);
  }
  return { ...parts, stderr: () => stderr, ...(transport.pid !== null ? { pid: transport.pid } : {}), close: () => parts.client.close() };
}

/** `auth`: the static bearer token, or an OAuth provider (the SDK gets and refreshes its tokens). */
export async function connectHttp(url: string, auth: string | OAuthClientProvider, options: ClientOptions): Promise<Connected> {
  const parts = makeClient(options);
  const transport = new StreamableHTTPClientTransport(new URL(url), typeof auth === 'string' ? { requestInit: { headers: { Authorization: `Bearer ${auth}` } } } : { authProvider: auth });
  await parts.client.connect(transport);
  return {
    ...parts,
    stderr: () => '',
    async close() {
      await transport.terminateSession().catch(() => undefined);
      await parts.client.close();
    },
  };
}

export interface HttpServerProcess {
  url: string;
  token: string;
  child: ChildProcessWithoutNullStreams;
  stderr(): string;
  close(): Promise<void>;
}

/** `serve --http --port 0`: the real URL is read from the server's stderr banner. */
export async function startHttpServe(env: E2eEnv, token: string, extraArgs: string[] = []): Promise<HttpServerProcess> {
  return { ...(await spawnHttpServe(env, ['--token', token, ...extraArgs])), token };
}

/** `serve --config <file> --http --port 0 <args>` (a token or an `http.oauth` config), started when its banner names the URL. */
export async function spawnHttpServe(env: Pick<E2eEnv, 'configFile' | 'env'>, args: string[]): Promise<Omit<HttpServerProcess, 'token'>> {
  const child = spawn(process.execPath, [BIN, 'serve', '--config', env.configFile, '--http', '--port', '0', ...args], {
    cwd: REPO_ROOT,
    env: env.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the HTTP server did not start within 120 s:\n${stderr}`)), 120_000);
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      const m = /MCP over Streamable HTTP: (http:\/\/\S+)/.exec(stderr);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the HTTP server exited (${code}) before listening:\n${stderr}`));
    });
  });
  return {
    url,
    child,
    stderr: () => stderr,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export interface ToolCall {
  result: CallToolResult;
  progress: Progress[];
}

/** `tools/call` with a progress token (the SDK adds one when `onprogress` is given). */
export async function callTool(
  c: Connected,
  name: string,
  args: Record<string, unknown>,
  options: { signal?: AbortSignal; timeout?: number; onProgress?: (p: Progress) => void } = {},
): Promise<ToolCall> {
  const progress: Progress[] = [];
  const result = (await c.client.callTool({ name, arguments: args }, CallToolResultSchema, {
    onprogress: (p) => {
      progress.push(p);
      options.onProgress?.(p);
    },
    timeout: options.timeout ?? 60_000,
    ...(options.signal ? { signal: options.signal } : {}),
  })) as CallToolResult;
  return { result, progress };
}

export function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
}

/** The structured `run_script` answer (contract: {ok, result, logs, stats, plan?, error?}). */
export interface RunAnswer {
  ok: boolean;
  result: unknown;
  logs: string[];
  stats: Record<string, unknown>;
  plan?: { planId: string; summary?: string; writes: Array<{ method: string; path: string; risk: string }> };
  error?: { kind?: string; message?: string };
  approval?: { required: boolean; via?: string; answer?: string; message: string };
}

export function runAnswer(result: CallToolResult): RunAnswer {
  if (!result.structuredContent) throw new Error(`run_script returned no structured content: ${textOf(result)}`);
  return result.structuredContent as unknown as RunAnswer;
}
