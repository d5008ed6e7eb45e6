/** `pve-code-mcp approve [PLANID]`: the operator's out-of-band approval of a dry-run plan, or the list of plans waiting for one. */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { openAuditSink } from '../../app/audit-sink.js';
import { loadStateSettings } from '../../app/config/app-config.js';
import { defaultStateDir } from '../../app/config/state-settings.js';
import { ApprovalStore, type StoredPlanStatus } from '../../safety/approval.js';
import { ApprovalError } from '../../safety/approval-errors.js';
import { approvalStoreAt } from '../../safety/state-backends.js';
import { StateError } from '../../state/errors.js';
import { openPostgres } from '../../state/postgres/open.js';
import type { PostgresState } from '../../state/postgres/sql.js';
import { summarizePlan, type Plan } from '../../safety/plan.js';
import { boolOpt, EXIT, intOpt, parseCommandArgs, stringOpt, UsageError, type CliIo, type ParsedArgs } from '../args.js';
import type { Command } from '../command.js';

const usage = `Usage: pve-code-mcp approve [PLANID] [options]

Approve the writes of a dry-run plan (run_script with dryRun: true, or a refused run, prints its
planId and this command). The agent then runs the same script unchanged, and only exactly these
writes may be made, once. It shows the plan (what each write changes) and asks before it approves;
without a terminal it approves only with --yes. Without PLANID: list the plans that need an approval
(plans whose writes all run directly are not listed), with their summaries.
A unique prefix of a planId (8+ characters) is enough. The approval is given as the host operator
(this OS user, named in the approval and the audit); a plan asked for by a principal of the same
name is refused (nobody approves their own plan). Plans whose policy wants four eyes accept it.
  -y, --yes           approve without asking (scripts; without a terminal it is required)
  --ttl MIN           approval lifetime in minutes (default 60)
  --again             approve a plan that already ran (an approval is used once)
  --all               with no PLANID: list plans that already ran too
  --state-dir DIR     where plans and approvals live (default: from the config, else $PVE_STATE_DIR,
                      else $XDG_STATE_HOME/pve-code-mcp or ~/.local/state/pve-code-mcp, and the demo's
                      <that>/demo)
  -c, --config FILE   config file naming the state directory, or the PostgreSQL database replicas
                      share (state.postgres; clusters are not needed)`;

/** A store to look in, and the state directory whose audit records an approval given in it. */
interface Located {
  store: ApprovalStore;
  stateDir: string;
  /** The shared database the store is in: the audit is there too. */
  postgres?: PostgresState;
}

/**
 * Where to look: the directory given, else the configured database or directory, else the user's
 * default and the demo's. `opened` is the database connection to close when done.
 */
function storesFrom(stateDir: string | undefined, configFile: string | undefined, opened: PostgresState[]): Located[] {
  const inDir = (dir: string): Located => ({ store: new ApprovalStore(dir), stateDir: dir });
  if (stateDir) return [inDir(resolve(stateDir))];
  if (configFile) {
    const settings = loadStateSettings({ file: configFile });
    if (!settings.state.postgres) return [inDir(settings.stateDir)];
    const pg = openPostgres(settings.state.postgres);
    opened.push(pg);
    return [{ store: approvalStoreAt({ dir: settings.stateDir, postgres: pg }, resolve(configFile)), stateDir: settings.stateDir, postgres: pg }];
  }
  const dirs = [
    process.env.PVE_STATE_DIR ? resolve(process.env.PVE_STATE_DIR) : undefined,
    defaultStateDir(),
    join(process.env.PVE_STATE_DIR ? resolve(process.env.PVE_STATE_DIR) : defaultStateDir(), 'demo'),
  ];
  return [...new Set(dirs.filter((d): d is string => d !== undefined && existsSync(d)))].map(inDir);
}

function describeStatus(s: StoredPlanStatus): string {
  if (s.status === 'approved') return `approved until ${s.approval?.expiresAt ?? '?'}`;
  if (s.status === 'ran') return `ran at ${s.lastRun?.at ?? '?'} (run ${s.lastRun?.runId ?? '?'})`;
  return 'waiting for approval';
}

/** Whether any write of the plan waits for an approval (a plan whose writes all run directly needs none). */
function needsApproval(plan: Plan): boolean {
  return plan.writes.some((w) => w.needsApproval);
}

/** The operator's y/N on the terminal; undefined without one (stdin or stdout not a TTY). */
export async function confirm(question: string): Promise<boolean | undefined> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) return undefined;
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

export const approveCommand: Command = {
  name: 'approve',
  usage,
  async run(argv, io) {
    const args = parseCommandArgs(argv, {
      config: { type: 'string', short: 'c' },
      ttl: { type: 'string' },
      'state-dir': { type: 'string' },
      again: { type: 'boolean' },
      all: { type: 'boolean' },
      yes: { type: 'boolean', short: 'y' },
    });
    if (args.help) {
      io.out(usage);
      return EXIT.ok;
    }
    const [planArg, ...extra] = args.positionals;
    if (extra.length > 0) throw new UsageError('give at most one planId');
    const opened: PostgresState[] = [];
    try {
      return await approveIn(storesFrom(stringOpt(args, 'state-dir'), stringOpt(args, 'config') ?? process.env.PVE_CODE_MCP_CONFIG, opened), planArg, args, io);
    } catch (err) {
      if (!(err instanceof StateError)) throw err;
      io.err(`not approved: ${err.message}`);
      return EXIT.failed;
    } finally {
      for (const pg of opened) pg.close();
    }
  },
};

