/** `pve-code-mcp console`: the web console on 127.0.0.1 for the operator on the server host, signed in with a one-time link. */
import { userInfo } from 'node:os';
import { resolve } from 'node:path';
import { openAuditSink } from '../../app/audit-sink.js';
import { loadStateSettings } from '../../app/config/app-config.js';
import { approvalStoreAt } from '../../safety/state-backends.js';
import { openPostgres } from '../../state/postgres/open.js';
import { startLocalConsole } from '../../server/console/local.js';
import { createWebConsole } from '../../server/console/setup.js';
import { EXIT, intOpt, parseCommandArgs, stringOpt } from '../args.js';
import type { Command } from '../command.js';
import { StopSignals } from '../context.js';

const usage = `Usage: pve-code-mcp console [options]

Serve the web console on 127.0.0.1 for the operator on this host (stdio and static-token setups):
the plans waiting for approval with what each step changes, approve or decline, and the recent
runs from the audit with its chain verified. It prints a one-time login link (valid 10 minutes,
used once) that signs you in as this OS user, the same person \`pve-code-mcp approve\` trusts.
  --port N            listen port (default: any free one)
  --session-minutes M how long a console session lasts (default 60)
  --state-dir DIR     where plans and approvals live (default: from the config, else $PVE_STATE_DIR,
                      else $XDG_STATE_HOME/pve-code-mcp or ~/.local/state/pve-code-mcp)
  -c, --config FILE   config file naming the state directory and audit (clusters are not needed)`;

export const consoleCommand: Command = {
  name: 'console',
  usage,
  async run(argv, io) {
    const args = parseCommandArgs(argv, { config: { type: 'string', short: 'c' }, 'state-dir': { type: 'string' }, port: { type: 'string' }, 'session-minutes': { type: 'string' } });
    if (args.help) {
      io.out(usage);
      return EXIT.ok;
    }
    const configFile = stringOpt(args, 'config') ?? process.env.PVE_CODE_MCP_CONFIG;
    const stateDir = stringOpt(args, 'state-dir');
    const settings = loadStateSettings({ ...(configFile ? { file: configFile } : {}), ...(stateDir ? { stateDir: resolve(stateDir) } : {}), createKey: true });
    const { file, hmacKey } = settings.audit;
    // Plans shared by replicas in PostgreSQL (state.postgres) are approved there, and audited there.
    const pg = settings.state.postgres && !stateDir ? openPostgres(settings.state.postgres) : undefined;
    const store = pg ? approvalStoreAt({ dir: settings.stateDir, postgres: pg }, resolve(configFile as string)) : undefined;
    const signals = new StopSignals();
    let audit: ReturnType<typeof openAuditSink> | undefined;
    try {
      audit = openAuditSink({ audit: settings.audit, ...(pg ? { postgres: pg } : {}) });
      const sink = audit;
      const webConsole = createWebConsole({
        stateDir: settings.stateDir,
        ...(store ? { store } : {}),
        audit: { file, ...(hmacKey ? { hmacKey } : {}), ...(pg ? { postgres: pg } : {}) },
        appendApproval: (data) => sink.append('approval', data),
        sessionMinutes: intOpt(args, 'session-minutes') ?? 60,
      });
      const running = await startLocalConsole(webConsole, { ...(intOpt(args, 'port') !== undefined ? { port: intOpt(args, 'port') } : {}), log: (line) => io.err(line) });
      const link = webConsole.loginLink({ id: osUser(), via: 'local', groups: [], canApprove: true });
      io.err(`pve-code-mcp console: ${running.url} (plans in ${store ? store.where : settings.stateDir})\nOpen this one-time login link (valid 10 minutes, once):\n${link}\n(Ctrl-C to stop)`);
      await signals.first;
      await running.close();
      return EXIT.ok;
    } finally {
      audit?.close();
      pg?.close();
      signals.dispose();
    }
  },
};

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'operator';
  }
}
