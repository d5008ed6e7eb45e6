/**
 * `pve-code-mcp audit verify`: check the hash chain of the audit log (the files, or the database
 * when the config has `state.postgres`); `audit export --out FILE`: the database's chain as the
 * JSONL files of the file log, which `audit verify FILE` then checks.
 */
import { loadStateSettings } from '../../app/config/app-config.js';
import { readAuditKeyFile } from '../../app/config/audit-settings.js';
import { exportPostgresAudit, verifyPostgresAudit } from '../../audit/postgres-verify.js';
import { formatVerification, verifyAudit } from '../../audit/verify.js';
import { openPostgres } from '../../state/postgres/open.js';
import { boolOpt, EXIT, parseCommandArgs, stringOpt, UsageError } from '../args.js';
import type { Command } from '../command.js';

const usage = `Usage: pve-code-mcp audit verify [FILE] [options]
       pve-code-mcp audit export --out FILE [options]

Verify the audit log: detects edited, deleted, reordered, appended and truncated entries (rotated
files included), and checks the log against its witness when one is given. Also shown, not
failures: alerts that explain a gap (the audit could not be written) or a torn tail cut on open,
and open intents (changes announced without an outcome yet), with whether their writer is alive. Needs no cluster
configuration: the log is <state dir>/audit.jsonl and the key is the generated one, unless the
config file or the options below say otherwise. With state.postgres in the config, the audit is the
database's chain: verify checks it there (unless a FILE is given), and export writes it to FILE in
the file log's format (FILE, the rotated FILE.NNNNNN of earlier parts, and FILE.anchor).
  --file FILE         audit log (default: from the config, else <state dir>/audit.jsonl)
  --out FILE          export: where to write (must not exist)
  --state-dir DIR     state directory (default: from the config, else $PVE_STATE_DIR, else
                      $XDG_STATE_HOME/pve-code-mcp or ~/.local/state/pve-code-mcp)
  --key-file FILE     HMAC key file (default: from the config, else $PVE_AUDIT_KEY_FILE, else
                      $XDG_CONFIG_HOME/pve-code-mcp/audit.key or ~/.config/pve-code-mcp/audit.key)
  --hmac-key-env VAR  environment variable holding the HMAC key instead
  --unkeyed           the log was written without a key (plain SHA-256) by choice
  --witness FILE      witness file, or an export of the syslog witness (e.g. journalctl -t pve-code-mcp -o cat)
  --allow-pruned      accept a chain whose oldest rotated files were removed on purpose without a prune entry
  -c, --config FILE   config file naming the state directory, audit file, key and witness (clusters are not needed)`;

export const auditCommand: Command = {
  name: 'audit',
  usage,
  async run(argv, io) {
    const args = parseCommandArgs(argv, {
      config: { type: 'string', short: 'c' },
      file: { type: 'string' },
      'state-dir': { type: 'string' },
      'key-file': { type: 'string' },
      'hmac-key-env': { type: 'string' },
      unkeyed: { type: 'boolean' },
      witness: { type: 'string' },
      'allow-pruned': { type: 'boolean' },
      out: { type: 'string' },
    });
    if (args.help) {
      io.out(usage);
      return EXIT.ok;
    }
    const [sub, given, ...extra] = args.positionals;
    if ((sub !== 'verify' && sub !== 'export') || extra.length > 0 || (sub === 'export' && given !== undefined))
      throw new UsageError("the audit subcommands are 'verify [FILE]' and 'export --out FILE'");
    if (given !== undefined && stringOpt(args, 'file') !== undefined) throw new UsageError('give the file once: as FILE or as --file');
    const configFile = stringOpt(args, 'config') ?? process.env.PVE_CODE_MCP_CONFIG;
    const stateDir = stringOpt(args, 'state-dir');
    const settings = loadStateSettings({ ...(configFile ? { file: configFile } : {}), ...(stateDir ? { stateDir } : {}) });
    const named = given ?? stringOpt(args, 'file');
    const file = named ?? settings.audit.file;
    const postgres = named === undefined ? settings.state.postgres : undefined;
    if (sub === 'export' && !postgres) throw new UsageError('audit export reads the database: the config has no state.postgres (a file log is already in this format)');

    let key: string | undefined;
    let keyNote: string;
    const keyEnv = stringOpt(args, 'hmac-key-env');
    const keyFile = stringOpt(args, 'key-file');
    if ([keyEnv, keyFile, boolOpt(args, 'unkeyed') || undefined].filter((v) => v !== undefined).length > 1) {
      throw new UsageError('give at most one of --key-file, --hmac-key-env and --unkeyed');
    }
    if (keyEnv) {
      key = process.env[keyEnv];
      if (!key) throw new UsageError(`environment variable ${keyEnv} is not set`);
      keyNote = `key from $${keyEnv}`;
    } else if (keyFile) {
      key = readAuditKeyFile(keyFile, { create: false });
      if (!key) throw new UsageError(`no key file ${keyFile}`);
      keyNote = `key ${keyFile}`;
    } else if (boolOpt(args, 'unkeyed')) {
      keyNote = 'unkeyed (plain SHA-256)';
    } else {
      key = settings.audit.hmacKey;
      keyNote = key
        ? `key ${settings.audit.keySource.replace(/^file:/, '')}`
        : settings.audit.keySource === 'none'
          ? 'unkeyed by configuration'
          : `no key found (${settings.audit.keySource.replace(/^file:/, '')} does not exist): checked as unkeyed`;
    }
    const configuredWitness = settings.audit.witness && 'file' in settings.audit.witness ? settings.audit.witness.file : undefined;
    const witness = stringOpt(args, 'witness') ?? configuredWitness;
    if (postgres) {
      const out = stringOpt(args, 'out');
      if (sub === 'export' && !out) throw new UsageError('audit export needs --out FILE');
      const db = openPostgres(postgres);
      try {
        if (sub === 'export') {
          const done = exportPostgresAudit(db, out as string, key ? { hmacKey: key } : {});
          io.out(
            `exported ${done.entries} entries (last seq ${done.lastSeq}) of ${db.where} to ${done.files.join(', ')} with its anchor; check it with: pve-code-mcp audit verify ${out as string}${key ? ' (and the same key)' : ' --unkeyed'}`,
          );
          return EXIT.ok;
        }
        const result = verifyPostgresAudit(db, { ...(key ? { hmacKey: key } : {}), ...(witness ? { witness } : {}) });
        io.out(`${db.where} (${keyNote}${witness ? `, witness ${witness}` : ''})\n${formatVerification(result)}`);
        return result.ok ? EXIT.ok : EXIT.failed;
      } finally {
        db.close();
      }
    }
    const result = verifyAudit(file, {
      ...(key ? { hmacKey: key } : {}),
      ...(boolOpt(args, 'allow-pruned') ? { allowPruned: true } : {}),
      ...(witness ? { witness } : {}),
    });
    io.out(`${file} (${keyNote}${witness ? `, witness ${witness}` : ''})\n${formatVerification(result)}`);
    return result.ok ? EXIT.ok : EXIT.failed;
  },
};
