/** `pve-code-mcp approve PLANID`: the operator's out-of-band approval of a dry-run plan. */
import { defaultStateDir } from '../../app/config.js';
import { ApprovalStore } from '../../safety/approval.js';
import { summarizePlan } from '../../safety/plan.js';
import { EXIT, intOpt, parseCommandArgs, stringOpt, UsageError } from '../args.js';
import type { Command } from '../command.js';
import { appConfigFrom, CONFIG_OPTIONS } from '../context.js';

const usage = `Usage: pve-code-mcp approve PLANID [options]

Approve the writes of a dry-run plan (run_script with dryRun: true prints its planId). The agent
then runs the same script unchanged, and only exactly these writes may be made, once.
  --ttl MIN           approval lifetime in minutes (default 60)
  --state-dir DIR     where plans and approvals live (default: from the config, else
                      $XDG_STATE_HOME/pve-code-mcp or ~/.local/state/pve-code-mcp)
  -c, --config FILE   config file naming the state directory`;

export const approveCommand: Command = {
  name: 'approve',
  usage,
  async run(argv, io) {
    const args = parseCommandArgs(argv, { ...CONFIG_OPTIONS, ttl: { type: 'string' }, 'state-dir': { type: 'string' } });
    if (args.help) {
      io.out(usage);
      return EXIT.ok;
    }
    const [planId, ...extra] = args.positionals;
    if (!planId || extra.length > 0) throw new UsageError('give exactly one planId');
    const dir = stringOpt(args, 'state-dir') ?? (stringOpt(args, 'config') ? (await appConfigFrom(args)).stateDir : process.env.PVE_STATE_DIR ?? defaultStateDir());
    const store = new ApprovalStore(dir);
    const plan = store.loadPlan(planId.trim().toLowerCase());
    if (!plan) {
      io.err(`no plan ${planId} in ${dir}: run the script with dryRun: true first (and check --state-dir)`);
      return EXIT.failed;
    }
    const ttl = intOpt(args, 'ttl');
    const record = store.approve(plan.planId, ttl !== undefined ? { ttlMs: ttl * 60_000 } : {});
    io.out(`${summarizePlan(plan)}\n\napproved plan ${plan.planId} (${plan.writes.length} write(s)) until ${record.expiresAt}`);
    return EXIT.ok;
  },
};
