/**
 * Script output reaches the MCP client live, once per line, at the level the script logged at,
 * related to the tool call that produced it.
 */
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectStdio, type Connected } from './helpers/mcp.js';
import { startE2eEnv, type E2eEnv } from './helpers/harness.js';

let env: E2eEnv;
let mcp: Connected;
const seen: Array<{ level: string; data: unknown }> = [];

beforeAll(async () => {
  env = await startE2eEnv();
  mcp = await connectStdio(env, { name: 'logs' });
  mcp.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    seen.push({ level: n.params.level, data: n.params.data });
  });
}, 120_000);

afterAll(async () => {
  await mcp?.close();
  await env?.close();
});

describe('console output of a script', () => {
  it('arrives once per line, at its level', async () => {
    const code = "console.log('plain line'); console.warn('careful line'); console.error('broken line'); console.debug('detail line'); return 1;";
    await callTool(mcp, 'run_script', { code });
    const levels = Object.fromEntries(seen.map((s) => [String(s.data).replace(/^\[\w+\] /, ''), s.level]));
    expect(levels).toEqual({ 'plain line': 'info', 'careful line': 'warning', 'broken line': 'error', 'detail line': 'debug' });
    expect(seen).toHaveLength(4);
  });

  it('follows logging/setLevel: lines below the level are not sent, the result still carries them', async () => {
    seen.length = 0;
    await mcp.client.setLoggingLevel('warning');
    const code = "console.log('plain line'); console.warn('careful line'); console.error('broken line'); console.debug('detail line'); return 1;";
    const { result } = await callTool(mcp, 'run_script', { code });
    expect(seen.map((s) => s.level).sort()).toEqual(['error', 'warning']);
    expect(JSON.stringify(result.structuredContent)).toContain('plain line');
    await mcp.client.setLoggingLevel('debug');
    seen.length = 0;
    await callTool(mcp, 'run_script', { code });
    expect(seen).toHaveLength(4);
  });
});
