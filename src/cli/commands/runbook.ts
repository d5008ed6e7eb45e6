/**
 * `pve-code-mcp runbook list|approve|revoke`: the operator's side of runbooks — what is saved,
 * and standing approvals (src/safety/standing.ts) that let a runbook run inside bounds without a
 * new approval each time.
 */
import { userInfo } from 'node:os';
import { createInterface } from 'node:readline/promises';
import { type AuditSinkOptions, openAuditSink } from '../../app/audit-sink.js';
import type { AppConfig } from '../../app/config/app-config.js';
import { readRunbook, runbookNames, runbookSummary } from '../../runbook/catalog.js';
import type { RiskClass } from '../../schema/model.js';
import { durationMs, type ArgBound, type StandingApproval } from '../../safety/standing.js';
import { standingStoreAt } from '../../safety/state-backends.js';
import type { StandingStore } from '../../safety/standing-store.js';
import { openPostgres } from '../../state/postgres/open.js';
import type { PostgresState } from '../../state/postgres/sql.js';
import { boolOpt, EXIT, intOpt, parseCommandArgs, stringOpt, UsageError, type CliIo, type ParsedArgs } from '../args.js';
import type { Command } from '../command.js';
import { appConfigFrom, CONFIG_OPTIONS, CONFIG_USAGE } from '../context.js';

const RISKS: readonly RiskClass[] = ['write', 'destructive', 'privileged'];
/** A standing approval is for a bounded time: a quarter at most. */
const MAX_EXPIRY_MS = 90 * 86_400_000;

const usage = `Usage: pve-code-mcp runbook list | approve NAME [options] | revoke ID

Runbooks are the script files in the config's runbooks.dir; agents run them by name (run_script
{ runbook, args }). A standing approval lets a runbook's writes run without asking, inside bounds:
  approve NAME        approve the runbook as its file is now (a changed file is not covered)
    --arg NAME=A|B      the values an argument may take (or NAME=MIN..MAX for a number); repeat
    --pool P, --tag T, --vmid N   the guests its writes may target (repeatable; any given must match)
    --risk R            write (default), destructive or privileged; repeatable
    --max-writes N      writes over all its uses (required)
    --max-runs N        runs at most
    --expires D         how long it stands: 30m, 12h, 7d (required, at most 90d)
    --cluster NAME      only on this cluster
    -y, --yes           approve without asking (required without a terminal)
  list                the runbooks, their arguments and the standing approvals
  revoke ID           withdraw a standing approval at once
Outside the bounds (another pool, too many writes, expired, the file changed) a run is asked for
or refused as any script. The kill switch always wins; under four eyes an approval counts only
for a principal other than the one who gave it; a session that read text others control is asked.
${CONFIG_USAGE}`;

export const runbookCommand: Command = {
  name: 'runbook',
  usage,
  async run(argv, io) {
    const args = parseCommandArgs(argv, {
      ...CONFIG_OPTIONS,
      arg: { type: 'string', multiple: true },
      pool: { type: 'string', multiple: true },
      tag: { type: 'string', multiple: true },
      vmid: { type: 'string', multiple: true },
      risk: { type: 'string', multiple: true },
      'max-writes': { type: 'string' },
      'max-runs': { type: 'string' },
      expires: { type: 'string' },
      cluster: { type: 'string' },
      yes: { type: 'boolean', short: 'y' },
    });
    if (args.help) {
      io.out(usage);
      return EXIT.ok;
    }
    const [action, target, ...extra] = args.positionals;
    if (extra.length > 0) throw new UsageError(`unexpected '${extra.join(' ')}'`);
    const config = await appConfigFrom(args);
    // Replicas sharing PostgreSQL keep their standing approvals there (state.postgres).
    const pg = config.state.postgres ? openPostgres(config.state.postgres) : undefined;
    try {
      return await act(action, target, args, config, { standing: standingStoreAt({ dir: config.stateDir, ...(pg ? { postgres: pg } : {}) }), ...(pg ? { postgres: pg } : {}) }, io);
    } finally {
      pg?.close();
    }
  },
};

