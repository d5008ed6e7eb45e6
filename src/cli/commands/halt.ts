/**
 * `pve-code-mcp halt` and `pve-code-mcp resume`: the operator's kill switch (src/safety/halt.ts).
 * Both need no cluster configuration, only where the switch file and the audit log are, and the
 * database when the config shares state in PostgreSQL: then `halt` sets the database's halt row
 * (every replica stops; when the database cannot take it, this host's file is set instead and the
 * command fails), and `resume` lifts the row and this host's file, whichever are set.
 *
 * Order, by what must never be lost: `halt` sets the switch first and audits after (stopping must
 * not wait on the audit: when the entry cannot be written the halt stays and the command fails);
 * `resume` lifts it only when its audit entry is written (otherwise the file is put back).
 */
import { openAuditSink } from '../../app/audit-sink.js';
import { loadStateSettings } from '../../app/config/app-config.js';
import type { AuditSink } from '../../audit/sink.js';
import { currentOperator, eitherSwitch, HaltError, HaltSwitch, type HaltedState, type HaltState } from '../../safety/halt.js';
import { PostgresHalt } from '../../safety/halt-postgres.js';
import { StateError } from '../../state/errors.js';
import { openPostgres } from '../../state/postgres/open.js';
import { boolOpt, EXIT, parseCommandArgs, stringOpt, UsageError, type CliIo, type ParsedArgs } from '../args.js';
import type { Command } from '../command.js';

const WHERE = `The switch is a file on this host, not in the state directory: halt.file of the config, else
$PVE_HALT_FILE, else /etc/pve-code-mcp/halt when the directory /etc/pve-code-mcp exists (one switch
for every account; only root sets or lifts it), else $XDG_CONFIG_HOME/pve-code-mcp/halt
(~/.config/pve-code-mcp/halt). Any file there halts, also one made with \`touch\`. With
state.postgres in the config, the switch of every server sharing the database is its halt row:
\`halt\` sets the row, \`resume\` lifts the row and this host's file.
  --state-dir DIR     state directory whose audit log records it (default: from the config, else
                      $PVE_STATE_DIR, else $XDG_STATE_HOME/pve-code-mcp or ~/.local/state/pve-code-mcp)
  -c, --config FILE   config file naming the halt file, state directory and audit (clusters are not needed)`;

const haltUsage = `Usage: pve-code-mcp halt [--reason TEXT] [options]
       pve-code-mcp halt --status

Stop every change (every write to Proxmox VE) of every server and CLI run that uses this host's
configuration, at once: each checks the switch before every write, approved plan steps included,
and a run in flight stops before its next write. Reads go on. \`pve-code-mcp resume\` lifts it.
Audited (entry type "halt").
  --reason TEXT       why (shown to every script whose write is refused, and in the audit)
  --status            only show whether changes are halted, since when, by whom and why
${WHERE}`;

const resumeUsage = `Usage: pve-code-mcp resume [options]

Lift the halt set by \`pve-code-mcp halt\` (or by creating the switch file by hand): changes are
allowed again. Audited (entry type "halt", action "resume"); refused when the audit log cannot be
written, so that no resume goes unrecorded.
${WHERE}`;

const OPTIONS = { config: { type: 'string', short: 'c' }, 'state-dir': { type: 'string' } } as const;

interface Context {
  sw: HaltSwitch;
  /** The database's switch, when the config shares state in PostgreSQL. */
  row?: PostgresHalt;
  /** Why the configured database could not be opened (then there is no `row`). */
  rowProblem?: string;
  openAudit(): AuditSink;
  auditFile: string;
  close(): void;
}

/** Where a switch is, as the command prints it and the audit records it. */
function place(sw: HaltSwitch | PostgresHalt): { label: string; audit: Record<string, string> } {
  return sw instanceof HaltSwitch ? { label: `file: ${sw.file}`, audit: { file: sw.file } } : { label: `database: ${sw.where}`, audit: { database: sw.where } };
}