async function approveIn(stores: Located[], planArg: string | undefined, args: ParsedArgs, io: CliIo): Promise<number> {
  const where = stores.map((s) => s.store.where).join(', ') || '(no state directory exists yet)';

  if (!planArg) {
    const listed = stores.flatMap(({ store }) => store.list().map((s) => ({ store, s }))).filter(({ s }) => needsApproval(s.plan) && (boolOpt(args, 'all') || s.status !== 'ran'));
    if (listed.length === 0) {
      io.out(`no plans need approval in ${where}`);
      return EXIT.ok;
    }
    for (const { store, s } of listed) {
      io.out(
        `── ${s.plan.planId} · ${describeStatus(s)} · planned ${s.plan.createdAt} · ${store.where}\n${summarizePlan(s.plan)}\n   approve: ${store.approveCommandLine(s.plan.planId)}${s.status === 'ran' ? ' --again' : ''}\n`,
      );
    }
    return EXIT.ok;
  }

  const found: Array<Located & { planId: string }> = [];
  try {
    for (const located of stores) {
      const planId = located.store.resolvePlanId(planArg);
      if (planId && located.store.loadPlan(planId)) found.push({ ...located, planId });
    }
  } catch (err) {
    if (!(err instanceof ApprovalError)) throw err;
    io.err(err.message);
    return EXIT.failed;
  }
  if (found.length === 0) {
    io.err(`no plan ${planArg} in ${where}: check the planId, or pass the --state-dir (or --config) the server uses; \`pve-code-mcp approve\` lists the plans it finds`);
    return EXIT.failed;
  }
  if (found.length > 1) {
    io.err(`plan ${planArg} is in several state directories (${found.map((f) => f.store.where).join(', ')}): choose one with --state-dir`);
    return EXIT.failed;
  }
  const { store, stateDir, postgres, planId } = found[0] as Located & { planId: string };
  const plan = store.loadPlan(planId);
  if (!plan) return EXIT.failed;
  if (!needsApproval(plan)) {
    io.err(`plan ${plan.planId} needs no approval: every write in it runs directly under policy '${plan.policy}'; the agent runs the same script without dryRun`);
    return EXIT.failed;
  }
  const ttl = intOpt(args, 'ttl');
  if (!boolOpt(args, 'yes')) {
    io.out(`${summarizePlan(plan)}\n`);
    const answer = await confirm(`Approve plan ${plan.planId.slice(0, 12)} (${plan.writes.length} write${plan.writes.length === 1 ? '' : 's'}, as shown above)? [y/N] `);
    if (answer === undefined) {
      io.err(`not approved: no terminal to confirm on. Read the plan above, then approve it with \`${store.approveCommandLine(plan.planId)} --yes\``);
      return EXIT.failed;
    }
    if (!answer) {
      io.err(`not approved: plan ${plan.planId} stays waiting`);
      return EXIT.failed;
    }
  }
  let record: ReturnType<ApprovalStore['approve']>;
  try {
    record = store.approve(plan.planId, { ...(ttl !== undefined ? { ttlMs: ttl * 60_000 } : {}), ...(boolOpt(args, 'again') ? { again: true } : {}) });
  } catch (err) {
    if (err instanceof ApprovalError) {
      io.err(err.message);
      return EXIT.failed;
    }
    throw err;
  }
  const forWhom = record.requestedBy !== undefined ? ` for '${record.requestedBy}'` : '';
  io.out(
    `${boolOpt(args, 'yes') ? `${summarizePlan(plan)}\n\n` : ''}approved plan ${plan.planId} (${plan.writes.length} write(s))${forWhom} by ${record.approvedBy} until ${record.expiresAt} in ${store.where}`,
  );
  const audited = auditApproval({ stateDir, ...(postgres ? { postgres } : {}) }, stringOpt(args, 'config') ?? process.env.PVE_CODE_MCP_CONFIG, record);
  if (audited !== undefined) {
    // The approval stands (the run that uses it is audited with its approver); say what is missing.
    io.err(`warning: the approval is recorded, but its audit entry could not be written (${audited}); the run that uses it names the approver`);
  }
  return EXIT.ok;
}

/**
 * The approval in the audit of the store (the state directory's log, or the shared database's), as
 * a server's HTTP approval is; the error text when it cannot be written.
 */
function auditApproval(where: { stateDir: string; postgres?: PostgresState }, configFile: string | undefined, record: ReturnType<ApprovalStore['approve']>): string | undefined {
  try {
    const { audit } = loadStateSettings({ ...(configFile ? { file: configFile } : {}), stateDir: where.stateDir, createKey: true });
    const log = openAuditSink({ audit, ...(where.postgres ? { postgres: where.postgres } : {}) });
    try {
      log.append('approval', {
        via: 'cli',
        planId: record.planId,
        approvedBy: record.approvedBy,
        ...(record.requestedBy !== undefined ? { for: record.requestedBy } : {}),
        expiresAt: record.expiresAt,
      });
    } finally {
      log.close();
    }
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
