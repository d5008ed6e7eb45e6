import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailable, launchBrowser, type BrowserSession } from './harness.js';

const skip = browserUnavailable();

describe.skipIf(skip !== undefined)('browser harness', () => {
  let session: BrowserSession;
  const server = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end('<button id="b" onclick="this.textContent=\'clicked\'">press</button>');
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    session = await launchBrowser();
  });
  afterAll(async () => {
    await session?.close();
    server.close();
  });

  it('drives a page on loopback: a click changes what the page shows', async () => {
    const page = await session.newPage();
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await page.click('#b');
    expect(await page.textContent('#b')).toBe('clicked');
  });
});