function contextFrom(args: ParsedArgs): Context {
  const configFile = stringOpt(args, 'config') ?? process.env.PVE_CODE_MCP_CONFIG;
  const stateDir = stringOpt(args, 'state-dir');
  // createKey: the entry is keyed like a server's, with the key a server would generate.
  const settings = loadStateSettings({ ...(configFile ? { file: configFile } : {}), ...(stateDir ? { stateDir } : {}), createKey: true });
  const sw = HaltSwitch.open(settings.haltFile);
  let pg: ReturnType<typeof openPostgres> | undefined;
  let rowProblem: string | undefined;
  try {
    pg = settings.state.postgres ? openPostgres(settings.state.postgres) : undefined;
  } catch (err) {
    // A halt must not wait on the database: the host's file still stops this host.
    if (!(err instanceof StateError)) throw err;
    rowProblem = err.message;
  }
  return {
    sw,
    ...(pg ? { row: new PostgresHalt(pg) } : {}),
    ...(rowProblem ? { rowProblem } : {}),
    // The deployment's audit: in the database when the state is shared there (unwritable while it is unreachable).
    auditFile: pg ? pg.where : settings.audit.file,
    openAudit: () => openAuditSink({ audit: settings.audit, ...(pg ? { postgres: pg } : {}) }),
    close: () => pg?.close(),
  };
}

function describe(state: HaltedState): string {
  if (state.problem) return `halted (fails closed): ${state.problem}`;
  return `halted${state.since ? ` since ${state.since}` : ''}${state.by ? ` by ${state.by}` : ''}${state.reason ? `: ${state.reason}` : ''}`;
}

function statusText(ctx: Context): string {
  const { sw, row } = ctx;
  if (ctx.rowProblem)
    return `the database cannot be reached (${ctx.rowProblem}): every server that cannot read its halt row stops (fails closed)\n  file: ${sw.file} (${sw.state().halted ? 'set: this host stops' : 'does not exist'})`;
  if (!row) {
    const state = sw.state();
    return state.halted ? `${describe(state)}\n  file: ${sw.file}\n  lift it with: pve-code-mcp resume` : `not halted: changes are allowed (the switch file ${sw.file} does not exist)`;
  }
  const state = eitherSwitch(sw, row).state();
  const [file, db] = [sw.state(), row.state()];
  const rowText = !db.halted ? 'no halt row' : db.problem ? 'cannot be read: every server sharing it stops' : 'halt row set: every server sharing it stops';
  return (
    `${state.halted ? describe(state) : 'not halted: changes are allowed'}\n` +
    `  file: ${sw.file} (${file.halted ? 'set: this host stops' : 'does not exist'})\n` +
    `  database: ${row.where} (${rowText})` +
    (state.halted ? '\n  lift it with: pve-code-mcp resume' : '')
  );
}

/** The `halt` entry's record of a state (what a reader of the audit needs to know who stopped what, and why). */
function recorded(state: HaltedState): Record<string, string> {
  return {
    ...(state.since ? { since: state.since } : {}),
    ...(state.by ? { by: state.by } : {}),
    ...(state.reason ? { reason: state.reason } : {}),
    ...(state.problem ? { problem: state.problem } : {}),
  };
}

function failed(io: CliIo, err: unknown): number {
  if (!(err instanceof HaltError) && !(err instanceof StateError)) throw err;
  io.err(err.message);
  return EXIT.failed;
}

export const haltCommand: Command = {
  name: 'halt',
  usage: haltUsage,
  async run(argv, io) {
    const args = parseCommandArgs(argv, { ...OPTIONS, reason: { type: 'string' }, status: { type: 'boolean' } }, false);
    if (args.help) {
      io.out(haltUsage);
      return EXIT.ok;
    }
    const reason = stringOpt(args, 'reason');
    if (boolOpt(args, 'status') && reason !== undefined) throw new UsageError('--status only shows the state: give it without --reason');
    const ctx = contextFrom(args);
    try {
      if (boolOpt(args, 'status')) {
        io.out(statusText(ctx));
        return EXIT.ok;
      }
      return setHalt(ctx, reason, io);
    } finally {
      ctx.close();
    }
  },
};