/** Where standing approvals are kept, and the database the audit is in when the state is shared. */
interface Stores {
  standing: StandingStore;
  postgres?: PostgresState;
}

async function act(action: string | undefined, target: string | undefined, args: ParsedArgs, config: AppConfig, stores: Stores, io: CliIo): Promise<number> {
  const store = stores.standing;
  const dir = config.runbooks?.dir;
  switch (action) {
    case 'list': {
      if (!dir) throw new UsageError('no runbooks are configured: set runbooks.dir in the config');
      const standing = store.list();
      for (const name of runbookNames(dir)) {
        const book = readRunbook(dir, name);
        io.out(`${name}  ${runbookSummary(book.code)}`);
        for (const a of standing.filter((s) => s.runbook === name)) io.out(`  ${standingStatus(a, book.contentHash)}`);
      }
      return EXIT.ok;
    }
    case 'revoke': {
      if (!target) throw new UsageError('give the standing approval ID (runbook list shows them)');
      const a = store.revoke(target);
      audit(
        { audit: config.audit, ...(stores.postgres ? { postgres: stores.postgres } : {}) },
        { via: 'cli', standingId: a.id, runbook: a.runbook, revokedBy: userInfo().username, revoked: true },
        io,
      );
      io.out(`revoked standing approval ${a.id} of runbook '${a.runbook}'`);
      return EXIT.ok;
    }
    case 'approve': {
      if (!target) throw new UsageError('give the runbook name');
      const book = readRunbook(dir, target);
      const fields = approvalFields(args, book.name, book.contentHash);
      io.out(`Runbook '${book.name}' (content ${book.contentHash.slice(0, 12)}): ${runbookSummary(book.code)}\n${describe(fields)}`);
      if (!boolOpt(args, 'yes')) {
        const answer = await confirm('Approve this standing use? [y/N] ');
        if (answer === undefined) {
          io.err('not approved: no terminal to confirm on; review the bounds above and add --yes');
          return EXIT.failed;
        }
        if (!answer) {
          io.err('not approved');
          return EXIT.failed;
        }
      }
      const a = store.add(fields);
      audit(
        { audit: config.audit, ...(stores.postgres ? { postgres: stores.postgres } : {}) },
        {
          via: 'cli',
          standingId: a.id,
          runbook: a.runbook,
          contentHash: a.contentHash,
          approvedBy: a.approvedBy,
          expiresAt: a.expiresAt,
          bounds: { args: a.args, targets: a.targets, risks: a.risks, maxWrites: a.maxWrites, ...(a.maxRuns !== undefined ? { maxRuns: a.maxRuns } : {}) },
        },
        io,
      );
      io.out(`standing approval ${a.id} of runbook '${a.runbook}' by ${a.approvedBy} until ${a.expiresAt}`);
      return EXIT.ok;
    }
    default:
      throw new UsageError(action ? `unknown action '${action}'` : 'give an action: list, approve or revoke');
  }
}

