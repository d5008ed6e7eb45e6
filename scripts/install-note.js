// preinstall: says why the install is about to take a while, before it does. npm runs every
// package's preinstall before any install script, so this runs before isolated-vm 5.0.x is built;
// but npm hides a dependency's script output unless --foreground-scripts, so the note goes to the
// terminal itself (/dev/tty), or to stderr where there is none (CI logs, a checkout's foreground
// scripts). Silent when isolated-vm 5.0.x is not installed (a checkout on Node >= 22) or is built.
import { closeSync, existsSync, openSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
let dir;
try {
  dir = dirname(require.resolve('isolated-vm/package.json'));
} catch {
  process.exit(0);
}
if (existsSync(join(dir, 'out', 'isolated_vm.node')) || existsSync(join(dir, 'build', 'Release', 'isolated_vm.node'))) process.exit(0);
const { version } = require('isolated-vm/package.json');
const node = process.versions.node;
const note =
  Number(node.split('.')[0]) < 22
    ? `pve-code-mcp: Node ${node} needs isolated-vm ${version} for the sandbox: npm now downloads a prebuilt binary if one fits, ` +
      'otherwise compiles it from source (python3, make and a C++ compiler; about 1-2 minutes, shown only with --foreground-scripts). ' +
      'On Node 22 and 24 a prebuilt isolated-vm 6.x serves and nothing compiles.'
    : `pve-code-mcp: npm also builds isolated-vm ${version}, which Node ${node} does not need (npm reads its engines from the registry): ` +
      'about 1-2 minutes on Node 22, a quick failure on Node 24, shown only with --foreground-scripts; either way the sandbox uses ' +
      "isolated-vm 6.x's prebuilt binary on this Node.";
try {
  const tty = openSync('/dev/tty', 'w');
  writeSync(tty, `${note}\n`);
  closeSync(tty);
} catch {
  process.stderr.write(`${note}\n`);
}
