import { describe, expect, it } from 'vitest';
import { abiMismatch, IsolatedVmMissingError, loadIsolatedVm } from './ivm.js';

// What Node's dlopen says when an addon was built by another Node (verbatim shape, Node 20-24).
const NODE_ERROR =
  "The module '/usr/lib/node_modules/pve-code-mcp/node_modules/isolated-vm/out/isolated_vm.node'\n" +
  'was compiled against a different Node.js version using\nNODE_MODULE_VERSION 115. This version of Node.js requires\n' +
  'NODE_MODULE_VERSION 127. Please try re-compiling or re-installing\nthe module (for instance, using `npm rebuild` or `npm install`).';

describe('isolated-vm built for another Node', () => {
  it('names both Node versions, the running binary and what to run on that Node', () => {
    const on20 = { version: 'v20.20.2', execPath: '/home/me/.nvm/versions/node/v20.20.2/bin/node' };
    expect(abiMismatch(NODE_ERROR.replace('115', '127').replace('requires\nNODE_MODULE_VERSION 127', 'requires\nNODE_MODULE_VERSION 115'), 'isolated-vm', on20)).toBe(
      'the native module was built for Node 22 (ABI 127) but this is Node v20.20.2 (ABI 115) at /home/me/.nvm/versions/node/v20.20.2/bin/node; ' +
        'either start the server with the Node it was built for (put that node\'s absolute path in the MCP client\'s "command"), ' +
        "or rebuild it for this one: PATH=/home/me/.nvm/versions/node/v20.20.2/bin:$PATH npm rebuild isolated-vm (in pve-code-mcp's directory)",
    );
    // 5.0.x cannot be rebuilt on Node 24 (C++20 required): the advice is the reinstall that brings 6.x.
    const on24 = abiMismatch(NODE_ERROR, 'isolated-vm', { version: 'v24.1.0', execPath: '/usr/local/bin/node' }) as string;
    expect(on24).toContain('reinstall pve-code-mcp with this Node (PATH=/usr/local/bin:$PATH npm install -g pve-code-mcp)');
    expect(on24).not.toContain('npm rebuild');
    expect(abiMismatch(NODE_ERROR, 'isolated-vm-v6', { version: 'v22.23.5', execPath: '/usr/bin/node' })).toContain('npm rebuild isolated-vm-v6 (');
    expect(abiMismatch("Cannot find module 'isolated-vm'")).toBeUndefined();
  });

  it('without a C++ toolchain the cause comes first, the fix once, and no package that is not installed is named', () => {
    const load = (id: string): unknown => {
      if (id === 'isolated-vm') throw new Error("Cannot find module '/usr/lib/node_modules/pve-code-mcp/node_modules/isolated-vm/out/isolated_vm.node'");
      throw new Error(`Cannot find module '${id}'\nRequire stack: …`);
    };
    const message = (() => {
      try {
        loadIsolatedVm(load, '20.20.2');
      } catch (err) {
        return (err as Error).message;
      }
      return '';
    })();
    expect(message).toMatch(/^the sandbox cannot load isolated-vm: isolated-vm is installed without its native binary \(its build failed/);
    expect(message).toContain('install python3, make and a C++ compiler');
    expect(message).not.toContain('isolated-vm-v6');
    expect(message.match(/reinstall/g)).toHaveLength(1);
  });

  it("the load error carries the whole explanation instead of the first line of dlopen's", () => {
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
    expect((caught as Error).message).not.toContain('isolated-vm-v6');
  });
});
