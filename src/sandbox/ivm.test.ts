import { describe, it, expect } from 'vitest';
import { IsolatedVmMissingError, loadIsolatedVm } from './ivm.js';

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

  it('takes isolated-vm 5.0.x when it is installed, and says which it took', () => {
    const loaded = loadIsolatedVm(loader({ 'isolated-vm': module5, 'isolated-vm/package.json': { name: 'isolated-vm', version: '5.0.4' }, 'isolated-vm-v6': module6 }));
    expect(loaded.ivm).toBe(module5);
    expect(loaded.runtime).toBe('isolated-vm 5.0.4');
  });

  it('falls back to 6.x where 5.0.x could not be installed (Node 24)', () => {
    const loaded = loadIsolatedVm(loader({ 'isolated-vm-v6': module6, 'isolated-vm-v6/package.json': { name: 'isolated-vm', version: '6.2.0' } }));
    expect(loaded.ivm).toBe(module6);
    expect(loaded.runtime).toBe('isolated-vm 6.2.0');
  });

  it('names every failure and the fix when none loads', () => {
    const attempt = () => loadIsolatedVm(loader({}));
    expect(attempt).toThrow(IsolatedVmMissingError);
    expect(attempt).toThrow(/isolated-vm: Cannot find module 'isolated-vm'; isolated-vm-v6: Cannot find module 'isolated-vm-v6'\).*npm ci/);
  });
});