function approvalFields(args: ParsedArgs, runbook: string, contentHash: string): Omit<StandingApproval, 'id' | 'used' | 'approvedAt'> {
  const list = (name: string): string[] => {
    const v = args.values[name];
    return Array.isArray(v) ? v : [];
  };
  const maxWrites = intOpt(args, 'max-writes');
  if (maxWrites === undefined) throw new UsageError('--max-writes is required: how many writes the approval covers over all its uses');
  const maxRuns = intOpt(args, 'max-runs');
  const expires = stringOpt(args, 'expires');
  const ms = expires === undefined ? undefined : durationMs(expires);
  if (ms === undefined || ms <= 0 || ms > MAX_EXPIRY_MS) throw new UsageError('--expires is required: 30m, 12h or 7d, at most 90d');
  const risks = list('risk');
  for (const r of risks) if (!(RISKS as readonly string[]).includes(r)) throw new UsageError(`--risk must be ${RISKS.join(', ')}, got '${r}'`);
  const vmids = list('vmid').map((v) => {
    if (!/^\d+$/.test(v)) throw new UsageError(`--vmid takes a number, got '${v}'`);
    return Number(v);
  });
  const bounds: Record<string, ArgBound> = {};
  for (const item of list('arg')) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.+)$/.exec(item);
    if (!m) throw new UsageError(`--arg takes NAME=A|B or NAME=MIN..MAX, got '${item}'`);
    const [, name, spec] = m as unknown as [string, string, string];
    const range = /^(-?\d+(?:\.\d+)?)?\.\.(-?\d+(?:\.\d+)?)?$/.exec(spec);
    bounds[name] = range
      ? { ...(range[1] !== undefined ? { min: Number(range[1]) } : {}), ...(range[2] !== undefined ? { max: Number(range[2]) } : {}) }
      : { values: spec.split('|').map((v) => (/^-?\d+(?:\.\d+)?$/.test(v) ? Number(v) : v === 'true' ? true : v === 'false' ? false : v)) };
  }
  const cluster = stringOpt(args, 'cluster');
  return {
    runbook,
    contentHash,
    ...(cluster ? { cluster } : {}),
    args: bounds,
    targets: {
      ...(list('pool').length > 0 ? { pools: list('pool') } : {}),
      ...(list('tag').length > 0 ? { tags: list('tag').map((t) => t.toLowerCase()) } : {}),
      ...(vmids.length > 0 ? { vmids } : {}),
    },
    risks: (risks.length > 0 ? risks : ['write']) as RiskClass[],
    maxWrites,
    ...(maxRuns !== undefined ? { maxRuns } : {}),
    approvedBy: userInfo().username,
    expiresAt: new Date(Date.now() + (ms as number)).toISOString(),
  };
}

function describe(f: Omit<StandingApproval, 'id' | 'used' | 'approvedAt'>): string {
  const args = Object.entries(f.args).map(([n, b]) => `  argument ${n}: ${b.values ? b.values.map((v) => JSON.stringify(v)).join(' | ') : `${b.min ?? ''}..${b.max ?? ''}`}`);
  const t = f.targets;
  const targets = [...(t.pools ?? []).map((p) => `pool ${p}`), ...(t.tags ?? []).map((x) => `tag ${x}`), ...(t.vmids ?? []).map((v) => `VMID ${v}`)];
  return [
    ...args,
    `  targets: ${targets.length > 0 ? targets.join(', ') : 'any guest the policy allows'}`,
    `  risks: ${f.risks.join(', ')}; at most ${f.maxWrites} writes${f.maxRuns !== undefined ? ` in ${f.maxRuns} runs` : ''}${f.cluster ? ` on cluster ${f.cluster}` : ''}`,
    `  until ${f.expiresAt}`,
  ].join('\n');
}

function standingStatus(a: StandingApproval, currentHash: string): string {
  const state = a.revokedAt
    ? `revoked ${a.revokedAt}`
    : Date.parse(a.expiresAt) <= Date.now()
      ? `expired ${a.expiresAt}`
      : a.contentHash !== currentHash
        ? 'the file changed since: not covered'
        : `until ${a.expiresAt}`;
  return `${a.id} by ${a.approvedBy}: ${state}; ${a.used.writes}/${a.maxWrites} writes, ${a.used.runs}${a.maxRuns !== undefined ? `/${a.maxRuns}` : ''} runs`;
}

function audit(where: AuditSinkOptions, data: Record<string, unknown>, io: { err(t: string): void }): void {
  try {
    const log = openAuditSink(where);
    try {
      log.append('approval', data);
    } finally {
      log.close();
    }
  } catch (err) {
    io.err(`warning: recorded, but its audit entry could not be written (${err instanceof Error ? err.message : String(err)})`);
  }
}

async function confirm(question: string): Promise<boolean | undefined> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) return undefined;
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}
