import { describe, expect, it } from 'vitest';
import { abiMismatch, IsolatedVmMissingError, loadIsolatedVm } from './ivm.js';

// What Node's dlopen says when an addon was built by another Node (verbatim shape, Node 20-24).
const NODE_ERROR =
  "The module '/usr/lib/node_modules/pve-code-mcp/node_modules/isolated-vm/out/isolated_vm.node'\n" +
  'was compiled against a different Node.js version using\nNODE_MODULE_VERSION 115. This version of Node.js requires\n' +
  'NODE_MODULE_VERSION 127. Please try re-compiling or re-installing\nthe module (for instance, using `npm rebuild` or `npm install`).';

describe('isolated-vm built for another Node', () => {
  it('names both Node versions, the running binary and what to run', () => {
    const text = abiMismatch(NODE_ERROR, { version: 'v22.23.5', execPath: '/home/me/.nvm/versions/node/v22.23.5/bin/node' });
    expect(text).toBe(
      'the native module was built for Node 20 (ABI 115) but this is Node v22.23.5 (ABI 127) at /home/me/.nvm/versions/node/v22.23.5/bin/node; ' +
        'either start the server with the Node it was built for (put that node\'s absolute path in the MCP client\'s "command"), ' +
        'or rebuild it for this one: PATH=/home/me/.nvm/versions/node/v22.23.5/bin:$PATH npm rebuild isolated-vm isolated-vm-v6 (in the package\'s directory)',
    );
    expect(abiMismatch("Cannot find module 'isolated-vm'")).toBeUndefined();
  });

  it('the load error carries the whole explanation instead of the first line of dlopen\'s', () => {
    const load = (id: string): unknown => {
      if (id === 'isolated-vm') throw new Error(NODE_ERROR);
      throw new Error(`Cannot find module '${id}'\nRequire stack: …`);
    };
    let caught: unknown;
    try {
      loadIsolatedVm(load);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(IsolatedVmMissingError);
    expect((caught as Error).message).toMatch(/isolated-vm: the native module was built for Node 20 \(ABI 115\) but this is Node v\d+\.\d+\.\d+ \(ABI 127\) at \//);
    expect((caught as Error).message).toMatch(/isolated-vm-v6: Cannot find module 'isolated-vm-v6'/);
  });
});
