/**
 * Records the file hops of a call: every entry into an exported function or class member of a
 * traced module from another file, in order (repeated entries from one file into the same file
 * count once: a helper called in a loop is one step). Used with `vi.mock(path, (orig) => traced(file, orig()))`
 * on each module of the path; docs/architecture.md counts hops this way.
 */

const ROOT_MARK = '/src/';

export interface HopRecorder {
  /** The files entered, in order, since `start`. */
  readonly hops: string[];
  start(): void;
  stop(): void;
  /** A boundary (⇄) in the trace, e.g. where the request leaves for PVE. */
  mark(label: string): void;
}

let recording = false;
const hops: string[] = [];

export const recorder: HopRecorder = {
  hops,
  start() {
    hops.length = 0;
    last = { caller: '', file: '' };
    recording = true;
  },
  stop() {
    recording = false;
  },
  mark(label) {
    if (recording) hops.push(label);
  },
};

/** The project file of the caller two frames up (the wrapper's caller), as `folder/file.ts`. */
function callerFile(): string | undefined {
  const line = new Error().stack?.split('\n')[4] ?? '';
  const at = line.lastIndexOf(ROOT_MARK);
  if (at < 0) return undefined;
  return line.slice(at + ROOT_MARK.length).replace(/:\d+:\d+\)?$/, '');
}

let last = { caller: '', file: '' };

function enter(file: string): void {
  if (!recording) return;
  const caller = callerFile() ?? '';
  if (caller === file) return;
  if (last.caller === caller && last.file === file && hops[hops.length - 1] === file) return;
  last = { caller, file };
  hops.push(file);
}

function wrapFunction<F extends (...args: never[]) => unknown>(file: string, fn: F): F {
  return function (this: unknown, ...args: never[]) {
    enter(file);
    const result = fn.apply(this, args);
    // A factory's product (a handler, a closure over the module) is code of the same file.
    return typeof result === 'function' && !isClass(result) ? wrapFunction(file, result as (...a: never[]) => unknown) : result;
  } as unknown as F;
}

function isClass(value: unknown): value is new (...args: never[]) => unknown {
  return typeof value === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(value));
}

/** Wraps the members of a class in place, so `instanceof` and identity still hold. */
function wrapClass(file: string, cls: { prototype: object }): void {
  const proto = cls.prototype as Record<string, unknown>;
  for (const name of Object.getOwnPropertyNames(proto)) {
    if (name === 'constructor') continue;
    const desc = Object.getOwnPropertyDescriptor(proto, name);
    if (!desc || desc.configurable === false) continue;
    if (typeof desc.value === 'function') Object.defineProperty(proto, name, { ...desc, value: wrapFunction(file, desc.value) });
    else if (desc.get) Object.defineProperty(proto, name, { ...desc, get: wrapFunction(file, desc.get) });
  }
}

const wrappedClasses = new WeakSet<object>();

/** The module's exports, each function recorded as an entry into `file` (a path under src/). */
export function traced<M extends Record<string, unknown>>(file: string, mod: M): M {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(mod)) {
    if (isClass(value)) {
      if (!wrappedClasses.has(value)) {
        wrapClass(file, value);
        wrappedClasses.add(value);
      }
      out[name] = value;
    } else if (typeof value === 'function') {
      out[name] = wrapFunction(file, value as (...args: never[]) => unknown);
    } else {
      out[name] = value;
    }
  }
  return out as M;
}
