/**
 * A scripts folder an editor understands: the cluster's SDK declarations (`pve-code-mcp types`),
 * a tsconfig that checks a file-form script as run_script's type check does, and an example
 * (`pve-code-mcp init`). The tsconfig mirrors the checker's options (src/script/typecheck.ts):
 * ES2022 and its library only, strict, no `@types` — the sandbox has no Node, DOM or timers —
 * with implicit-any complaints off, which the checker drops as style.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Where `types` writes the declarations, inside the scripts folder. */
export const TYPES_DIR = 'pve-types';

export const TSCONFIG = `${JSON.stringify(
  {
    compilerOptions: {
      target: 'ES2022',
      lib: ['ES2022'],
      module: 'ESNext',
      moduleResolution: 'Bundler',
      strict: true,
      noImplicitAny: false,
      noEmit: true,
      types: [],
      skipLibCheck: true,
    },
    include: ['*.ts', `${TYPES_DIR}/*.d.ts`],
  },
  null,
  2,
)}\n`;

export const EXAMPLE_NAME = 'snapshot-pool.ts';

export const EXAMPLE = `/**
 * Take a snapshot of every guest in a pool.
 *   pve-code-mcp run ${EXAMPLE_NAME} --arg pool=development --arg name=pre_upgrade --dry-run
 * Check it in an editor or with \`npx tsc --noEmit\` after \`pve-code-mcp types\`.
 */
export const args = {
  pool: { type: 'string', description: 'the pool whose guests get a snapshot' },
  name: { type: 'string', pattern: '[A-Za-z][A-Za-z0-9_-]{1,39}', description: 'the snapshot name' },
} as const;

export default (async (pve, { pool, name }) => {
  const guests = (await pve.get('/cluster/resources', { type: 'vm' })).filter((g) => g.pool === pool && !g.template);
  const started = guests.map((g) =>
    g.type === 'lxc'
      ? pve.post('/nodes/{node}/lxc/{vmid}/snapshot', { node: g.node, vmid: g.vmid, snapname: name })
      : pve.post('/nodes/{node}/qemu/{vmid}/snapshot', { node: g.node, vmid: g.vmid, snapname: name }),
  );
  const results = await pve.waitTasks(started);
  return results.map((r, i) => ({ vmid: guests[i]?.vmid, outcome: r.outcome, error: r.exitstatus ?? r.message }));
}) satisfies PveScript<typeof args>;
`;

/** Writes `text` unless the file exists (an operator's edits are never overwritten); true when written. */
export async function writeNew(path: string, text: string): Promise<boolean> {
  if (existsSync(path)) return false;
  await writeFile(path, text, { flag: 'wx' });
  return true;
}

export async function ensureDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
}

export function typesDir(folder: string): string {
  return join(folder, TYPES_DIR);
}
