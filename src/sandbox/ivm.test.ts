import { describe, it, expect } from 'vitest';
import { isolatedVmOrder, IsolatedVmMissingError, loadIsolatedVm } from './ivm.js';

/** A `require` that knows only the given modules. */
function loader(modules: Record<string, unknown>): (id: string) => unknown {
  return (id) => {
    if (!(id in modules)) throw new Error(`Cannot find module '${id}'\nRequire stack:\n- worker.js`);
    return modules[id];
  };
}

describe('loadIsolatedVm', () => {
  const module5 = { Isolate: class {}, Callback: class {} };
  const module6 = { Isolate: class {}, Callback: class {} };

  const both = {
    'isolated-vm': module5,
    'isolated-vm/package.json': { name: 'isolated-vm', version: '5.0.4' },
    'isolated-vm-v6': module6,
    'isolated-vm-v6/package.json': { name: 'isolated-vm', version: '6.2.0' },
  };

  it('on Node 20 takes isolated-vm 5.0.x, and says which it took', () => {
    const loaded = loadIsolatedVm(loader(both), '20.20.2');
    expect(loaded.ivm).toBe(module5);
    expect(loaded.runtime).toBe('isolated-vm 5.0.4');
  });

  it('from Node 22 on prefers 6.x and its prebuilt binary, even where npm built 5.0.x too (an install from the tarball)', () => {
    expect(loadIsolatedVm(loader(both), '22.23.5').runtime).toBe('isolated-vm 6.2.0');
    expect(loadIsolatedVm(loader(both), '24.0.0').ivm).toBe(module6);
    expect(isolatedVmOrder('21.7.3')).toEqual(['isolated-vm', 'isolated-vm-v6']);
    expect(isolatedVmOrder('22.0.0')).toEqual(['isolated-vm-v6', 'isolated-vm']);
  });

  it('takes whichever is installed when only one is', () => {
    const only6 = loader({ 'isolated-vm-v6': module6, 'isolated-vm-v6/package.json': { name: 'isolated-vm', version: '6.2.0' } });
    expect(loadIsolatedVm(only6, '20.20.2').runtime).toBe('isolated-vm 6.2.0');
    const only5 = loader({ 'isolated-vm': module5, 'isolated-vm/package.json': { name: 'isolated-vm', version: '5.0.4' } });
    expect(loadIsolatedVm(only5, '22.23.5').runtime).toBe('isolated-vm 5.0.4');
  });

  it('says none is installed, and the fix for this Node, when none loads', () => {
    const attempt = (node: string) => () => loadIsolatedVm(loader({}), node);
    expect(attempt('20.20.2')).toThrow(IsolatedVmMissingError);
    expect(attempt('20.20.2')).toThrow(/none is installed for Node 20\.20\.2 .*C\+\+ compiler.*npm install -g pve-code-mcp/);
    expect(attempt('24.1.0')).toThrow(/none is installed for Node 24\.1\.0 .*isolated-vm 6\.x, which comes prebuilt/);
  });
});
