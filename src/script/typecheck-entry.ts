/**
 * Entry point of the type-check process (the child process `TypeCheckService` forks; see
 * src/process/supervisor.ts for the words). It holds one warm `ScriptChecker` per declaration
 * set and answers checks one at a time, so the server's event loop never runs the TypeScript
 * compiler and the language service's memory lives — and is reclaimed — here. It holds no
 * secrets and never writes to stdout.
 */
import { checkerToHostSchema, hostToCheckerSchema, type CheckerToHost, type DeclarationSet } from './typecheck-protocol.js';
import { pathCatalogModel } from './path-catalog.js';
import { compileScript } from './compile.js';
import { ScriptChecker } from './typecheck.js';

const MAX_MESSAGE_CHARS = 2_000;

function post(message: CheckerToHost): void {
  // Checked here too, so a bug on this side shows up as a clear error rather than a killed process.
  const valid = checkerToHostSchema.safeParse(message);
  const out: CheckerToHost = valid.success ? message : { type: 'fatal', message: `the checker built an invalid message: ${valid.error.issues[0]?.message ?? 'malformed'}` };
  if (process.connected) process.send?.(out);
}

function reason(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, MAX_MESSAGE_CHARS);
}

const rssMb = (): number => process.memoryUsage.rss() / (1024 * 1024);

function load(set: DeclarationSet, checkers: Map<string, ScriptChecker>): void {
  if (checkers.has(set.id)) return;
  const checker = new ScriptChecker({ files: set.files, ...(set.paths ? { model: pathCatalogModel(set.paths) } : {}) });
  checker.warm();
  checkers.set(set.id, checker);
}

function main(): void {
  if (!process.send) {
    process.stderr.write('pve-code-mcp type-check process: must be started by the server with an IPC channel (child_process.fork)\n');
    process.exit(2);
  }
  const checkers = new Map<string, ScriptChecker>();

  process.on('message', (raw: unknown) => {
    const parsed = hostToCheckerSchema.safeParse(raw);
    if (!parsed.success) {
      post({ type: 'fatal', message: `the type-check process received a malformed message: ${parsed.error.issues[0]?.message ?? 'malformed'}` });
      return;
    }
    const msg = parsed.data;
    const started = performance.now();
    try {
      if (msg.type === 'load') {
        load(msg.set, checkers);
        post({ type: 'loaded', id: msg.id, ms: performance.now() - started, rssMb: rssMb() });
        return;
      }
      if (msg.type === 'compile') {
        post({ type: 'compiled', id: msg.id, ...compileScript(msg.code), rssMb: rssMb() });
        return;
      }
      const checker = checkers.get(msg.setId);
      if (!checker) {
        post({ type: 'failed', id: msg.id, message: `declaration set ${msg.setId} is not loaded in the type-check process` });
        return;
      }
      const compiled = msg.transpile ? compileScript(msg.code) : undefined;
      if (compiled && !compiled.transpiled.ok) {
        // Not runnable (a syntax error, a shape limit): that is the answer; a type check would
        // only repeat it, or exhaust the checker on a shape the limits are there to keep out.
        post({ type: 'result', id: msg.id, result: { ok: true, errors: [], warnings: [], timedOut: false, ms: performance.now() - started }, ...compiled, rssMb: rssMb() });
        return;
      }
      const result = checker.check(msg.code, { budgetMs: msg.budgetMs ?? Number.POSITIVE_INFINITY });
      post({ type: 'result', id: msg.id, result, ...(compiled ?? {}), rssMb: rssMb() });
    } catch (err) {
      post({ type: 'failed', id: msg.id, message: reason(err) });
    }
  });
  // Orphaned (server gone): nothing left to serve.
  process.on('disconnect', () => process.exit(0));
  process.on('uncaughtException', (err) => {
    post({ type: 'fatal', message: `type-check process error: ${reason(err)}` });
    process.exit(1);
  });
  post({ type: 'ready', pid: process.pid });
}

main();
