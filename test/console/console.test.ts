/**
 * The web console end to end: the built server in OAuth mode with a console client, a real
 * OpenID provider (oidc-provider) on 127.0.0.1, the simulated cluster, Debian's Chromium through
 * the shared harness, and SDK clients that declare URL-mode elicitation at the SDK's default 60 s
 * request timeout.
 *
 * - An agent's run that needs approval (destroying a VM) ends at once with -32042 naming the
 *   console's plan page; the person signs in through the provider (authorization code + PKCE),
 *   sees the plan's change and its blast radius (the disks and snapshot destroyed with it) and
 *   approves more than 60 s later; the client gets notifications/elicitation/complete, retries,
 *   and the VM is gone.
 * - Under four eyes the asker signing in to the console cannot approve its own plan.
 * - Forms without the session's CSRF token, with a wrong one, or from another Origin are refused.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitationCompleteNotificationSchema, UrlElicitationRequiredError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailable, launchBrowser, type BrowserSession } from '../browser/harness.js';
import { REPO_ROOT, startE2eEnv, type E2eEnv } from '../e2e/helpers/harness.js';
import { statusOf, stopScript } from '../e2e/helpers/flows.js';
import { runAnswer, spawnHttpServe } from '../e2e/helpers/mcp.js';
import { startLoginIdp, type AgentClient, type LoginIdp } from './helpers/login-idp.js';

const skip = browserUnavailable();
const AGENTS: AgentClient[] = [
  { id: 'alice', secret: 'alice-secret-0123456789', scope: 'pve:read pve:write', groups: ['ops'] },
  { id: 'bob', secret: 'bob-secret-0123456789', scope: 'pve:read pve:write', groups: ['fe'] },
];
const PEOPLE = [
  { id: 'alice', scope: 'pve:read pve:write', groups: ['ops'] },
  { id: 'bob', scope: 'pve:read pve:write pve:approve', groups: ['fe'] },
];
/** Set to write the docs' screenshots (docs/img/console-*.png). */
const SHOTS = process.env.CONSOLE_SCREENSHOTS === '1';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

interface UrlAgent {
  client: Client;
  completed: string[];
  close(): Promise<void>;
}

