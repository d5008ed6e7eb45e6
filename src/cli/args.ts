/**
 * Argument parsing shared by every subcommand: `node:util` parseArgs with strict checking,
 * `--help` everywhere, and usage errors that say what was wrong and where to look.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

export const EXIT = {
  ok: 0,
  /** The work ran and failed: script error, verification failure, failed check. */
  failed: 1,
  /** The command line was wrong. */
  usage: 2,
  /** Configuration is invalid or a cluster cannot be reached/authenticated. */
  config: 3,
} as const;

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** True when stdout is an interactive terminal (progress lines, tables). */
  isTty: boolean;
  /** Writes to stderr as is (no newline added): a progress line redrawn in place. */
  errRaw?(text: string): void;
  /** True when stderr is an interactive terminal. */
  errIsTty?: boolean;
}

export const processIo: CliIo = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  isTty: Boolean(process.stdout.isTTY),
  errRaw: (text) => process.stderr.write(text),
  errIsTty: Boolean(process.stderr.isTTY),
};

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
  help: boolean;
}

export function parseCommandArgs(argv: string[], options: OptionSpec, allowPositionals = true): ParsedArgs {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals,
      strict: true,
    });
    const { help, ...rest } = values as Record<string, string | boolean | string[] | undefined>;
    return { values: rest, positionals, help: help === true };
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

export function stringOpt(args: ParsedArgs, name: string): string | undefined {
  const v = args.values[name];
  return typeof v === 'string' ? v : undefined;
}

export function intOpt(args: ParsedArgs, name: string): number | undefined {
  const v = stringOpt(args, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${name} must be a non-negative integer, got '${v}'`);
  return Number(v);
}

export function boolOpt(args: ParsedArgs, name: string): boolean {
  return args.values[name] === true;
}
