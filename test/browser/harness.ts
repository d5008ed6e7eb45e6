/**
 * The one headless-browser harness for the console and MCP Apps tests: Debian's Chromium driven by
 * playwright-core. Under CI=true a missing browser fails the suite (.ci/run installs it); elsewhere
 * the suites that need it skip and say why.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why browser tests cannot run here, or undefined when they can. Throws under CI instead. */
export function browserUnavailable(): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined;
  const why = `no Chromium at ${CHROMIUM_PATH} (install Debian's chromium, or set CHROMIUM_PATH)`;
  if (process.env.CI === 'true') throw new Error(`browser tests must run under CI: ${why}`);
  return why;
}

export interface BrowserSession {
  readonly browser: Browser;
  /** A fresh context (own cookies and storage) per call: one per user in a four-eyes test. */
  newContext(options?: { ignoreHTTPSErrors?: boolean }): Promise<BrowserContext>;
  /** A page in a fresh context that trusts the loopback test certificates. */
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

// Playwright gives each launch its own empty profile. The machine's network is closed: without the background-networking flags Chromium keeps trying
// to reach Google's hosts at every start.
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];

export async function launchBrowser(): Promise<BrowserSession> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: FLAGS,
  });
  return {
    browser,
    newContext: (options) => browser.newContext({ ignoreHTTPSErrors: options?.ignoreHTTPSErrors ?? true }),
    async newPage() {
      const context = await browser.newContext({ ignoreHTTPSErrors: true });
      return context.newPage();
    },
    async close() {
      await browser.close();
    },
  };
}