/** An SDK client that declares URL-mode elicitation only, with the SDK's default request timeout. */
async function urlAgent(url: string, issuer: string, id: string): Promise<UrlAgent> {
  const a = AGENTS.find((x) => x.id === id) as AgentClient;
  const client = new Client({ name: `${id}-agent`, version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
  const completed: string[] = [];
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => {
    completed.push(n.params.elicitationId);
  });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    authProvider: new ClientCredentialsProvider({ clientId: a.id, clientSecret: a.secret, scope: a.scope, expectedIssuer: issuer }),
  });
  await client.connect(transport);
  return {
    client,
    completed,
    close: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

/** Signs `user` in through the provider's form, starting from a console page. */
async function signIn(page: Page, start: string, user: string): Promise<void> {
  await page.goto(start);
  await page.getByRole('link', { name: /Sign in with/ }).click();
  await page.locator('input[name=login]').fill(user);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page
    .waitForURL((u) => u.pathname === new URL(start).pathname, { timeout: 15_000 })
    .catch(async (err: unknown) => {
      throw new Error(`signing in as ${user} ended at ${page.url()}: ${(await page.innerText('body').catch(() => '')).slice(0, 500)} (${String(err)})`);
    });
}

/** The text of the first element matching `selector`, once it is there (after a navigation). */
async function textOf(page: Page, selector: string): Promise<string> {
  const el = await page.waitForSelector(selector, { timeout: 15_000 }).catch(async (err: unknown) => {
    throw new Error(`no ${selector} on ${page.url()}: ${(await page.innerText('body').catch(() => '')).slice(0, 600)} (${String(err)})`);
  });
  return el.innerText();
}

async function until<T>(what: string, fn: () => T | undefined, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(skip !== undefined)('the web console with OpenID Connect login and URL-mode elicitation', () => {
  let env: E2eEnv;
  let idp: LoginIdp;
  let server: Awaited<ReturnType<typeof spawnHttpServe>>;
  let browser: BrowserSession;
  let url = '';
  let origin = '';
  const contexts: BrowserContext[] = [];
  const agents: UrlAgent[] = [];

  beforeAll(async () => {
    env = await startE2eEnv({ sandbox: { workers: 1 } });
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    idp = await startLoginIdp({ consoleClientId: 'pve-console', redirectUri: `${origin}/console/callback`, people: PEOPLE, agents: AGENTS });
    const config = JSON.parse(readFileSync(env.configFile, 'utf8')) as Record<string, unknown> & { policies: Record<string, unknown> };
    config.policies.ops = { preset: 'operator', allow: ['DELETE /nodes/{node}/qemu/{vmid}'], approval: { require: ['destructive'] } };
    config.policies.fourEyes = { preset: 'operator', approval: { require: ['destructive'], approvers: { group: 'leads' } } };
    // The kill switch's file of this test alone (the default is shared by every test on the machine).
    config.halt = { file: join(env.dir, 'halt') };
    config.http = {
      oauth: { issuer: idp.issuer, clockToleranceSec: 0 },
      console: { clientId: 'pve-console' },
      principals: [
        { group: 'ops', policy: 'ops' },
        { group: 'fe', policy: 'fourEyes' },
      ],
    };
    const file = join(env.dir, 'console.json');
    writeFileSync(file, JSON.stringify(config, null, 2), { mode: 0o600 });
    server = await spawnHttpServe({ configFile: file, env: env.env }, ['--port', String(port)]);
    url = server.url;
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    for (const a of agents) await a.close().catch(() => undefined);
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await server?.close();
    await idp?.close();
    await env?.close();
  });

  it('says where the console is', () => {
    expect(server.stderr()).toContain(`Console: ${origin}/console/ (sign in with ${idp.issuer})`);
  });

  it('under four eyes the asker signed in to the console cannot approve its own plan', async () => {
    const bob = await urlAgent(url, idp.issuer, 'bob');
    agents.push(bob);
    const call = await bob.client.callTool({ name: 'run_script', arguments: { code: `// bob's\n${stopScript('pve1', 100)}` } });
    const asked = runAnswer(call as CallToolResult);
    expect(asked.approval).toMatchObject({ answer: 'four-eyes' });
    const planId = asked.plan?.planId as string;
    // The hint names the console's page of the plan, where the approver can decide.
    expect(asked.approval?.message).toContain(`${origin}/console/plans/${planId}`);
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    await signIn(page, `${origin}/console/plans/${planId}`, 'bob');
    expect(await textOf(page, 'main')).toContain("bob's plan needs another person's approval (a member of group 'leads')");
    await page.getByRole('button', { name: /Approve/ }).click();
    expect(await textOf(page, '.error')).toContain('cannot approve it too');
    expect(statusOf(env.sim, 100)).toBe('running');
    expect(readFileSync(join(env.stateDir, 'approvals.jsonl'), 'utf8')).not.toContain('"type":"approve"');
  }, 120_000);

  it('ends the run at once with -32042; the person signs in, sees the change and its blast radius, approves after the 60 s default; the retried call runs', async () => {
    const alice = await urlAgent(url, idp.issuer, 'alice');
    agents.push(alice);
    // A guest destroy has a blast radius (guest-destroy: its disks and snapshots go with it).
    const code = "const upid = await pve.delete('/nodes/pve1/qemu/118', { purge: 1 });\nreturn (await pve.waitTask(upid)).exitstatus;";
    // The SDK's default request timeout (60 s) applies: the call must not wait for the person.
    const started = Date.now();
    const error = await alice.client.callTool({ name: 'run_script', arguments: { code } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    const [elicitation] = (error as UrlElicitationRequiredError).elicitations;
    expect(elicitation).toMatchObject({ mode: 'url' });
    const planId = /\/console\/plans\/([0-9a-f]{64})$/.exec(elicitation?.url ?? '')?.[1] as string;
    expect(elicitation?.url).toBe(`${origin}/console/plans/${planId}`);
    expect(statusOf(env.sim, 118)).toBe('stopped');

    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    await signIn(page, elicitation?.url as string, 'alice');
    const plan = JSON.parse(readFileSync(join(env.stateDir, 'plans', `${planId}.json`), 'utf8')) as {
      writes: Array<{ change?: { summary: string }; blastRadius?: { family: string; summary: string; complete: boolean; items: Array<{ what: string; effect: string }> } }>;
    };
    const main = await textOf(page, 'main');
    expect(main).toContain('DELETE /nodes/pve1/qemu/118');
    expect(main).toContain('needs approval');
    if (plan.writes[0]?.change) expect(main).toContain(plan.writes[0].change.summary);
    expect(main).toContain('a client is waiting for this decision');
    // The blast radius the server computed, as the page shows it: its summary, then what it reaches.
    const radius = plan.writes[0]?.blastRadius;
    expect(radius, JSON.stringify(plan.writes[0])).toMatchObject({ family: 'guest-destroy', complete: true });
    const shown = await textOf(page, '#step-1 .blast');
    expect(shown).toContain(`Blast radius guest-destroy: ${radius?.summary}`);
    expect(radius?.items.length).toBeGreaterThan(0);
    for (const item of radius?.items ?? []) expect(shown).toContain(`${item.what}: ${item.effect}`);
    expect(shown).not.toContain('worst case');
    expect(await textOf(page, 'main table')).toContain(`step 1: ${radius?.summary}`);
    // The list of plans says the step reaches further, before the plan is opened.
    await page.goto(`${origin}/console/`);
    expect(await textOf(page, `main tr:has(a[href="/console/plans/${planId}"])`)).toContain(`blast radius: ${radius?.summary}`);
    await page.goto(elicitation?.url as string);
    if (SHOTS) await page.screenshot({ path: shot('console-plan.png'), fullPage: true });

    // Past the SDK's default request timeout: a waiting call would have been cut off by now.
    await new Promise((r) => setTimeout(r, 61_000));
    await page.getByRole('button', { name: /Approve/ }).click();
    expect(await textOf(page, '.notice')).toContain('Approved');
    await until('the elicitation/complete notification', () => (alice.completed.includes(elicitation?.elicitationId as string) ? true : undefined));

    const ran = runAnswer((await alice.client.callTool({ name: 'run_script', arguments: { code } })) as CallToolResult);
    expect(ran.error, JSON.stringify(ran)).toBeUndefined();
    expect(ran.approval).toMatchObject({ via: 'operator', answer: 'approved', approvedBy: 'alice' });
    expect(statusOf(env.sim, 118)).toBeUndefined();

    await page.goto(`${origin}/console/runs`);
    const runs = await textOf(page, 'main');
    expect(runs).toContain('DELETE /nodes/pve1/qemu/118');
    expect(runs).toContain('hash chain intact');
    if (SHOTS) await page.screenshot({ path: shot('console-runs.png'), fullPage: true });
  }, 180_000);

  it('a decline in the console ends the retried call with the plan id; nothing is sent', async () => {
    const alice = agents[1] as UrlAgent;
    const page = await (contexts[1] as BrowserContext).newPage();
    const code = `// once more\n${stopScript('pve1', 100)}`;
    const error = (await alice.client.callTool({ name: 'run_script', arguments: { code } }).then(
      () => undefined,
      (e: unknown) => e,
    )) as UrlElicitationRequiredError;
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    const elicitation = error.elicitations[0];
    const planId = /([0-9a-f]{64})$/.exec(elicitation?.url ?? '')?.[1] as string;
    await page.goto(elicitation?.url as string);
    await page.getByRole('button', { name: 'Decline' }).click();
    expect(await textOf(page, '.notice')).toContain('Declined');
    await until('the elicitation/complete notification', () => (alice.completed.includes(elicitation?.elicitationId as string) ? true : undefined));
    const declined = runAnswer((await alice.client.callTool({ name: 'run_script', arguments: { code } })) as CallToolResult);
    expect(declined.error?.kind).toBe('approval');
    expect(declined.approval).toMatchObject({ answer: 'decline', planId });
    expect(declined.error?.message).toContain(planId);
    expect(declined.changes).toBeUndefined();
  }, 60_000);

  it("explores the API under the signed-in principal's policy: search, signature, a live read and a write as a dry-run", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, `${origin}/console/explore`, 'alice');
    await page.goto(`${origin}/console/explore?q=${encodeURIComponent('stop a virtual machine')}`);
    const found = await textOf(page, 'main table');
    expect(found).toContain('POST /nodes/{node}/qemu/{vmid}/status/stop');
    expect(found, found).toContain('needs approval');
    await page.click(`a[href="/console/explore/op?spec=${encodeURIComponent('POST /nodes/{node}/qemu/{vmid}/status/stop')}"]`);
    const op = await textOf(page, 'main');
    expect(op).toContain('Permission: ');
    expect(op).toContain('Your policy (ops on sim): needs approval');
    expect(await page.inputValue('textarea[name=code]')).toContain("pve.post('/nodes/{node}/qemu/{vmid}/status/stop'");
    await page.fill('textarea[name=code]', "return await pve.post('/nodes/{node}/qemu/{vmid}/status/stop', { node: 'pve1', vmid: 109 });");
    await page.getByRole('button', { name: 'Run as a dry-run' }).click();
    const planned = await textOf(page, 'main');
    expect(planned).toContain('Planned writes (nothing was sent)');
    expect(planned).toContain('dry-run');
    expect(planned).toContain('VM 109 on pve1');
    const before = statusOf(env.sim, 109);
    expect(before).toBeDefined();

    await page.goto(`${origin}/console/explore/op?spec=${encodeURIComponent('GET /nodes/{node}/qemu')}`);
    await page.fill('textarea[name=code]', "return (await pve.get('/nodes/{node}/qemu', { node: 'pve1' })).map((v) => v.vmid).sort();");
    await page.getByRole('button', { name: 'Run as a dry-run' }).click();
    expect(await textOf(page, 'pre.result')).toContain('109');
    expect(await page.innerText('main')).not.toContain('Planned writes');
    if (SHOTS) await page.screenshot({ path: shot('console-explorer.png'), fullPage: true });
    expect(statusOf(env.sim, 109)).toBe(before);
  }, 60_000);

  it('refuses forms without the CSRF token, with a wrong one, or from another Origin', async () => {
    // Bob's session, from the four-eyes test.
    const context = contexts[0] as BrowserContext;
    const cookie = (await context.cookies(origin)).find((c) => c.name === 'pve-console');
    expect(cookie).toBeDefined();
    expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Strict' });
    const page = await context.newPage();
    await page.goto(`${origin}/console/`);
    const csrf = await page.locator('form.logout input[name=csrf]').getAttribute('value');
    expect(csrf).toMatch(/^[\w-]{43}$/);
    expect(await page.content()).not.toContain(cookie?.value as string);
    const post = (body: string, headers: Record<string, string>) =>
      fetch(`${origin}/console/logout`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: `pve-console=${cookie?.value}`, 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body,
      });
    const missing = await post('', { origin });
    expect(missing.status).toBe(403);
    expect(await missing.text()).toContain('CSRF token mismatch');
    expect((await post('csrf=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', { origin })).status).toBe(403);
    const foreign = await post(`csrf=${csrf}`, { origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect(await foreign.text()).toContain('Origin http://evil.example');
    expect((await post(`csrf=${csrf}`, {})).status).toBe(403);
    // The same form from the console's own page with its token is accepted.
    const ok = await post(`csrf=${csrf}`, { origin });
    expect(ok.status).toBe(303);
  }, 60_000);
});

function shot(name: string): string {
  const dir = join(REPO_ROOT, 'docs', 'img');
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
  return join(dir, name);
}
