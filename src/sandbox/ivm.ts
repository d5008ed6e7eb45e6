/**
 * isolated-vm, as the worker loads and uses it. Two majors are optional dependencies because no
 * single one covers every supported Node: 5.0.x (`isolated-vm`) builds for Node 20 and 22 but not
 * for Node 24, whose V8 13.6 headers dropped APIs it compiles against; 6.x (`isolated-vm-v6`) needs
 * Node >= 22 and ships prebuilt binaries for 22 and 24. A checkout's `npm ci` installs exactly one:
 * 6.x is skipped on Node 20 by its own engines, 5.0.x on Node >= 22 by the engines the lockfile
 * records for it (`>=18.0.0 <22`, narrower than its published `>=18.0.0`, so nothing compiles
 * there; docs/sandbox.md). An install from the tarball or the registry reads 5.0.x's engines from
 * the registry and gets both on Node 22, so the worker prefers 6.x from Node 22 on and 5.0.x before.
 * The part of the API the worker uses is typed here, so the build does not depend on which one is
 * present.
 */

export interface IvmReference {
  applySync(receiver: undefined, args: unknown[], options: { timeout: number }): unknown;
}

export interface IvmContext {
  evalClosureSync(code: string, args: unknown[], options: { filename: string; timeout: number; result: { reference: true } }): unknown;
}

export interface IvmScript {
  runSync(context: IvmContext, options: { timeout: number }): unknown;
}

export interface IvmIsolate {
  /** CPU time the isolate has used, in nanoseconds. */
  readonly cpuTime: bigint;
  readonly isDisposed: boolean;
  createContextSync(): IvmContext;
  compileScriptSync(code: string, options: { filename: string }): IvmScript;
  dispose(): void;
}

export interface IsolatedVm {
  Isolate: new (options: { memoryLimit: number; onCatastrophicError?: (message: string) => void }) => IvmIsolate;
  /** A host function the isolate can call; `ignored` calls return nothing and do not wait. */
  Callback: new (
    fn: (...args: unknown[]) => unknown,
    options?: { ignored?: boolean },
  ) => object;
}

/** The isolated-vm packages that may be installed: the 5.0.x line, and 6.x under an alias. */
export const ISOLATED_VM_PACKAGES = ['isolated-vm', 'isolated-vm-v6'] as const;
export type IsolatedVmPackage = (typeof ISOLATED_VM_PACKAGES)[number];

/**
 * The order to try them in on a Node (`process.versions.node`): 6.x and its prebuilt binary first
 * from Node 22 on (where npm may have built 5.0.x too), 5.0.x first before (6.x cannot install).
 */
export function isolatedVmOrder(nodeVersion: string = process.versions.node): readonly IsolatedVmPackage[] {
  return Number(nodeVersion.split('.')[0]) >= 22 ? ['isolated-vm-v6', 'isolated-vm'] : ['isolated-vm', 'isolated-vm-v6'];
}

export interface LoadedIsolatedVm {
  ivm: IsolatedVm;
  /** `isolated-vm 5.0.4`: the package's own name and version, as its package.json says. */
  runtime: string;
}

/** How to put a working isolated-vm in place on this Node (the one fix, named once). */
function reinstallAdvice(major: number): string {
  return major >= 22
    ? `reinstall pve-code-mcp with this Node (npm install -g pve-code-mcp, or npm ci in a checkout): on Node ${major} the sandbox uses isolated-vm 6.x, which comes prebuilt`
    : `install python3, make and a C++ compiler (Debian/Ubuntu: apt install python3 make g++), then reinstall pve-code-mcp with this Node (npm install -g pve-code-mcp, or npm ci in a checkout): on Node ${major} isolated-vm 5.0.x is built from source unless a prebuilt binary downloads`;
}

function nodeMajor(version: string): number {
  return Number(version.replace(/^v/, '').split('.')[0]);
}

