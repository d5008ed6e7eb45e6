/** The shape of a subcommand: its help text and its run function returning an exit code. */
import type { CliIo } from './args.js';

export interface Command {
  name: string;
  usage: string;
  run(argv: string[], io: CliIo): Promise<number>;
}
