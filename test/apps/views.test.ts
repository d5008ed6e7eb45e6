/**
 * The run_script view in a real headless browser, inside a minimal MCP Apps host (test/apps/host.ts:
 * the ext-apps SDK's AppBridge), fed by a real MCP client that declares the MCP Apps extension,
 * against the built server over Streamable HTTP (and stdio) and a 40-guest simulator; the console
 * link from a server made in process with a console URL (the built server serves no console with a
 * static token). And the other side: a client without the extension sees tools/list, resources and
 * results as they were.
 *
 * UPDATE_SCREENSHOTS=1 writes the screenshots docs/apps.md shows (docs/img/apps-*.png).
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { encode as encodeO200k } from 'gpt-tokenizer';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync } from 'node:fs';
import { parseAppConfig } from '../../src/app/config/app-config.js';
import { Product } from '../../src/app/product.js';
import { createMcpServer } from '../../src/server/mcp.js';
import { browserUnavailable, launchBrowser, type BrowserSession } from '../browser/harness.js';
import { BIN, REPO_ROOT, startE2eEnv, type E2eEnv } from '../e2e/helpers/harness.js';
import { startHttpServe, type HttpServerProcess } from '../e2e/helpers/mcp.js';
import { hostCsp, mountView, type MountedView } from './host.js';

const skip = browserUnavailable();
const TOKEN = 'apps-e2e-token-0123456789abcdef';
const UI = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1';

const GUESTS = `
const guests = await pve.get('/cluster/resources', { type: 'vm' });
return guests.map((g) => ({ vmid: g.vmid, name: g.name, node: g.node, type: g.type, status: g.status, cpu: g.cpu, mem: g.mem, maxmem: g.maxmem, uptime: g.uptime }));`;
const NODE_RRD = `
const [first] = await pve.get('/nodes');
return pve.get('/nodes/{node}/rrddata', { node: first.node, timeframe: 'hour' });`;
const CT_RRD = `
const ct = (await pve.get('/cluster/resources', { type: 'vm' })).find((g) => g.type === 'lxc' && g.status === 'running')!;
return pve.get('/nodes/{node}/lxc/{vmid}/rrddata', { node: ct.node, vmid: ct.vmid, timeframe: 'hour' });`;
// A config change (allowed under the e2e policy) and a hard stop (destructive: needs a human).
const PLAN = `
const guests = await pve.get('/cluster/resources', { type: 'vm' });
const g = guests.find((x) => x.type === 'qemu' && x.status === 'running' && !x.template)!;
await pve.put('/nodes/{node}/qemu/{vmid}/config', { node: g.node, vmid: g.vmid, memory: '8192' });
await pve.post('/nodes/{node}/qemu/{vmid}/status/stop', { node: g.node, vmid: g.vmid });
return { stopped: g.vmid };`;

interface ViewResource {
  html: string;
  csp: string;
}

async function connect(url: string, capabilities: Record<string, unknown>): Promise<Client> {
  const client = new Client({ name: 'apps-e2e', version: '1.0.0' }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
  return client;
}

async function run(client: Client, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name: 'run_script', arguments: args }, CallToolResultSchema, { timeout: 90_000 })) as CallToolResult;
}

async function readView(client: Client, uri: string): Promise<ViewResource> {
  const read = await client.readResource({ uri });
  const content = read.contents[0] as { text: string; mimeType: string; _meta?: { ui?: { csp?: Record<string, string[]> } } };
  expect(content.mimeType).toBe('text/html;profile=mcp-app');
  return { html: content.text, csp: hostCsp(content._meta?.ui?.csp) };
}

function planIdOf(result: CallToolResult): string {
  const planId = (result.structuredContent as { plan?: { planId: string } } | undefined)?.plan?.planId;
  if (!planId) throw new Error(`the run returned no plan: ${JSON.stringify(result.content)}`);
  return planId;
}

/** Timing is the only thing two runs of one read-only script may differ in. */
function untimed(result: CallToolResult): unknown {
  const text = JSON.stringify(result).replace(/\(\d+ ms;/g, '(N ms;');
  const parsed = JSON.parse(text) as { structuredContent?: { stats?: Record<string, unknown> } };
  delete parsed.structuredContent?.stats?.ms;
  delete parsed.structuredContent?.stats?.cpuMs;
  return parsed;
}

describe.skipIf(skip !== undefined)('MCP Apps: the run_script view', () => {
  let env: E2eEnv;
  let server: HttpServerProcess;
  let apps: Client;
  let plain: Client;
  let browser: BrowserSession;
  let runScript: Tool;
  let view: ViewResource;
  const requests: string[] = [];
  const cspErrors: string[] = [];

  beforeAll(async () => {
    env = await startE2eEnv({ preset: 'scale-40' });
    server = await startHttpServe(env, TOKEN);
    [apps, plain, browser] = await Promise.all([connect(server.url, UI), connect(server.url, {}), launchBrowser()]);
    runScript = (await apps.listTools()).tools.find((t) => t.name === 'run_script')!;
    view = await readView(apps, (runScript._meta as { ui: { resourceUri: string } }).ui.resourceUri);
  }, 180_000);

  afterAll(async () => {
    await Promise.allSettled([apps?.close(), plain?.close(), browser?.close()]);
    await server?.close();
    await env?.close();
  });

  async function show(args: Record<string, unknown>, viewResource = view): Promise<{ page: Page; mounted: MountedView; result: CallToolResult }> {
    const result = await run(apps, args);
    const page = await browser.newPage();
    const lines: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('pageerror', (e) => lines.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      lines.push(`${m.type()}: ${m.text()}`);
      if (/Content.Security.Policy|Refused to/i.test(m.text())) cspErrors.push(m.text());
    });
    try {
      const mounted = await mountView(page, { ...viewResource, tool: runScript, input: args, result });
      return { page, mounted, result };
    } catch (err) {
      throw new Error(`the view did not start: ${String(err)}\nbrowser console:\n${lines.join('\n')}`);
    }
  }

  async function screenshot(page: Page, name: string): Promise<void> {
    if (!SCREENSHOTS) return;
    mkdirSync(join(REPO_ROOT, 'docs', 'img'), { recursive: true });
    // The whole view inside the viewport: Chromium does not paint an iframe's parts outside it.
    await page.setViewportSize({ width: 940, height: 1400 });
    await page.waitForTimeout(300);
    await page.locator('#view').screenshot({ path: join(REPO_ROOT, 'docs', 'img', `apps-${name}.png`) });
  }

  it('declares the view only to a host that negotiates MCP Apps; any other host sees tools, resources and results unchanged', async () => {
    expect(runScript._meta).toEqual({ ui: { resourceUri: 'ui://pve-code-mcp/run.html', visibility: ['model'] } });
    const withView = (await apps.listTools()).tools;
    const without = (await plain.listTools()).tools;
    expect(JSON.stringify(without)).not.toContain('_meta');
    expect(without).toEqual(withView.map(({ _meta, ...rest }) => rest));
    console.log(`tools/list tools: ${encodeO200k(JSON.stringify(without)).length} o200k tokens without MCP Apps, ${encodeO200k(JSON.stringify(withView)).length} with`);

    const listed = async (c: Client) => (await c.listResources()).resources.map((r) => r.uri);
    expect(await listed(apps)).toContain('ui://pve-code-mcp/run.html');
    expect(await listed(plain)).not.toContain('ui://pve-code-mcp/run.html');
    expect((await listed(apps)).filter((u) => !u.startsWith('ui://'))).toEqual(await listed(plain));
    await expect(plain.readResource({ uri: 'ui://pve-code-mcp/run.html' })).rejects.toThrow(/not found|ui:\/\//i);

    const code = `return (await pve.get('/nodes')).map((n) => n.node).sort();`;
    const [a, b] = await Promise.all([run(apps, { code }), run(plain, { code })]);
    expect(untimed(b)).toEqual(untimed(a));
    expect(JSON.stringify(b)).not.toMatch(/ui:\/\/|_meta/);
  }, 120_000);

  it('ships a page that needs no network: inline scripts allowed by hash, nothing else', () => {
    expect(view.html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-[^']+'; style-src 'sha256-[^']+'; img-src data:/);
    // The inlined bundle names URLs in strings (schema ids); what it may load is the CSP's business.
    expect(view.html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|<img[^>]+src=/i);
  });

  it('shows 40 guests as a table that sorts and filters, units humanised', async () => {
    const { page, mounted } = await show({ code: GUESTS });
    const table = mounted.frame.locator('table.rows');
    await expect.poll(() => table.locator('tbody tr').count()).toBe(40);
    expect(await mounted.frame.locator('.count').textContent()).toBe('40 rows');

    // Sorted by memory, raw bytes (not the "1.5 GiB" text), both ways.
    const raw = async (column: string) => {
      const index = await table.locator('thead th').evaluateAll((ths, c) => ths.findIndex((th) => (th as HTMLElement).dataset.column === c), column);
      return table.locator(`tbody tr td:nth-child(${index + 1})`).evaluateAll((tds) => tds.map((td) => (td as HTMLElement).title || td.textContent || ''));
    };
    await table.locator('th[data-column="maxmem"]').click();
    const up = (await raw('maxmem')).map(Number);
    expect(up).toEqual([...up].sort((x, y) => x - y));
    expect(new Set(up).size).toBeGreaterThan(1);
    await table.locator('th[data-column="maxmem"]').click();
    const down = (await raw('maxmem')).map(Number);
    expect(down).toEqual([...up].reverse());
    expect(await table.locator('th[data-column="maxmem"]').getAttribute('aria-sort')).toBe('descending');
    expect(await table.locator('tbody tr').first().locator('td').nth(7).textContent()).toMatch(/^\d+(\.\d)? (MiB|GiB)$/);
    // CPU as a percentage, uptime as a duration.
    expect((await mounted.frame.locator('tbody td').allTextContents()).some((t) => /^\d+(\.\d+)?%$/.test(t))).toBe(true);
    expect((await mounted.frame.locator('tbody td').allTextContents()).some((t) => /^\d+[dhms]( \d+[hms])?$/.test(t))).toBe(true);

    // Filtered by what the rows show.
    const stopped = (await raw('status')).filter((s) => s === 'stopped').length;
    expect(stopped).toBeGreaterThan(0);
    await mounted.frame.locator('input.filter').fill('stopped');
    await expect.poll(() => table.locator('tbody tr').count()).toBe(stopped);
    expect(await mounted.frame.locator('.count').textContent()).toBe(`${stopped} of 40 rows`);
    await mounted.frame.locator('input.filter').fill('');
    await table.locator('th[data-column="vmid"]').click();
    await screenshot(page, 'table');
    await page.close();
  }, 120_000);

  it("draws RRD series (a node's, a container's) as SVG line charts, one per unit", async () => {
    const { page, mounted } = await show({ code: NODE_RRD });
    const charts = mounted.frame.locator('figure.chart');
    await expect.poll(() => charts.count()).toBeGreaterThan(1);
    const units = await charts.evaluateAll((figs) => figs.map((f) => (f as HTMLElement).dataset.unit));
    expect(units).toEqual(expect.arrayContaining(['percent', 'bytes', 'rate']));
    const cpu = mounted.frame.locator('figure[data-unit="percent"] path.series[data-field="cpu"]');
    const d = (await cpu.getAttribute('d')) ?? '';
    // One point per time step (PVE's hour has 70), drawn as a line.
    expect(d.match(/[ML][\d.]+,[\d.]+/g)?.length ?? 0).toBeGreaterThan(20);
    expect(await mounted.frame.locator('figure[data-unit="percent"] .tick').first().textContent()).toMatch(/%$/);
    // A capacity that never moves is named, not drawn over the axis of what moves.
    expect(await mounted.frame.locator('figure[data-unit="bytes"] .legend-item.constant[data-field="memtotal"]').textContent()).toMatch(/^memtotal \d+(\.\d)? GiB \(constant\)$/);
    expect(await mounted.frame.locator('figure[data-unit="bytes"] path.series[data-field="memused"]').count()).toBe(1);
    await screenshot(page, 'chart');
    await page.close();

    // A container's series: its I/O counters are rates.
    const guest = await show({ code: CT_RRD });
    const io = guest.mounted.frame.locator('figure[data-unit="rate"]');
    await expect.poll(() => io.count()).toBe(1);
    expect(await io.locator('.legend').textContent()).toMatch(/diskread/);
    expect(await guest.mounted.frame.locator('figure[data-unit="percent"] path.series[data-field="cpu"]').count()).toBe(1);
    await guest.page.close();
  }, 120_000);

  it('shows a plan waiting for approval: steps, changes, verdicts, and where to approve it (no approve button)', async () => {
    const { page, mounted, result } = await show({ code: PLAN });
    const planId = planIdOf(result);
    const plan = mounted.frame.locator('section.plan');
    await expect.poll(() => plan.locator('li.step').count()).toBe(2);
    expect(await plan.getAttribute('data-plan-id')).toBe(planId);
    expect(await plan.locator('.badge.state-pending').textContent()).toMatch(/waiting for approval/);
    const [config, stop] = [plan.locator('li.step[data-seq="1"]'), plan.locator('li.step[data-seq="2"]')];
    expect(await config.locator('.change').textContent()).toMatch(/memory .*→ 8192/);
    expect(await config.locator('.verdict-allowed').count()).toBe(1);
    expect(await stop.locator('.verdict-approval').textContent()).toBe('needs approval');
    expect(await stop.locator('.badge.risk').textContent()).toBe('destructive');
    expect(await stop.locator('.why').textContent()).toMatch(/destructive/);
    expect(await stop.locator('.change-summary').textContent()).toMatch(/stop|running/i);
    // A static-token server serves no console: the view says where to approve instead of linking.
    expect(await plan.locator('a.console-link').count()).toBe(0);
    expect(await plan.locator('.console-hint').textContent()).toContain('pve-code-mcp console');
    expect(await plan.locator('.console-hint').textContent()).toContain(`pve-code-mcp approve ${planId}`);
    expect(await plan.locator('button').count()).toBe(0);
    expect(await plan.textContent()).toMatch(/never in this view/);
    await screenshot(page, 'plan');
    await page.close();
  }, 120_000);

  it("links the console's plan page when the server serves the console; the host opens it", async () => {
    const consoleUrl = 'https://mcp.example.test:8765/console';
    // The same configuration as the built server's (its policy asks a human for destructive writes), in this process.
    const config = await parseAppConfig(JSON.parse(readFileSync(env.configFile, 'utf8')), { source: env.configFile, baseDir: env.dir });
    const product = await Product.open({ config, log: () => undefined });
    const server = createMcpServer(product, { consoleUrl: () => consoleUrl });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'apps-console', version: '1.0.0' }, { capabilities: UI });
    try {
      await server.connect(serverSide);
      await client.connect(clientSide);
      const consoleView = await readView(client, 'ui://pve-code-mcp/run.html');
      const args = { code: PLAN };
      const result = await run(client, args);
      const planId = planIdOf(result);
      const page = await browser.newPage();
      page.on('request', (r) => requests.push(r.url()));
      const mounted = await mountView(page, { ...consoleView, tool: runScript, input: args, result });
      const plan = mounted.frame.locator('section.plan');
      await expect.poll(() => plan.locator('li.step').count()).toBe(2);
      expect(await plan.locator('.badge.state-pending').count()).toBe(1);
      const link = plan.locator('a.console-link');
      const expected = `${consoleUrl}/plans/${planId}`;
      expect(await link.getAttribute('href')).toBe(expected);
      await link.click();
      await expect.poll(() => mounted.openedLinks()).toEqual([expected]);
      expect(await plan.locator('button').count()).toBe(0);
      await screenshot(page, 'plan-link');
      await page.close();
    } finally {
      await client.close();
      await server.close();
      await product.close();
    }
  }, 180_000);

  it('over stdio, serves the same view and says how to reach the console', async () => {
    const client = new Client({ name: 'apps-stdio', version: '1.0.0' }, { capabilities: UI });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--config', env.configFile], env: env.env, cwd: REPO_ROOT, stderr: 'pipe' }), { timeout: 120_000 });
    try {
      const tool = (await client.listTools()).tools.find((t) => t.name === 'run_script')!;
      expect(tool._meta).toEqual(runScript._meta);
      const stdioView = await readView(client, 'ui://pve-code-mcp/run.html');
      const args = { code: PLAN, dryRun: true };
      const result = await run(client, args);
      const planId = planIdOf(result);
      const page = await browser.newPage();
      const mounted = await mountView(page, { ...stdioView, tool, input: args, result });
      const plan = mounted.frame.locator('section.plan');
      await expect.poll(() => plan.locator('li.step').count()).toBe(2);
      expect(await plan.locator('.badge.state-dry-run').count()).toBe(1);
      expect(await plan.locator('a.console-link').count()).toBe(0);
      expect(await plan.locator('.console-hint').textContent()).toContain(`pve-code-mcp approve ${planId}`);
      await page.close();
    } finally {
      await client.close();
    }
  }, 180_000);

  it('shows text that guests control as text, never as markup', async () => {
    const hostile = '<img src=x onerror="parent.postMessage(1, \'*\')"><b>bold</b>';
    const result: CallToolResult = {
      content: [{ type: 'text', text: 'x' }],
      structuredContent: { ok: true, result: [{ vmid: 100, name: hostile }], logs: [hostile], stats: { mode: 'live', calls: {}, budget: {} } },
    };
    const page = await browser.newPage();
    const mounted = await mountView(page, { ...view, tool: runScript, input: { code: 'x' }, result });
    await expect.poll(() => mounted.frame.locator('table.rows tbody td').nth(1).textContent()).toBe(hostile);
    expect(await mounted.frame.locator('img, b').count()).toBe(0);
    await page.close();
  });

  it('keeps a list with text and a time (the cluster log) a table, not a chart', async () => {
    const log = [
      { time: 1_760_000_000, pri: 6, pid: 1200, node: 'pve1', tag: 'pvedaemon', msg: 'starting task' },
      { time: 1_760_000_060, pri: 6, pid: 1201, node: 'pve2', tag: 'pvedaemon', msg: 'end task' },
    ];
    const result: CallToolResult = { content: [{ type: 'text', text: 'x' }], structuredContent: { ok: true, result: log, logs: [], stats: { mode: 'live', calls: {}, budget: {} } } };
    const page = await browser.newPage();
    const mounted = await mountView(page, { ...view, tool: runScript, input: { code: 'x' }, result });
    await expect.poll(() => mounted.frame.locator('table.rows tbody tr').count()).toBe(2);
    expect(await mounted.frame.locator('figure.chart').count()).toBe(0);
    expect(await mounted.frame.locator('tbody tr').first().locator('td').first().textContent()).toMatch(/^2025-10-09 \d\d:\d\d:\d\dZ$/);
    // Sorting from the keyboard.
    await mounted.frame.locator('th[data-column="pid"]').focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    expect(await mounted.frame.locator('th[data-column="pid"]').getAttribute('aria-sort')).toBe('descending');
    await page.close();
  });

  it("shows a real plan's blast radius and what it cannot undo, as the server computed them", async () => {
    // A live power action (allowed), so that undoing the run has something it cannot reverse.
    const stopped = (
      await run(apps, {
        code: "return (await pve.get('/cluster/resources', { type: 'vm' })).filter((g) => g.type === 'qemu' && g.status === 'stopped' && !g.template).map((g) => ({ node: g.node, vmid: g.vmid }));",
      })
    ).structuredContent as { result: Array<{ node: string; vmid: number }> };
    const [started, detached] = stopped.result;
    expect(detached, JSON.stringify(stopped)).toBeDefined();
    const live = await run(apps, { code: `return await pve.waitTask(await pve.post('/nodes/{node}/qemu/{vmid}/status/start', { node: '${started?.node}', vmid: ${started?.vmid} }));` });
    const runId = (live.structuredContent as { changes?: { runId?: string } }).changes?.runId;
    expect(runId, JSON.stringify(live.structuredContent)).toBeDefined();
    // Detaching a stopped VM's boot disk (a disk-delete radius), and undoing the start (not undone).
    const args = {
      code: `await pve.put('/nodes/{node}/qemu/{vmid}/config', { node: '${detached?.node}', vmid: ${detached?.vmid}, delete: 'scsi0' });\nreturn await pve.undo('${runId}');`,
      dryRun: true,
    };
    const { page, mounted, result } = await show(args);
    interface Radius {
      family: string;
      summary: string;
      complete: boolean;
      items: Array<{ what: string; effect: string; severe?: boolean }>;
    }
    const plan = (result.structuredContent as { plan: { writes: Array<{ blastRadius?: Radius }>; notes?: string[] } }).plan;
    const blast = plan.writes[0]?.blastRadius;
    expect(blast, JSON.stringify(plan).slice(0, 2000)).toMatchObject({ family: 'disk-delete', complete: true });
    expect(blast?.items.length).toBeGreaterThan(0);
    const notes = plan.notes ?? [];
    expect(
      notes.some((n) => n.startsWith('not undone: ') && n.includes(`/qemu/${started?.vmid}/status/start`)),
      JSON.stringify(plan).slice(0, 2000),
    ).toBe(true);

    const radius = mounted.frame.locator('li.step[data-seq="1"] .blast-radius');
    await expect.poll(() => radius.locator('.blast-summary').textContent()).toBe(blast?.summary);
    expect(await radius.getAttribute('data-family')).toBe('disk-delete');
    expect(await radius.locator('li').allTextContents()).toEqual(blast?.items.map((i) => `${i.severe ? '!! ' : ''}${i.what}: ${i.effect}`));
    expect(await radius.locator('li.severe').count()).toBe(blast?.items.filter((i) => i.severe).length);
    expect(await radius.locator('.blast-incomplete').count()).toBe(0);
    expect(await mounted.frame.locator('ul.notes li').count()).toBe(notes.length);
    expect(await mounted.frame.locator('ul.notes li.not-undone').first().textContent()).toMatch(
      new RegExp(`^Not undone: POST /nodes/[^/]+/qemu/${started?.vmid}/status/start: undo does not reverse power actions`),
    );
    await screenshot(page, 'plan-radius');
    await page.close();
  }, 180_000);

  it('shows an incomplete blast radius as the worst case, and any other result as collapsible JSON', async () => {
    const write = {
      seq: 1,
      cluster: 'sim',
      method: 'POST',
      path: '/nodes/pve1/qemu/101/status/stop',
      params: {},
      risk: 'destructive',
      needsApproval: true,
      why: 'destructive',
      targets: [{ vmid: 101, exists: true, name: 'db-01', node: 'pve1', type: 'qemu' }],
    };
    // A failed read cannot be made through this server's fault-free simulator: the shape of src/safety/blast-radius.ts.
    const blastRadius = {
      family: 'guest-destroy',
      summary: 'VM 101 and its HA resource; INCOMPLETE: 1 read failed',
      items: [{ kind: 'ha', what: 'HA resource vm:101', effect: 'removed' }],
      reads: ['GET /cluster/ha/resources'],
      failed: ['GET /cluster/backup: 403 permission denied'],
      complete: false,
    };
    const result: CallToolResult = {
      content: [{ type: 'text', text: 'x' }],
      structuredContent: {
        ok: true,
        result: { stopped: { vmid: 101, at: [1, 2] } },
        logs: [],
        stats: { mode: 'dry-run', calls: {}, budget: {} },
        plan: {
          planId: 'ab'.repeat(32),
          summary: 'Plan …\nrefused, not sent: DELETE /nodes/pve1/qemu/102 [destructive]: denied by deny[0]',
          writes: [
            { ...write, blastRadius },
            { ...write, seq: 2 },
          ],
        },
      },
    };
    const page = await browser.newPage();
    const mounted = await mountView(page, { ...view, tool: runScript, input: { code: 'x', dryRun: true }, result });
    const radius = mounted.frame.locator('li.step[data-seq="1"] .blast-radius');
    await expect.poll(() => radius.locator('.blast-summary').textContent()).toBe(blastRadius.summary);
    expect(await radius.locator('.blast-incomplete').textContent()).toBe('Could not be read: counts as the worst case. Failed: GET /cluster/backup: 403 permission denied');
    expect(await mounted.frame.locator('li.step[data-seq="2"] .blast-radius').count()).toBe(0);
    expect(await mounted.frame.locator('ul.notes').count()).toBe(0);
    // The calls the policy refused in the dry-run, with their verdict.
    expect(await mounted.frame.locator('ul.refused li.verdict-refused').allTextContents()).toEqual(['refused, not sent: DELETE /nodes/pve1/qemu/102 [destructive]: denied by deny[0]']);
    const json = mounted.frame.locator('section.result details.json');
    expect(await json.first().locator(':scope > summary').textContent()).toBe('{1}');
    expect(await json.count()).toBe(3);
    expect(await mounted.frame.locator('section.result details.json[open]').count()).toBe(2);
    await page.close();
  });

  it('made no request and broke no CSP rule in any view', () => {
    expect(requests.filter((u) => !u.startsWith('about:') && !u.startsWith('data:'))).toEqual([]);
    expect(cspErrors).toEqual([]);
  });
});
