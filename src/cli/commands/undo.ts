/**
 * `pve-code-mcp undo RUNID`: reverse what a run changed. The reversal is the script
 * `return await pve.undo(RUNID)`, run through the same pipeline as any other: a dry-run makes
 * its plan (what each step restores, and what cannot be undone), the operator reads it and
 * answers y/N as for `approve`, and the approved run makes exactly the planned steps.
 */
import { ApprovalError } from '../../safety/approval-errors.js';
import { runScriptAnswer } from '../../server/tools/run-script.js';
import { boolOpt, EXIT, parseCommandArgs, stringOpt, UsageError } from '../args.js';
import type { Command } from '../command.js';
import { appConfigFrom, CONFIG_OPTIONS, CONFIG_USAGE, openProduct } from '../context.js';
import { confirm } from './approve.js';

const usage = `Usage: pve-code-mcp undo RUNID [options]

Reverse the changes of a run (RUNID: the changes.runId of its run_script answer, or the runId of
its entries in the audit log): config values it changed are put back, snapshots it took are
deleted, a safety snapshot taken before it (policy undo.snapshotBefore) is rolled back to. It shows
the plan — each step, and what cannot be undone and why — and asks before anything is sent;
the reversing writes then go through the policy like any other. A config that changed since the
run is not overwritten: that change is listed as not undone.
  -y, --yes           undo without asking (scripts; without a terminal it is required)
  --cluster NAME      the cluster whose budget and policy the undo runs under (default: the config's)
${CONFIG_USAGE}`;

const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface UndoAnswer {
  undone?: string[];
  cannot?: string[];
}

export const undoCommand: Command = {
  name: 'undo',
  usage,
  async run(argv, io) {
    const args = parseCommandArgs(argv, { ...CONFIG_OPTIONS, cluster: { type: 'string' }, yes: { type: 'boolean', short: 'y' } });
    if (args.help) {
      io.out(usage);
      return EXIT.ok;
    }
    const [given, ...extra] = args.positionals;
    if (!given || extra.length > 0) throw new UsageError('give exactly one run id');
    const runId = given.trim().toLowerCase();
    if (!RUN_ID.test(runId)) throw new UsageError(`'${given}' is not a run id (a UUID: the changes.runId of a run_script answer)`);
    const code = `return await pve.undo(${JSON.stringify(runId)});`;
    const cluster = stringOpt(args, 'cluster');
    const config = await appConfigFrom(args);
    const product = await openProduct(config, io);
    try {
      const input = { code, typecheck: false, ...(cluster ? { cluster } : {}) };
      const planned = runScriptAnswer(await product.runScript({ ...input, dryRun: true }));
      if (!planned.ok) {
        io.err(`undo of run ${runId} could not be planned: ${planned.error?.message ?? 'the dry-run failed'}`);
        return EXIT.failed;
      }
      const answer = (planned.result ?? {}) as UndoAnswer;
      const plan = planned.plan;
      if (!plan || plan.writes.length === 0) {
        const cannot = answer.cannot ?? [];
        io.out(`nothing to undo for run ${runId}${cannot.length > 0 ? `; not undone:\n${cannot.map((c) => `  - ${c}`).join('\n')}` : ''}`);
        return cannot.length > 0 ? EXIT.failed : EXIT.ok;
      }
      // The plan without its agent-facing "Next:" line: this command says what happens next.
      io.out(`${(plan.summary ?? '').replace(/\nNext: [^\n]*$/, '')}\n`);
      if (!boolOpt(args, 'yes')) {
        const yes = await confirm(`Undo run ${runId.slice(0, 8)} with these ${plan.writes.length} write${plan.writes.length === 1 ? '' : 's'}? [y/N] `);
        if (yes === undefined) {
          io.err(`not undone: no terminal to confirm on. Read the plan above, then run \`pve-code-mcp undo ${runId} --yes\``);
          return EXIT.failed;
        }
        if (!yes) {
          io.err(`not undone: nothing was sent`);
          return EXIT.failed;
        }
      }
      // The operator's answer approves exactly this plan (also when the policy would let its writes
      // run directly): the run below claims it and is bound to the steps shown, in their order.
      try {
        product.state.approvals.approve(plan.planId);
      } catch (err) {
        if (!(err instanceof ApprovalError)) throw err;
        io.err(`not undone: ${err.message}`);
        return EXIT.failed;
      }
      const ran = runScriptAnswer(await product.runScript(input));
      const result = (ran.result ?? {}) as UndoAnswer;
      if (!ran.ok) {
        io.err(`undo of run ${runId} stopped: ${ran.error?.message ?? 'the run failed'}${ran.changes ? ` (${ran.changes.done} change(s) made)` : ''}`);
        return EXIT.failed;
      }
      io.out(`undone (run ${ran.changes?.runId ?? '?'}):\n${(result.undone ?? []).map((u) => `  - ${u}`).join('\n')}`);
      if ((result.cannot ?? []).length > 0) io.out(`not undone:\n${(result.cannot ?? []).map((c) => `  - ${c}`).join('\n')}`);
      return EXIT.ok;
    } finally {
      await product.close();
    }
  },
};
