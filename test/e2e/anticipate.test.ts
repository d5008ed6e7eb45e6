/**
 * get_schema starts the type-check process in the background: an agent reading signatures is about
 * to write a script, and its first checked run would otherwise pay the process's cold start.
 * Nothing before that (start, tools/list, search_api) starts it, and a process already up is not
 * started twice. Read from /proc: the server's child processes, by their entry file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startE2eEnv, type E2eEnv } from './helpers/harness.js';
import { callTool, connectStdio, type Connected } from './helpers/mcp.js';

/** The command lines of `pid`'s children. */
function childCommands(pid: number): string[] {
  const out: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name (in parentheses) may hold spaces: the parent pid is the second field after it.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' '));
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

const typeCheckProcesses = (pid: number) => childCommands(pid).filter((c) => c.includes('typecheck-entry.js')).length;

describe.skipIf(process.platform !== 'linux')('the type-check process, anticipated by get_schema', () => {
  let env: E2eEnv;
  let c: Connected;
  beforeAll(async () => {
    env = await startE2eEnv();
    c = await connectStdio(env, { name: 'agent' });
  }, 120_000);
  afterAll(async () => {
    await c?.close();
    await env?.close();
  });

  it('is not started by start-up, tools/list or search_api; get_schema starts it; the checked run uses that one', async () => {
    const pid = c.pid as number;
    await c.client.listTools();
    await callTool(c, 'search_api', { query: 'list virtual machines on a node' });
    expect(typeCheckProcesses(pid)).toBe(0);

    const schema = await callTool(c, 'get_schema', { operations: ['GET /nodes/{node}/qemu'] });
    expect(schema.result.isError).toBeFalsy();
    await vi.waitFor(() => expect(typeCheckProcesses(pid)).toBe(1), { timeout: 30_000, interval: 50 });

    // Again: the process is up, nothing more starts.
    await callTool(c, 'get_schema', { operations: ['GET /nodes'] });
    const run = await callTool(c, 'run_script', { code: "const vms = await pve.get('/nodes/{node}/qemu', { node: 'pve1' });\nreturn vms.length;" });
    expect(run.result.isError).toBeFalsy();
    expect(typeCheckProcesses(pid)).toBe(1);
  }, 120_000);

  it('a get_schema that names nothing leaves it as it is', async () => {
    const pid = c.pid as number;
    const before = typeCheckProcesses(pid);
    const schema = await callTool(c, 'get_schema', { operations: ['GET /no/such/path'] });
    expect(schema.result.isError).toBe(true);
    expect(typeCheckProcesses(pid)).toBe(before);
  });
});
