/**
 * MCP prompts: canned workflows an operator picks from the client's prompt list (cluster health,
 * a pool snapshot before maintenance, why a task failed, capacity). Each one is a user message that
 * teaches the three-tool loop on the task at hand — search_api to find the operations, get_schema
 * for their exact signatures, run_script to do the work in one script (a dry-run first for
 * writes) — instead of a fixed script that would not match every PVE version or policy.
 *
 * The `runbook` prompt lists the operator's saved scripts (runbooks.dir) with their arguments and
 * standing approvals, and tells the agent to run one by name rather than rewrite it.
 *
 * Prompts are listed by prompts/list, not tools/list, so they cost the tool listing nothing.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Product } from '../app/product.js';
import { CLUSTER_NAME_PATTERN } from '../client/config.js';
import { parseUpid } from '../pve/upid.js';

const clusterArg = z.string().regex(CLUSTER_NAME_PATTERN, 'a cluster name from the configuration').optional().describe('Cluster name (default: the default cluster)');

/** PVE's pool ID syntax (pve-poolid). */
const POOL = /^[A-Za-z0-9_.-]{1,64}$/;
/** PVE's snapshot name syntax (pve-configid: a letter, then letters, digits, _ and -). */
const SNAPNAME = /^[A-Za-z][A-Za-z0-9_-]{1,39}$/;

const LOOP =
  'Work in the three-tool loop: (1) search_api to find the operations you need (one line per hit, with its risk ' +
  'and whether the policy allows it); (2) get_schema on the ones you will call, for their exact TypeScript ' +
  'signatures and return fields; (3) one run_script that makes the calls, filters and aggregates in the sandbox ' +
  'and returns only the answer. Do not guess paths or fields: take them from get_schema.';

