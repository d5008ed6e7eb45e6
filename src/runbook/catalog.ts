/**
 * Runbooks: script files an operator saved in the folder the config names (`runbooks.dir`),
 * offered to agents by name (`pve://runbooks`) and run through run_script's `runbook` input.
 * A runbook is read from disk for each run, so its content hash — what a standing approval is
 * bound to — is always that of the code that runs. Names are plain file names without `.ts`:
 * nothing outside the folder can be named.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashCode } from '../safety/plan.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
/** A runbook is a script: run_script's own size limit applies. */
const MAX_BYTES = 100_000;

export type RunbookErrorCode = 'no-runbooks' | 'bad-name' | 'not-found' | 'too-large' | 'code-or-runbook';

export class RunbookError extends Error {
  override name = 'RunbookError';
  constructor(
    message: string,
    readonly code: RunbookErrorCode,
  ) {
    super(message);
  }
}

export interface Runbook {
  name: string;
  code: string;
  /** `hashCode(code)`: the run's codeHash, and what a standing approval names. */
  contentHash: string;
}

export function readRunbook(dir: string | undefined, name: string): Runbook {
  if (!dir) throw new RunbookError('no runbooks are configured on this server (config `runbooks.dir`)', 'no-runbooks');
  if (!NAME.test(name)) throw new RunbookError(`'${name}' is not a runbook name (letters, digits, _ and -; the file name without .ts)`, 'bad-name');
  let code: string;
  try {
    code = readFileSync(join(dir, `${name}.ts`), 'utf8');
  } catch {
    const known = runbookNames(dir);
    throw new RunbookError(`no runbook '${name}' in ${dir}${known.length > 0 ? `; there are: ${known.join(', ')}` : ''}`, 'not-found');
  }
  if (Buffer.byteLength(code, 'utf8') > MAX_BYTES) throw new RunbookError(`runbook '${name}' is larger than ${MAX_BYTES} bytes`, 'too-large');
  return { name, code, contentHash: hashCode(code) };
}

export function runbookNames(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && NAME.test(f.slice(0, -3)))
      .map((f) => f.slice(0, -3))
      .sort();
  } catch {
    return [];
  }
}

/** The first paragraph of the file's leading doc comment: what the runbook does, in its author's words. */
export function runbookSummary(code: string): string {
  const m = /^\s*\/\*\*([\s\S]*?)\*\//.exec(code);
  if (!m) return '';
  const lines = (m[1] as string).split('\n').map((l) => l.replace(/^\s*\*\s?/, '').trim());
  const para: string[] = [];
  for (const l of lines) {
    if (l === '' && para.length > 0) break;
    if (l !== '') para.push(l);
  }
  return para.join(' ').slice(0, 300);
}
