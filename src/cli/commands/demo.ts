/**
 * `pve-code-mcp demo`: an embedded simulated cluster with the server attached. In a terminal it
 * walks through the three tools with a real MCP client and says how to connect one; started by an
 * MCP client (stdin not a terminal) it serves stdio; with --http it serves Streamable HTTP.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parseAppConfig } from '../../app/config/app-config.js';
import { defaultStateDir } from '../../app/config/state-settings.js';
import { Product } from '../../app/product.js';
import type { Unserved } from '../../describe/unserved.js';
import { packageRoot } from '../../schema/package-root.js';
import { connectInMemory } from '../../server/in-memory.js';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { describeScenario, parseScenarioList, SCENARIO_SYNTAX, ScenarioError, type Scenario } from '../../simulator/scenarios.js';
import { boolOpt, EXIT, parseCommandArgs, stringOpt, UsageError, type CliIo, type ParsedArgs } from '../args.js';
import type { Command } from '../command.js';
import { tuneV8ForServer } from '../v8-tuning.js';
import { HTTP_OPTIONS, serveProduct } from './serve.js';

const usage = `Usage: pve-code-mcp demo [options]

Start a simulated 3-node Proxmox VE cluster and the MCP server attached to it.
In a terminal: walk through search_api → get_schema → run_script, then explain how to connect.
Started by an MCP client: serve stdio.
  --schema FILE       serve and validate the whole official API (an apidoc.js file) in the simulator
  --policy NAME       read-only, operator (default for the demo) or admin
  --preset NAME       simulator preset (default demo; scale-2000, scale-10000 …)
  --scenario LIST     fault scenarios in the simulated cluster, repeatable or comma-separated:
                        ${SCENARIO_SYNTAX.join('\n                        ')}
  --scenario-file F   JSON file {"scenarios": [...]} with more scenarios
  --walkthrough       run the walkthrough even when stdin is not a terminal, then exit
  --stdio             serve stdio even in a terminal
  --http              serve Streamable HTTP (see serve --help for --host/--port/--token)`;

export const demoCommand: Command = {
  name: 'demo',
  usage,
  async run(argv, io) {
    const args = parseCommandArgs(
      argv,
      {
        ...HTTP_OPTIONS,
        schema: { type: 'string' },
        policy: { type: 'string' },
        preset: { type: 'string' },
        scenario: { type: 'string', multiple: true },
        'scenario-file': { type: 'string' },
        walkthrough: { type: 'boolean' },
        stdio: { type: 'boolean' },
      },
      false,
    );
    if (args.help) {
      io.out(usage);
      return EXIT.ok;
    }
    const interactive = !boolOpt(args, 'stdio') && !boolOpt(args, 'http') && (boolOpt(args, 'walkthrough') || Boolean(process.stdin.isTTY));
    if (!interactive) tuneV8ForServer();
    const schemaFile = stringOpt(args, 'schema');
    const scenarioFile = stringOpt(args, 'scenario-file');
    const sim = await startSimulator({
      preset: stringOpt(args, 'preset') ?? 'demo',
      port: 0,
      authFailureDelayMs: 0,
      ...(schemaFile ? { schemaFile: resolve(schemaFile) } : {}),
      scenarios: scenarioArgs(args),
      ...(scenarioFile ? { scenarioFile: resolve(scenarioFile) } : {}),
    });
    for (const s of sim.scenarios) io.err(`Simulator scenario: ${describeScenario(s)}`);
    try {
      const product = await demoProduct(sim, stringOpt(args, 'policy') ?? 'operator', io);
      // Beside the MCP endpoint, what a person needs to check what an agent did: the simulated
      // cluster itself, reachable with any PVE client. On stdio the protocol owns stdout.
      const access = simulatorAccess(sim);
      if (!interactive) {
        io.err(access);
        return await serveProduct(product, args, io);
      }
      try {
        await product.warm();
        await walkthrough(product, sim, access, io);
        explainConnect(io, args);
        return EXIT.ok;
      } finally {
        await product.close();
      }
    } finally {
      await sim.close();
    }
  },
};

/**
 * How to reach the simulated cluster directly (curl, a PVE client, the web API viewer): its URL,
 * the certificate fingerprint to pin, and an API token that can read everything and change nothing
 * (PVEAuditor on /), so looking cannot alter what the agent left.
 */
function simulatorAccess(sim: RunningSimulator): string {
  const token = sim.access.addToken('root@pam', 'readonly', { privsep: true, comment: 'demo: read-only access for a person' });
  sim.access.grant({ path: '/', roles: ['PVEAuditor'], tokens: [token.tokenid], propagate: true });
  const header = token.header;
  return [
    `Simulated PVE cluster: ${sim.url}`,
    `  TLS fingerprint (SHA-256): ${sim.fingerprint}`,
    `  Read-only API token: Authorization: ${header}`,
    `  e.g. curl -sk -H 'Authorization: ${header}' ${sim.url}/api2/json/cluster/resources`,
  ].join('\n');
}

function scenarioArgs(args: ParsedArgs): Scenario[] {
  const v = args.values.scenario;
  const list = Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
  try {
    return parseScenarioList(list);
  } catch (error) {
    if (error instanceof ScenarioError) throw new UsageError(error.message);
    throw error;
  }
}

