/**
 * V8 settings for the long-running server (`serve`, and `demo` when it serves). Both act at run
 * time, so they are set from inside the process; a flag the operator gave node explicitly
 * (command line or NODE_OPTIONS) wins. Measured in docs/benchmarks.md, "Server memory".
 */
import { setFlagsFromString } from 'node:v8';

export const SERVER_V8_FLAGS: readonly string[] = [
  // The server's live heap is small (~80 MB) and flat, but it promotes garbage steadily under load;
  // V8 then sizes the old generation up to 4x the live heap on a machine with plenty of RAM: +200 MB
  // of RSS within a minute of load. A fixed growth of 30% collects more often (a major GC every few
  // seconds under load, ~10-40 ms each, mostly concurrent) and kept throughput and latency
  // unchanged in the soak benchmark. Measured when the server still transpiled every run with
  // TypeScript, most of that garbage; the compile has since moved to the type-check process and
  // the sandbox workers, so the server promotes less, and the cap costs less.
  '--heap-growing-percent=30',
  // TypeScript's createTypeChecker (28.9 KB of bytecode; every transpile and type-check calls it
  // once) became "hot" in the server when it transpiled every run, and TurboFan spent ~3 s
  // compiling it, with a transient ~100 MB of compiler memory of which ~40 MB stayed in malloc
  // arenas. The server no longer transpiles nor type-checks (get_schema's declarations still load
  // TypeScript's printer here); the limit stays as a guard, since a one-shot factory of closures
  // gains nothing from optimization and the hot functions (TypeScript's largest seen optimized is
  // 6.9 KB of bytecode) stay well under it.
  '--max-optimized-bytecode-size=16384',
];

/**
 * The young generation of a long-running server: V8 grows it from 1 MB semi-spaces up to 16 MB
 * each as the allocation rate rises (loading the modules is enough), ~25 MB of RSS that a mostly
 * idle desktop server never gives back. Set at run time, V8 (11.3, Node 20) no longer re-reads
 * `--max-semi-space-size` (the heap is configured), but a growth factor of 1 keeps the semi-spaces
 * at their initial size — if set before the modules load (bin.ts), since it stops growth and
 * does not shrink. The server's objects are mostly short-lived (answers, frames) or long-lived
 * (the model), so the smaller nursery costs more frequent, cheap scavenges. Measured in
 * docs/benchmarks.md, "Desktop".
 */
export const SERVER_YOUNG_GENERATION_FLAGS: readonly string[] = ['--semi-space-growth-factor=1'];

/**
 * Compiler flags that must be set before the modules load. undici parses HTTP with llhttp compiled
 * to WebAssembly, and V8 compiles that module with TurboFan too: 35 MB of compiler zones at peak
 * (`getHeapStatistics().peak_malloced_memory`: 37 MB, 3 MB with the flag), which glibc keeps
 * resident — 8–10 MB of the server's RSS after start. Liftoff, the baseline compiler, is all the
 * parser of a few answers a second needs (its CPU per call was within the sweep's noise).
 * Measured in docs/benchmarks.md, "session 11".
 */
export const SERVER_STARTUP_FLAGS: readonly string[] = ['--liftoff-only'];

/** The commands that run a long-lived server: `serve`, and `demo` (which serves when not interactive). */
const SERVING_COMMANDS = new Set(['serve', 'demo']);

/** Before any module of a serving command loads: its young-generation and compiler flags, except those the operator set. */
export function tuneV8ForCommand(argv: readonly string[], given: readonly string[] = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)]): string[] {
  if (!SERVING_COMMANDS.has(argv[0] ?? '')) return [];
  const named = new Set(given.filter((a) => a.startsWith('--')).map(flagName));
  const applied = [
    ...SERVER_YOUNG_GENERATION_FLAGS.filter((flag) => !named.has(flagName(flag)) && !named.has('--max-semi-space-size')),
    ...SERVER_STARTUP_FLAGS.filter((flag) => !named.has(flagName(flag))),
  ];
  for (const flag of applied) setFlagsFromString(flag);
  return applied;
}

/** Applies SERVER_V8_FLAGS, except those the operator already set. Returns the flags applied. */
export function tuneV8ForServer(given: readonly string[] = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)]): string[] {
  const named = new Set(given.filter((a) => a.startsWith('--')).map(flagName));
  const applied = SERVER_V8_FLAGS.filter((flag) => !named.has(flagName(flag)));
  for (const flag of applied) setFlagsFromString(flag);
  return applied;
}

/** `--heap_growing_percent=5` and `--heap-growing-percent 5` name the same V8 flag, and `--no-liftoff-only` names `--liftoff-only`. */
function flagName(arg: string): string {
  return (arg.split('=')[0] as string).replaceAll('_', '-').replace(/^--no-/, '--');
}
