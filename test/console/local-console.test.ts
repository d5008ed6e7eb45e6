/**
 * `pve-code-mcp console` for the operator on the host: the one-time link signs the browser in
 * (once), the plan a dry-run stored is listed and approved there, and the same script then runs
 * on that approval against the simulator.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailable, launchBrowser, type BrowserSession } from '../browser/harness.js';
import { BIN, REPO_ROOT, runCli, startE2eEnv, type E2eEnv } from '../e2e/helpers/harness.js';
import { statusOf, stopScript } from '../e2e/helpers/flows.js';

const skip = browserUnavailable();

describe.skipIf(skip !== undefined)('pve-code-mcp console on 127.0.0.1 with a one-time login link', () => {
  let env: E2eEnv;
  let browser: BrowserSession;
  let child: ChildProcess | undefined;
  let stderr = '';

  beforeAll(async () => {
    env = await startE2eEnv({ sandbox: { workers: 1 } });
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child?.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    await browser?.close();
    await env?.close();
  });

  it('signs in once with the printed link, lists the stored plan, approves it, and the script runs on it', async () => {
    // The kill switch's file of this test alone (the default is shared by every test on the machine).
    const config = JSON.parse(readFileSync(env.configFile, 'utf8')) as Record<string, unknown>;
    writeFileSync(env.configFile, JSON.stringify({ ...config, halt: { file: join(env.dir, 'halt') } }, null, 2), { mode: 0o600 });
    const script = join(env.dir, 'stop.ts');
    writeFileSync(script, stopScript('pve1', 100));
    const dry = await runCli(['run', '--config', env.configFile, '--dry-run', script], { env: env.env, timeoutMs: 120_000 });
    const planId = /[0-9a-f]{64}/.exec(dry.stdout + dry.stderr)?.[0] as string;
    expect(planId, dry.stdout + dry.stderr).toBeDefined();

    child = spawn(process.execPath, [BIN, 'console', '--config', env.configFile], { cwd: REPO_ROOT, env: env.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const link = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no login link within 30 s:\n${stderr}`)), 30_000);
      child?.stderr?.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
        const m = /(http:\/\/127\.0\.0\.1:\d+\/console\/auth\/[\w-]{43})/.exec(stderr);
        if (m?.[1]) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
    });
    const origin = new URL(link).origin;
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(link);
    await page.waitForURL(`${origin}/console/`);
    expect(await page.innerText('header')).toContain(userInfo().username);
    expect(await page.innerText('main')).toContain(planId.slice(0, 12));

    // The link is spent: another browser gets nothing from it.
    const again = await (await browser.newContext()).newPage();
    const response = await again.goto(link);
    expect(response?.status()).toBe(401);

    await page.click(`a[href="/console/plans/${planId}"]`);
    await page.getByRole('button', { name: /Approve/ }).click();
    await page.waitForSelector('.notice');
    expect(await page.innerText('.notice')).toContain('Approved');

    const ran = await runCli(['run', '--config', env.configFile, script], { env: env.env, timeoutMs: 120_000 });
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    expect(statusOf(env.sim, 100)).toBe('stopped');
  }, 240_000);
});