async function demoProduct(sim: RunningSimulator, policy: string, io: CliIo): Promise<Product> {
  const stateDir = join(process.env.PVE_STATE_DIR ?? defaultStateDir(), 'demo');
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const config = await parseAppConfig(
    {
      clusters: {
        demo: {
          url: sim.url,
          auth: { tokenId: sim.token.id, secret: sim.token.secret },
          // Pinned like a real cluster should be: the simulator's self-signed certificate by fingerprint.
          tls: { fingerprint: sim.fingerprint },
          policy,
        },
      },
      cacheDir: join(stateDir, 'schema-cache'),
      stateDir,
    },
    { source: 'demo', baseDir: stateDir },
  );
  return Product.open({ config, log: (line) => io.err(line), unserved: { demo: simulatorGaps(sim) } });
}

/** What the simulator lists but does not implement: none on its own schema, the rest of an official one (answered 501). */
function simulatorGaps(sim: RunningSimulator): Unserved {
  const implemented = new Set(sim.implemented);
  return { operations: new Set(sim.model.operations.map((op) => op.key).filter((key) => !implemented.has(key))), mark: 'not in simulator' };
}

const SAMPLE_SCRIPT = `// Top 5 running guests by CPU, and how many guests each node carries.
const guests = await pve.get('/cluster/resources', { type: 'vm' });
const running = guests.filter((g) => g.status === 'running');
const perNode: Record<string, number> = {};
for (const g of guests) perNode[g.node] = (perNode[g.node] ?? 0) + 1;
return {
  guests: guests.length,
  running: running.length,
  perNode,
  top5ByCpu: running
    .sort((a, b) => b.cpu - a.cpu)
    .slice(0, 5)
    .map((g) => ({ vmid: g.vmid, name: g.name, node: g.node, cpu: \`\${Math.round(g.cpu * 100)}%\` })),
};`;

const DRY_RUN_SCRIPT = `// Snapshot every running VM of the first node: planned only (dryRun), nothing is sent.
const node = (await pve.get('/nodes'))[0].node;
const vms = await pve.get('/nodes/{node}/qemu', { node });
const planned = [];
for (const vm of vms.filter((v) => v.status === 'running')) {
  const upid = await pve.post('/nodes/{node}/qemu/{vmid}/snapshot', { node, vmid: vm.vmid, snapname: 'before_upgrade' });
  await pve.waitTask(upid);
  planned.push(vm.vmid);
}
return { node, snapshotted: planned };`;

async function walkthrough(product: Product, sim: RunningSimulator, access: string, io: CliIo): Promise<void> {
  const { client, close } = await connectInMemory(product, 'pve-code-mcp-demo');
  try {
    const cluster = sim.cluster;
    io.out(`Simulated Proxmox VE cluster: ${sim.url} (${cluster.nodeNames.length} nodes, ${cluster.guests().length} guests, ${sim.model.operations.length} API operations in its schema)`);
    io.out(access);
    const tools = await client.listTools();
    io.out(`MCP tools: ${tools.tools.map((t) => t.name).join(', ')}\n`);

    section(io, '1. search_api { query: "list virtual machines on a node" }');
    io.out(text(await client.callTool({ name: 'search_api', arguments: { query: 'list virtual machines on a node', limit: 5 } })));

    section(io, '2. get_schema { operations: ["GET /cluster/resources"] }');
    io.out(text(await client.callTool({ name: 'get_schema', arguments: { operations: ['GET /cluster/resources'] } })));

    section(io, '3. run_script — filtering happens in the sandbox, only the answer comes back');
    io.out(indent(SAMPLE_SCRIPT));
    io.out('→');
    io.out(text(await client.callTool({ name: 'run_script', arguments: { code: SAMPLE_SCRIPT } })));

    section(io, '4. run_script with dryRun: true — reads run, writes are planned');
    io.out(indent(DRY_RUN_SCRIPT));
    io.out('→');
    io.out(text(await client.callTool({ name: 'run_script', arguments: { code: DRY_RUN_SCRIPT, dryRun: true } })));
  } finally {
    await close();
  }
}

function explainConnect(io: CliIo, args: ParsedArgs): void {
  const bin = join(packageRoot(), 'dist', 'src', 'cli', 'bin.js');
  const schema = stringOpt(args, 'schema');
  const demoArgs = [bin, 'demo', ...(schema ? ['--schema', resolve(schema)] : [])];
  // The exact Node that runs this demo: a client that finds another `node` on its PATH (nvm, a
  // desktop app's own PATH) would load isolated-vm built for a different ABI.
  const node = process.execPath;
  section(io, 'Connect an MCP client to this demo');
  io.out(`These name the Node binary that runs now (${process.version}); isolated-vm was built for it.`);
  io.out('Claude Desktop (claude_desktop_config.json), Cursor (.cursor/mcp.json):');
  io.out(indent(JSON.stringify({ mcpServers: { 'pve-demo': { command: node, args: demoArgs } } }, null, 2)));
  io.out('VS Code (.vscode/mcp.json):');
  io.out(indent(JSON.stringify({ servers: { 'pve-demo': { type: 'stdio', command: node, args: demoArgs } } }, null, 2)));
  io.out(`Claude Code:  claude mcp add pve-demo -- ${[node, ...demoArgs].map(shellQuote).join(' ')}`);
  io.out(`Over HTTP:    ${shellQuote(node)} ${shellQuote(bin)} demo --http   (prints the URL and bearer token)`);
  io.out('A real cluster: see README → "Connecting a real cluster".');
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function section(io: CliIo, title: string): void {
  io.out(`\n── ${title}`);
}

function indent(s: string): string {
  return s
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
}

function text(result: unknown): string {
  const content = (result as CallToolResult).content ?? [];
  return content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
}
