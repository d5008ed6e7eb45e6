/**
 * `pve-code-mcp halt` and `pve-code-mcp resume`: the operator's kill switch (src/safety/halt.ts).
 * Both need no cluster configuration, only where the switch file and the audit log are.
 *
 * Order, by what must never be lost: `halt` sets the switch first and audits after (stopping must
 * not wait on the audit: when the entry cannot be written the halt stays and the command fails);
 * `resume` lifts it only when its audit entry is written (otherwise the file is put back).
 */
import { loadStateSettings } from '../../app/config.js';
import { AuditLog } from '../../audit/log.js';
import type { AuditSink } from '../../audit/sink.js';
import { currentOperator, HaltError, HaltSwitch, type HaltedState, type HaltState } from '../../safety/halt.js';
import { boolOpt, EXIT, parseCommandArgs, stringOpt, UsageError, type CliIo, type ParsedArgs } from '../args.js';
import type { Command } from '../command.js';

const WHERE = `The switch is a file on this host, not in the state directory: halt.file of the config, else
$PVE_HALT_FILE, else /etc/pve-code-mcp/halt when the directory /etc/pve-code-mcp exists (one switch
for every account; only root sets or lifts it), else $XDG_CONFIG_HOME/pve-code-mcp/halt
(~/.config/pve-code-mcp/halt). Any file there halts, also one made with \`touch\`.
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
  openAudit(): AuditSink;
  auditFile: string;
}

function contextFrom(args: ParsedArgs): Context {
  const configFile = stringOpt(args, 'config') ?? process.env.PVE_CODE_MCP_CONFIG;
  const stateDir = stringOpt(args, 'state-dir');
  // createKey: the entry is keyed like a server's, with the key a server would generate.
  const settings = loadStateSettings({ ...(configFile ? { file: configFile } : {}), ...(stateDir ? { stateDir } : {}), createKey: true });
  const { file, hmacKey, maxBytes, retention, witness } = settings.audit;
  return {
    sw: HaltSwitch.open(settings.haltFile),
    auditFile: file,
    openAudit: () => AuditLog.open({ file, ...(hmacKey ? { hmacKey } : {}), maxBytes, retention, ...(witness ? { witness } : {}) }),
  };
}

function describe(state: HaltedState): string {
  if (state.problem) return `halted (fails closed): ${state.problem}`;
  return `halted${state.since ? ` since ${state.since}` : ''}${state.by ? ` by ${state.by}` : ''}${state.reason ? `: ${state.reason}` : ''}`;
}

function statusText(sw: HaltSwitch, state: HaltState): string {
  return state.halted ? `${describe(state)}\n  file: ${sw.file}\n  lift it with: pve-code-mcp resume` : `not halted: changes are allowed (the switch file ${sw.file} does not exist)`;
}

/** The `halt` entry's record of a state (what a reader of the audit needs to know who stopped what, and why). */
function recorded(state: HaltedState): Record<string, string> {
  return { ...(state.since ? { since: state.since } : {}), ...(state.by ? { by: state.by } : {}), ...(state.reason ? { reason: state.reason } : {}), ...(state.problem ? { problem: state.problem } : {}) };
}

function failed(io: CliIo, err: unknown): number {
  if (!(err instanceof HaltError)) throw err;
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
    const { sw, openAudit, auditFile } = contextFrom(args);
    if (boolOpt(args, 'status')) {
      io.out(statusText(sw, sw.state()));
      return EXIT.ok;
    }
    const by = currentOperator();
    const before = sw.state();
    let state: HaltedState;
    try {
      state = sw.halt(reason, by);
    } catch (err) {
      return failed(io, err);
    }
    io.out(
      `${describe(state)}\n  file: ${sw.file}\n` +
        (before.halted ? `  (it was already ${describe(before)}; replaced)\n` : '') +
        'every change through pve-code-mcp with this switch is refused from now on (runs in flight stop before their next write); reads go on\n' +
        '  lift it with: pve-code-mcp resume',
    );
    try {
      const log = openAudit();
      try {
        log.append('halt', { action: 'halt', ...recorded(state), file: sw.file, ...(before.halted ? { replaced: recorded(before) } : {}) });
      } finally {
        log.close();
      }
    } catch (err) {
      io.err(`the halt is in place, but its audit entry could not be written to ${auditFile} (${err instanceof Error ? err.message : String(err)})`);
      return EXIT.failed;
    }
    return EXIT.ok;
  },
};

export const resumeCommand: Command = {
  name: 'resume',
  usage: resumeUsage,
  async run(argv, io) {
    const args = parseCommandArgs(argv, OPTIONS, false);
    if (args.help) {
      io.out(resumeUsage);
      return EXIT.ok;
    }
    const { sw, openAudit, auditFile } = contextFrom(args);
    if (!sw.state().halted) {
      io.out(`not halted: nothing to resume (the switch file ${sw.file} does not exist)`);
      return EXIT.ok;
    }
    let log: AuditSink;
    try {
      log = openAudit();
    } catch (err) {
      io.err(`not resumed: the audit log ${auditFile} cannot be written (${err instanceof Error ? err.message : String(err)}); the halt stays in place`);
      return EXIT.failed;
    }
    const by = currentOperator();
    try {
      const ended = sw.resume((state) => log.append('halt', { action: 'resume', by, file: sw.file, ended: recorded(state) }));
      io.out(ended.halted ? `resumed: changes are allowed again (removed ${sw.file}; it was ${describe(ended)})` : `not halted: nothing to resume (the switch file ${sw.file} does not exist)`);
      return EXIT.ok;
    } catch (err) {
      if (err instanceof HaltError) return failed(io, err);
      io.err(`not resumed: the audit entry could not be written to ${auditFile} (${err instanceof Error ? err.message : String(err)}); the halt stays in place`);
      return EXIT.failed;
    } finally {
      log.close();
    }
  },
};
