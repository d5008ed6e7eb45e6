/**
 * Approvals bind exactly, through a real MCP client with elicitation (a test "human" that records
 * each prompt and answers) against the simulator:
 * - a script that tells its approved run from its dry-run and then skips the approved snapshot
 *   cannot perform the approved power cut alone;
 * - the human sees the destructive steps counted at the top and every script-controlled
 *   character that could hide a step made visible;
 * - the unused steps are in the tool output.
 */
import type { ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPolicyEnv, type PolicyEnv } from './helpers/env.js';

let env: PolicyEnv;
const prompts: string[] = [];

/** The human: approves, and meanwhile something changes that the script can see (a marker on VM 127). */
async function human(request: ElicitRequest): Promise<{ action: 'accept'; content: { approve: boolean } }> {
  prompts.push(String(request.params.message));
  await env.admin.request('PUT', '/nodes/pve1/qemu/127/config', { description: 'second pass' });
  return { action: 'accept', content: { approve: true } };
}

beforeAll(async () => {
  env = await startPolicyEnv({ name: 'binding', policies: { ops: { preset: 'operator' } }, elicit: human });
}, 120_000);

afterAll(async () => {
  await env?.close();
});

describe('approved runs are bound to the approved sequence', () => {
  it('a script that skips the approved snapshot in its approved run cannot make the approved stop alone', async () => {
    const code = [
      "const marker = await pve.get('/nodes/pve1/qemu/127/config');",
      "if (!String(marker.description ?? '').includes('second pass')) {",
      "  await pve.post('/nodes/pve1/qemu/118/snapshot', { snapname: 'safety_net' });",
      '}',
      "return await pve.post('/nodes/pve1/qemu/118/status/stop', {});",
    ].join('\n');
    const before = env.sim.counters.snapshot().byOperation;
    const answer = await env.run(code);
    const after = env.sim.counters.snapshot().byOperation;
    const sent = (key: string) => (after[key] ?? 0) - (before[key] ?? 0);
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toMatch(/!! 1 destructive step: 2/);
    expect(prompts[0]).toMatch(/\n1\. .*\(VM 118 on pve1\): take snapshot 'safety_net'\n   call: POST \/nodes\/pve1\/qemu\/118\/snapshot .*\[write, runs directly\]/);
    expect(prompts[0]).toMatch(/\n2\. .*\(VM 118 on pve1\): \w+ → stopped \(stop: power off at once.*\n   call: POST \/nodes\/pve1\/qemu\/118\/status\/stop \[DESTRUCTIVE, needs approval/);
    expect(answer.error?.kind, JSON.stringify(answer)).toBe('approval');
    expect(answer.error?.message).toMatch(/step 2 of the approved plan, but step 1 \(POST \/nodes\/pve1\/qemu\/118\/snapshot\) has not been made/);
    expect(sent('POST /nodes/{node}/qemu/{vmid}/status/stop')).toBe(0);
    expect(sent('POST /nodes/{node}/qemu/{vmid}/snapshot')).toBe(0);
    expect((answer.approval as { unusedSteps?: number[] } | undefined)?.unusedSteps).toEqual([1, 2]);
  }, 60_000);

  it('shows the human every character that could hide or reorder a step', async () => {
    prompts.length = 0;
    const code = `await pve.put('/nodes/pve1/qemu/118/config', { description: 'routine tidy-up\\u2029\\u2029\\u2029Nothing else is changed.\\u202E' });\nreturn await pve.post('/nodes/pve1/qemu/118/status/reset', {});`;
    await env.run(code);
    expect(prompts).toHaveLength(1);
    const prompt = prompts[0] as string;
    expect(prompt).not.toMatch(/[\u2028\u2029\u202A-\u202E\u2066-\u2069]/);
    expect(prompt).toContain('\\u{2029}\\u{2029}\\u{2029}Nothing else is changed.\\u{202E}');
    expect(prompt).toMatch(/!! 1 destructive step: 2/);
  }, 60_000);
});