export class IsolatedVmMissingError extends Error {
  /** `reasons`: why each installed isolated-vm failed, cause first; empty when none is installed. */
  constructor(reasons: string[], nodeVersion: string = process.versions.node) {
    const major = nodeMajor(nodeVersion);
    super(
      reasons.length > 0
        ? `the sandbox cannot load isolated-vm: ${reasons.join('; ')}`
        : `the sandbox cannot load isolated-vm: none is installed for Node ${nodeVersion} (its install failed or was skipped); ${reinstallAdvice(major)}`,
    );
    this.name = 'IsolatedVmMissingError';
  }
}

/** Loads the first isolated-vm that works here, with `load` resolving from the worker's location. */
export function loadIsolatedVm(load: (id: string) => unknown, nodeVersion: string = process.versions.node): LoadedIsolatedVm {
  const reasons: string[] = [];
  for (const name of isolatedVmOrder(nodeVersion)) {
    try {
      const ivm = load(name) as IsolatedVm;
      const manifest = load(`${name}/package.json`) as { name?: unknown; version?: unknown };
      return { ivm, runtime: `${String(manifest.name)} ${String(manifest.version)}` };
    } catch (err) {
      const reason = failureReason(name, err instanceof Error ? err.message : String(err), nodeVersion);
      if (reason) reasons.push(reason);
    }
  }
  throw new IsolatedVmMissingError(reasons, nodeVersion);
}

/**
 * Why `name` did not load, cause first and the fix once; undefined when it is simply not installed
 * (npm installs one of the two on each Node, so the other's absence is no failure to report).
 */
function failureReason(name: IsolatedVmPackage, message: string, nodeVersion: string): string | undefined {
  const missing = /Cannot find module '([^']+)'/.exec(message)?.[1];
  if (missing === name || missing === `${name}/package.json`) return undefined;
  const abi = abiMismatch(message, name, { version: `v${nodeVersion.replace(/^v/, '')}`, execPath: process.execPath });
  if (abi) return `${name}: ${abi}`;
  if (/No native build was found|isolated_vm\.node|\.node'/.test(message)) {
    return `${name} is installed without its native binary (its build failed when it was installed, most often for want of a C++ toolchain); ${reinstallAdvice(nodeMajor(nodeVersion))}`;
  }
  return `${name}: ${message.split('\n')[0]}; ${reinstallAdvice(nodeMajor(nodeVersion))}`;
}

/** Node major of each native-module ABI (`NODE_MODULE_VERSION`) a supported or nearby Node uses. */
const NODE_OF_ABI: Readonly<Record<number, string>> = { 108: '18', 115: '20', 120: '21', 127: '22', 131: '23', 137: '24', 141: '25' };

/**
 * The addon `pkg` was built by another Node than the one running (an MCP client that starts its
 * own `node`, nvm): both versions, and what to run on this Node. Rebuilding is advised only where
 * it works: 5.0.x does not build on Node 24 ("C++20 or later required"), and from Node 22 on
 * 6.x serves with its prebuilt binary. Undefined when the message is not an ABI mismatch.
 */
export function abiMismatch(message: string, pkg: IsolatedVmPackage = 'isolated-vm', runtime: { version: string; execPath: string } = process): string | undefined {
  const m = /NODE_MODULE_VERSION (\d+)[\s\S]*?requires\s+NODE_MODULE_VERSION (\d+)/.exec(message);
  if (!m) return undefined;
  const built = Number(m[1]);
  const running = Number(m[2]);
  const builtNode = NODE_OF_ABI[built] ? `Node ${NODE_OF_ABI[built]}` : 'another Node';
  const major = nodeMajor(runtime.version);
  const bin = runtime.execPath.replace(/\/node$/, '');
  const fix =
    pkg === 'isolated-vm' && major >= 22
      ? `or reinstall pve-code-mcp with this Node (PATH=${bin}:$PATH npm install -g pve-code-mcp): on Node ${major} it uses isolated-vm 6.x, which comes prebuilt`
      : `or rebuild it for this one: PATH=${bin}:$PATH npm rebuild ${pkg} (in pve-code-mcp's directory)`;
  return (
    `the native module was built for ${builtNode} (ABI ${built}) but this is Node ${runtime.version} (ABI ${running}) at ${runtime.execPath}; ` +
    `either start the server with the Node it was built for (put that node's absolute path in the MCP client's "command"), ${fix}`
  );
}