/** Set the database's row (every replica stops), else this host's file; then audit it. */
function setHalt(ctx: Context, reason: string | undefined, io: CliIo): number {
  const by = currentOperator();
  let target: HaltSwitch | PostgresHalt = ctx.row ?? ctx.sw;
  let unshared = ctx.rowProblem;
  let before: HaltState;
  let state: HaltedState;
  try {
    before = target.state();
    state = target.halt(reason, by);
  } catch (err) {
    if (!(target instanceof PostgresHalt && err instanceof HaltError)) return failed(io, err);
    // The database did not take it: this host stops at least.
    unshared = err.message;
    target = ctx.sw;
    try {
      before = target.state();
      state = target.halt(reason, by);
    } catch (fileErr) {
      return failed(io, fileErr);
    }
  }
  const where = place(target);
  io.out(
    `${describe(state)}\n  ${where.label}\n` +
      (before.halted ? `  (it was already ${describe(before)}; replaced)\n` : '') +
      (target instanceof PostgresHalt
        ? 'every change through pve-code-mcp on every server sharing this database is refused from now on (runs in flight stop before their next write); reads go on\n'
        : 'every change through pve-code-mcp with this switch is refused from now on (runs in flight stop before their next write); reads go on\n') +
      '  lift it with: pve-code-mcp resume',
  );
  let code: number = EXIT.ok;
  try {
    const log = ctx.openAudit();
    try {
      log.append('halt', { action: 'halt', ...recorded(state), ...where.audit, ...(before.halted ? { replaced: recorded(before) } : {}) });
    } finally {
      log.close();
    }
  } catch (err) {
    io.err(`the halt is in place, but its audit entry could not be written to ${ctx.auditFile} (${err instanceof Error ? err.message : String(err)})`);
    code = EXIT.failed;
  }
  if (unshared !== undefined) {
    io.err(
      `only this host is halted (file ${ctx.sw.file}): the database could not take the halt (${unshared}); halt the other hosts the same way, or run \`pve-code-mcp halt\` again once the database answers`,
    );
    code = EXIT.failed;
  }
  return code;
}

export const resumeCommand: Command = {
  name: 'resume',
  usage: resumeUsage,
  async run(argv, io) {
    const args = parseCommandArgs(argv, OPTIONS, false);
    if (args.help) {
      io.out(resumeUsage);
      return EXIT.ok;
    }
    const ctx = contextFrom(args);
    try {
      return liftHalt(ctx, io);
    } finally {
      ctx.close();
    }
  },
};

/** Lift every switch that is set (the database's row, this host's file), each only once its audit entry is written. */
function liftHalt(ctx: Context, io: CliIo): number {
  const { sw, row } = ctx;
  if (ctx.rowProblem) {
    io.err(`not resumed: the database cannot be reached (${ctx.rowProblem}), so its halt row cannot be lifted; the servers that cannot read it stay stopped`);
    return EXIT.failed;
  }
  const set = [row, sw].filter((s): s is HaltSwitch | PostgresHalt => s !== undefined && s.state().halted);
  if (set.length === 0) {
    io.out(`not halted: nothing to resume (the switch file ${sw.file} does not exist${row ? ` and the database ${row.where} has no halt row` : ''})`);
    return EXIT.ok;
  }
  let log: AuditSink;
  try {
    log = ctx.openAudit();
  } catch (err) {
    io.err(`not resumed: the audit log ${ctx.auditFile} cannot be written (${err instanceof Error ? err.message : String(err)}); the halt stays in place`);
    return EXIT.failed;
  }
  const by = currentOperator();
  try {
    for (const target of set) {
      const where = place(target);
      const ended = target.resume((state) => log.append('halt', { action: 'resume', by, ...where.audit, ended: recorded(state) }));
      const removed = target instanceof HaltSwitch ? target.file : `the halt row of ${target.where}`;
      io.out(ended.halted ? `resumed: changes are allowed again (removed ${removed}; it was ${describe(ended)})` : `not halted: nothing to resume (${removed} is already gone)`);
    }
    return EXIT.ok;
  } catch (err) {
    if (err instanceof HaltError) return failed(io, err);
    io.err(`not resumed: the audit entry could not be written to ${ctx.auditFile} (${err instanceof Error ? err.message : String(err)}); the halt stays in place`);
    return EXIT.failed;
  } finally {
    log.close();
  }
}
