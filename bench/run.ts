/**
 * Benchmark runner: `node dist/bench/run.js [suite ...] [--quick]` (`npm run bench` builds first).
 *
 * A suite is an async function returning result tables; add one by importing it and adding a line
 * to SUITES. With no suite names every suite runs, in the order listed. `--quick` asks suites for
 * fewer repetitions (smoke runs, CI); figures for docs come from full runs.
 */
import type { Suite } from './lib/suite.js';
import { auditSuite } from './audit.js';
import { desktopSuite, sweepSuite } from './desktop.js';
import { e2eSuite } from './e2e.js';
import { renderTable } from './lib/table.js';
import { safetySuite } from './safety.js';
import { sandboxSuite } from './sandbox.js';
import { schemaSuite } from './schema.js';
import { simulatorSuite } from './simulator.js';
import { soakSuite } from './soak.js';
import { stateSuite } from './state.js';
import { throughputSuite } from './throughput.js';
import { sessionSuite } from './tokens/session.js';
import { tokensSuite } from './tokens/suite.js';

const SUITES: Record<string, Suite> = {
  schema: schemaSuite,
  sandbox: sandboxSuite,
  simulator: simulatorSuite,
  safety: safetySuite,
  audit: auditSuite,
  state: stateSuite,
  tokens: tokensSuite,
  session: sessionSuite,
  e2e: e2eSuite,
  throughput: throughputSuite,
  desktop: desktopSuite,
  sweep: sweepSuite,
  soak: soakSuite,
};

async function main(argv: string[]): Promise<number> {
  const quick = argv.includes('--quick');
  const unknownFlags = argv.filter((a) => a.startsWith('-') && a !== '--quick');
  const names = argv.filter((a) => !a.startsWith('-'));
  const unknown = names.filter((n) => !(n in SUITES));
  if (unknownFlags.length > 0 || unknown.length > 0) {
    console.error(`unknown ${[...unknownFlags, ...unknown].join(', ')}; usage: run.js [${Object.keys(SUITES).join('|')} ...] [--quick]`);
    return 2;
  }
  let failed = false;
  // `sweep` is part of `desktop`: named on its own only, for measuring the per-call path.
  for (const name of names.length > 0 ? names : Object.keys(SUITES).filter((n) => n !== 'sweep')) {
    const suite = SUITES[name] as Suite;
    const started = performance.now();
    console.log(`\n== ${name}${quick ? ' (quick)' : ''} ==`);
    try {
      for (const table of await suite({ quick })) console.log(`\n${renderTable(table)}`);
      console.log(`\n(${name}: ${((performance.now() - started) / 1000).toFixed(1)} s)`);
    } catch (error) {
      failed = true;
      console.error(`suite ${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
  }
  return failed ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