export function registerPrompts(server: McpServer, product: Product): void {
  const cluster = (name: string | undefined): string => {
    const chosen = name ?? product.defaultCluster;
    product.cluster(chosen); // unknown or unavailable: the error names the cluster and the fix
    return chosen;
  };
  const clusterNote = (name: string): string => (name === product.defaultCluster ? '' : ` Pass cluster: '${name}' to every tool call.`);
  const message = (text: string): GetPromptResult => ({ messages: [{ role: 'user', content: { type: 'text', text } }] });

  server.registerPrompt(
    'cluster-health',
    {
      title: 'Cluster health report',
      description: 'Nodes, guests, storages, HA and recent failed tasks of a cluster, as a short report',
      argsSchema: { cluster: clusterArg },
    },
    ({ cluster: c }) => {
      const name = cluster(c);
      return message(
        `Write a health report of the Proxmox VE cluster '${name}'.${clusterNote(name)}\n\n${LOOP}\n\n` +
          'Suggested searches: "cluster status and quorum", "every node, guest and storage of the cluster" ' +
          '(GET /cluster/resources covers nodes, guests and storages in one call), "HA resource status", ' +
          '"recent tasks of the cluster". In one script: nodes online/offline with CPU and memory use, guests by status, ' +
          'storages above 80% used, HA resources not in their requested state, and tasks of the last 24 h that did not ' +
          'end OK (type, node, guest, exit status). Return a compact object; then summarise it in a few lines, most urgent first. ' +
          'This is read-only: make no writes.',
      );
    },
  );

  server.registerPrompt(
    'snapshot-pool',
    {
      title: 'Snapshot a pool before maintenance',
      description: 'Snapshot every guest of a pool, planned first (dry-run), then run after approval',
      argsSchema: {
        pool: z.string().regex(POOL, 'a PVE pool ID (letters, digits, _ . -)').describe('Pool whose guests to snapshot'),
        snapname: z.string().regex(SNAPNAME, 'a snapshot name: a letter, then letters, digits, _ or - (2-40 characters)').optional().describe('Snapshot name (default pre_maintenance)'),
        cluster: clusterArg,
      },
    },
    ({ pool, snapname, cluster: c }) => {
      const name = cluster(c);
      const snap = snapname ?? 'pre_maintenance';
      return message(
        `Snapshot every guest (VMs and containers) of pool '${pool}' on cluster '${name}' with the snapshot name '${snap}', before maintenance.${clusterNote(name)}\n\n${LOOP}\n\n` +
          `Suggested searches: "guests of a pool" (GET /pools or /cluster/resources with their pool field), "snapshot a vm", ` +
          '"snapshot a container". Check with get_schema that the snapshot operations take node, vmid and snapname, and that ' +
          "qemu and lxc guests use different paths. Write one script that lists the pool's guests, skips templates, " +
          'creates the snapshot for each on its own node, waits for each task with pve.waitTask and returns per guest: vmid, ' +
          'name, node, ok, and the last log lines of any failure.\n\n' +
          'Run it first with dryRun: true and show the plan (the writes it would make) to the user. Then run the same script ' +
          'without dryRun; if the policy asks for approval the user approves the exact plan (in the client, or with ' +
          'pve-code-mcp approve <planId>), so do not change the script between the dry-run and the real run. ' +
          'If a guest already has a snapshot of that name, report it instead of deleting anything.',
      );
    },
  );

  server.registerPrompt(
    'why-task-failed',
    {
      title: 'Why did this task fail?',
      description: "Read a task's status and log by its UPID and explain the failure with the next step",
      argsSchema: {
        upid: z
          .string()
          .refine((upid) => parseUpid(upid) !== undefined, 'a task UPID, e.g. UPID:pve1:0000C530:0001A2F3:6650B1C2:qmstart:101:root@pam:')
          .describe("The task's UPID"),
        cluster: clusterArg,
      },
    },
    ({ upid, cluster: c }) => {
      const name = cluster(c);
      const node = parseUpid(upid)?.node;
      return message(
        `Explain why the Proxmox VE task ${upid} on cluster '${name}' failed, and what to do next.${clusterNote(name)}\n\n${LOOP}\n\n` +
          `Suggested searches: "task status", "task log". The UPID names its node (${node}), type, guest and user. ` +
          "In one script read the task's status (exitstatus, start and end time) and its log (the last 50 lines are usually enough; " +
          'the log can be long, so filter it to the error lines and their context in the script), and where the task names a guest, ' +
          "that guest's current status and config lines the error mentions. Return the facts; then explain the cause in plain " +
          'words and name one concrete next step. This is read-only: make no writes.',
      );
    },
  );

  server.registerPrompt(
    'runbook',
    {
      title: 'Run a runbook',
      description: "Run an operator's saved script by name with its arguments; without a name, list the runbooks",
      argsSchema: {
        name: z
          .string()
          .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'a runbook name')
          .optional()
          .describe('Runbook to run (omit to list them)'),
        cluster: clusterArg,
      },
    },
    async ({ name: wanted, cluster: c }) => {
      const name = cluster(c);
      const books = await product.runbooks();
      if (books.length === 0) return message('No runbooks are configured on this server (config `runbooks.dir`). Use the three-tool loop instead.');
      const describe = (b: (typeof books)[number]): string =>
        `- ${b.name}: ${b.summary || '(no description)'}\n  args: ${b.args}${b.standing.length > 0 ? `\n  ${b.standing.join('\n  ')}` : '\n  no standing approval: writes that need approval are asked for'}`;
      const how =
        `Run one with run_script { runbook: "<name>", args: { … } }${clusterNote(name) ? `, cluster: '${name}'` : ''} — do not rewrite it as code. ` +
        'The runbook is the script the operator reviewed; its arguments are checked before it runs. A run inside a standing ' +
        "approval's bounds runs without asking; anything outside it is asked for (or refused) as usual. Try dryRun: true first to see the plan.";
      const chosen = wanted === undefined ? books : books.filter((b) => b.name === wanted);
      if (chosen.length === 0) return message(`No runbook '${wanted}'. The runbooks:\n${books.map(describe).join('\n')}\n\n${how}`);
      return message(`${wanted === undefined ? 'The runbooks of this server' : `Runbook '${wanted}'`}:\n${chosen.map(describe).join('\n')}\n\n${how}`);
    },
  );

  server.registerPrompt(
    'capacity-report',
    {
      title: 'Capacity report',
      description: 'CPU, memory and storage headroom per node and storage, and what is overcommitted',
      argsSchema: {
        cluster: clusterArg,
        threshold: z
          .string()
          .regex(/^(?:[1-9]\d?|100)$/, 'a percentage between 1 and 100')
          .optional()
          .describe('Usage percentage that counts as tight (default 80)'),
      },
    },
    ({ cluster: c, threshold }) => {
      const name = cluster(c);
      const limit = threshold ?? '80';
      return message(
        `Write a capacity report of cluster '${name}'.${clusterNote(name)}\n\n${LOOP}\n\n` +
          'Suggested searches: "every node, guest and storage of the cluster" (GET /cluster/resources), "node status", "storage status". ' +
          'In one script compute per node: CPU cores vs the vCPUs of its guests (running and all), memory used and the memory ' +
          'configured for its guests, and per storage: used, total and free, with shared storages counted once. Flag everything ' +
          `above ${limit}% and any overcommit above 1.0. Return a table-shaped result (one row per node or storage) and a short ` +
          'conclusion: where the next guest fits, and what fills up first. This is read-only: make no writes.',
      );
    },
  );
}
