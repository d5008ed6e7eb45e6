/**
 * `pve-code-mcp simulator [--preset demo] [--port 8006] [--schema FILE] [--seed N] …`: start the
 * simulator in the foreground, print how to reach it, run until SIGINT/SIGTERM.
 */
import { parseArgs } from 'node:util';
import { startSimulator, type StartSimulatorOptions } from './index.js';
import { DEFAULT_PVE_VERSION, KNOWN_PVE_VERSIONS } from './versions.js';
import { describeScenario, parseScenarioList, SCENARIO_SYNTAX, ScenarioError } from './scenarios.js';

const USAGE = `Usage: pve-code-mcp simulator [options]

  --preset NAME          demo (default), small, scale-<N> (e.g. scale-10000)
  --port N               TCP port (default 8006; 0 = any free port)
  --host ADDR            listen address (default 127.0.0.1)
  --schema FILE          serve and validate against this official apidoc.js
  --seed N               cluster and fault seed
  --ticket-lifetime SEC  ticket lifetime in seconds (default 7200)
  --auth-delay-ms MS     delay of 401 answers (default 3000, as PVE)
  --root-password PW     root@pam password (default: random)
  --pve-version V        PVE release to be, e.g. 9.1.1 or 8.4.16 (default ${DEFAULT_PVE_VERSION});
                         /version and the 401 texts follow it
  --scenario LIST        fault scenarios, repeatable or comma-separated (see below)
  --scenario-file FILE   JSON file {"scenarios": [...]} with more scenarios
  --help                 show this text

Scenarios:
  ${SCENARIO_SYNTAX.join('\n  ')}
`;

export class CliUsageError extends Error {
  override name = 'CliUsageError';
}

function integer(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new CliUsageError(`--${name} must be an integer from ${min} to ${max}, got '${value}'.`);
  return n;
}

export function parseSimulatorArgs(argv: string[]): StartSimulatorOptions | 'help' {
  const args = argv[0] === 'simulator' ? argv.slice(1) : argv;
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        preset: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        schema: { type: 'string' },
        seed: { type: 'string' },
        'ticket-lifetime': { type: 'string' },
        'auth-delay-ms': { type: 'string' },
        'root-password': { type: 'string' },
        'pve-version': { type: 'string' },
        scenario: { type: 'string', multiple: true },
        'scenario-file': { type: 'string' },
        help: { type: 'boolean' },
      },
    }));
  } catch (error) {
    throw new CliUsageError((error as Error).message);
  }
  if (values.help) return 'help';
  const opts: StartSimulatorOptions = { port: integer('port', values.port, 0, 65535) ?? 8006 };
  if (values.preset !== undefined) opts.preset = values.preset;
  if (values.host !== undefined) opts.host = values.host;
  if (values.schema !== undefined) opts.schemaFile = values.schema;
  if (values['root-password'] !== undefined) opts.rootPassword = values['root-password'];
  if (values['pve-version'] !== undefined) {
    if (!KNOWN_PVE_VERSIONS.includes(values['pve-version'])) {
      throw new CliUsageError(`--pve-version must be one of ${KNOWN_PVE_VERSIONS.join(', ')}, got '${values['pve-version']}'.`);
    }
    opts.pveVersion = values['pve-version'];
  }
  const seed = integer('seed', values.seed, 0, 2 ** 31 - 1);
  if (seed !== undefined) opts.seed = seed;
  const lifetime = integer('ticket-lifetime', values['ticket-lifetime'], 1, 10 * 365 * 86400);
  if (lifetime !== undefined) opts.ticketLifetimeSec = lifetime;
  const delay = integer('auth-delay-ms', values['auth-delay-ms'], 0, 60_000);
  if (delay !== undefined) opts.authFailureDelayMs = delay;
  if (values.scenario !== undefined) {
    try {
      opts.scenarios = parseScenarioList(values.scenario);
    } catch (error) {
      if (error instanceof ScenarioError) throw new CliUsageError(error.message);
      throw error;
    }
  }
  if (values['scenario-file'] !== undefined) opts.scenarioFile = values['scenario-file'];
  return opts;
}

/** Run the simulator until a termination signal; returns the process exit code. */
export async function runSimulatorCli(
  argv: string[],
  io: { out: (line: string) => void; err: (line: string) => void } = {
    out: (l) => process.stdout.write(`${l}\n`),
    err: (l) => process.stderr.write(`${l}\n`),
  },
): Promise<number> {
  let opts: StartSimulatorOptions | 'help';
  try {
    opts = parseSimulatorArgs(argv);
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (opts === 'help') {
    io.out(USAGE);
    return 0;
  }
  let sim;
  try {
    sim = await startSimulator(opts);
  } catch (error) {
    io.err(`Cannot start the simulator: ${(error as Error).message}`);
    return 1;
  }
  io.out(`PVE simulator (${sim.cluster.preset}, ${sim.cluster.nodeNames.length} nodes, ${sim.cluster.guests().length} guests) listening`);
  io.out(`  URL:           ${sim.url}`);
  io.out(`  Fingerprint:   ${sim.fingerprint}`);
  io.out(`  API token:     ${sim.token.id}`);
  io.out(`  Token secret:  ${sim.token.secret}`);
  io.out(`  root@pam:      ${sim.rootPassword}`);
  for (const s of sim.scenarios) io.out(`  Scenario:      ${describeScenario(s)}`);
  io.out(`  PVE version:   ${sim.pveVersion}`);
  io.out(`  Schema:        ${sim.schemaKind === 'file' ? opts.schemaFile : `own (${sim.model.operations.length} operations)`}; ${sim.url}/pve-docs/api-viewer/apidoc.js`);
  io.out('Press Ctrl+C to stop.');
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await sim.close();
  return 0;
}
