/** `pve-code-mcp audit verify`: check the hash chain of the audit log. */
import { formatVerification, verifyAudit } from '../../audit/verify.js';
import { boolOpt, EXIT, parseCommandArgs, stringOpt, UsageError } from '../args.js';
import type { Command } from '../command.js';
import { appConfigFrom, CONFIG_OPTIONS } from '../context.js';

const usage = `Usage: pve-code-mcp audit verify [options]

Verify the audit log: detects edited, deleted, reordered and truncated entries (rotated files included).
  --file FILE         audit log (default: from the config, else <state dir>/audit.jsonl)
  --hmac-key-env VAR  environment variable holding the HMAC key the log was written with
  --allow-pruned      accept a chain whose oldest rotated files were removed on purpose
  -c, --config FILE   config file naming the audit file and key`;

export const auditCommand: Command = {
  name: 'audit',
  usage,
  async run(argv, io) {
    const args = parseCommandArgs(argv, { ...CONFIG_OPTIONS, file: { type: 'string' }, 'hmac-key-env': { type: 'string' }, 'allow-pruned': { type: 'boolean' } });
    if (args.help) {
      io.out(usage);
      return EXIT.ok;
    }
    if (args.positionals[0] !== 'verify' || args.positionals.length !== 1) throw new UsageError("the audit subcommand is 'verify'");
    let file = stringOpt(args, 'file');
    let key: string | undefined;
    const keyEnv = stringOpt(args, 'hmac-key-env');
    if (keyEnv) {
      key = process.env[keyEnv];
      if (!key) throw new UsageError(`environment variable ${keyEnv} is not set`);
    }
    if (!file || (!key && stringOpt(args, 'config'))) {
      const config = await appConfigFrom(args).catch((err: unknown) => {
        if (file) return undefined;
        throw err;
      });
      file ??= config?.audit.file;
      key ??= config?.audit.hmacKey;
    }
    const result = verifyAudit(file as string, { ...(key ? { hmacKey: key } : {}), ...(boolOpt(args, 'allow-pruned') ? { allowPruned: true } : {}) });
    io.out(formatVerification(result));
    return result.ok ? EXIT.ok : EXIT.failed;
  },
};
