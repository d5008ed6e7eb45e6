/**
 * Structural truncation of JSON results: the output stays valid JSON of the same shape, the
 * largest arrays and strings shrink first, and a report says what was cut and how big it was.
 * Works without recursion, so results nested thousands of levels deep cannot overflow the stack.
 */

export interface TruncationCut {
  /** Where, as `$`, `$.data[3].name`... */
  path: string;
  kind: 'array' | 'string' | 'object';
  /** Items, characters or keys before the cut. */
  from: number;
  /** Items, characters or keys kept. */
  to: number;
}

export interface TruncationReport {
  /** Size of the full value as JSON (UTF-8 bytes). */
  originalBytes: number;
  /** Size of what was kept. */
  keptBytes: number;
  /** The cuts, largest first (at most `MAX_REPORTED_CUTS`). */
  cuts: TruncationCut[];
  /** Cuts not listed in `cuts`. */
  moreCuts: number;
}

const MAX_REPORTED_CUTS = 20;
const MAX_ROUNDS = 200;
/** Strings shorter than this are not worth cutting. */
const MIN_STRING = 32;
const STRING_MARK = '…';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Node {
  value: Json;
  path: string;
  size: number;
  parent: Node | undefined;
  /** Key in the parent object or index in the parent array. */
  key: string | number | undefined;
}

/**
 * Returns `value` itself when it fits; otherwise cuts it down **in place** (pass a copy to keep
 * the original) and reports what was cut. `knownBytes` skips measuring when the caller has the
 * JSON text already.
 */
export function truncateJson(value: unknown, budgetBytes: number, knownBytes?: number): { value: unknown; report?: TruncationReport } {
  const originalBytes = knownBytes ?? totalBytes(value as Json);
  if (originalBytes <= budgetBytes) return { value };
  const root: { value: Json } = { value: value as Json };
  const cuts: TruncationCut[] = [];
  let size = originalBytes;
  for (let round = 0; round < MAX_ROUNDS && size > budgetBytes; round++) {
    const target = largestShrinkable(sizes(root.value));
    if (!target) break;
    const cut = shrink(root, target, size - budgetBytes);
    if (!cut) break;
    cuts.push(cut);
    size = totalBytes(root.value);
  }
  if (size > budgetBytes) {
    // Nothing structural left to shrink (e.g. a huge number of tiny keys): keep a valid stub.
    cuts.push({ path: '$', kind: 'object', from: 1, to: 0 });
    root.value = null;
    size = 4;
  }
  const merged = mergeCuts(cuts).sort((a, b) => b.from - b.to - (a.from - a.to));
  return {
    value: root.value,
    report: {
      originalBytes,
      keptBytes: size,
      cuts: merged.slice(0, MAX_REPORTED_CUTS),
      moreCuts: Math.max(0, merged.length - MAX_REPORTED_CUTS),
    },
  };
}

/** JSON size of a value of any depth (JSON.stringify would overflow the stack on deep values). */
function totalBytes(value: Json): number {
  const all = sizes(value);
  return (all[all.length - 1] as Node).size;
}

export function jsonBytes(value: unknown): number {
  const text = JSON.stringify(value);
  return text === undefined ? 0 : Buffer.byteLength(text, 'utf8');
}

/**
 * The array, string or object with the largest JSON size that can still shrink. Containers with
 * a single entry come last: cutting them drops everything inside at once.
 */
function largestShrinkable(all: Node[]): Node | undefined {
  let best: Node | undefined;
  let bestWeight = -1;
  for (const node of all) {
    const v = node.value;
    const entries = Array.isArray(v) ? v.length : isObject(v) ? Object.keys(v).length : -1;
    const shrinkable = entries > 0 || (typeof v === 'string' && v.length > MIN_STRING + 1);
    if (!shrinkable) continue;
    // Arrays and strings go first; objects lose whole keys, so only when they dominate by far.
    let weight = isObject(v) ? node.size / 4 : node.size;
    if (entries === 1) weight /= 1_000_000;
    if (weight > bestWeight) {
      best = node;
      bestWeight = weight;
    }
  }
  return best;
}

/** Post-order sizes of every node (the root last), computed with an explicit stack. */
function sizes(root: Json): Node[] {
  const out: Node[] = [];
  const rootNode: Node = { value: root, path: '$', size: 0, parent: undefined, key: undefined };
  const stack: Array<{ node: Node; expanded: boolean; children: Node[] }> = [{ node: rootNode, expanded: false, children: [] }];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as { node: Node; expanded: boolean; children: Node[] };
    const v = frame.node.value;
    if (!frame.expanded && (Array.isArray(v) || isObject(v))) {
      frame.expanded = true;
      const entries: Array<[string | number, Json]> = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
      for (const [key, child] of entries) {
        const path = typeof key === 'number' ? `${frame.node.path}[${key}]` : `${frame.node.path}${propertyPath(key)}`;
        const node: Node = { value: child, path, size: 0, parent: frame.node, key };
        frame.children.push(node);
      }
      for (let i = frame.children.length - 1; i >= 0; i--) {
        stack.push({ node: frame.children[i] as Node, expanded: false, children: [] });
      }
      continue;
    }
    stack.pop();
    frame.node.size = ownSize(frame.node, frame.children);
    out.push(frame.node);
  }
  return out;
}

function ownSize(node: Node, children: Node[]): number {
  const v = node.value;
  if (Array.isArray(v)) return 2 + Math.max(0, children.length - 1) + children.reduce((s, c) => s + c.size, 0);
  if (isObject(v)) {
    return 2 + Math.max(0, children.length - 1) + children.reduce((s, c) => s + jsonBytes(String(c.key)) + 1 + c.size, 0);
  }
  return jsonBytes(v);
}

/** Cuts `node` by at least `excess` bytes where possible; returns what was done. */
function shrink(root: { value: Json }, node: Node, excess: number): TruncationCut | undefined {
  const v = node.value;
  let replacement: Json;
  let cut: TruncationCut;
  if (Array.isArray(v)) {
    let keep = v.length;
    let saved = 0;
    while (keep > 0 && saved < excess) {
      keep--;
      saved += totalBytes(v[keep] as Json) + (keep > 0 ? 1 : 0);
    }
    replacement = v.slice(0, keep);
    cut = { path: node.path, kind: 'array', from: v.length, to: keep };
  } else if (typeof v === 'string') {
    // At least MIN_STRING characters stay; the mark (3 UTF-8 bytes) says the text goes on.
    const kept = Math.max(MIN_STRING, Math.min(v.length - 2, v.length - excess - 3));
    replacement = v.slice(0, kept) + STRING_MARK;
    cut = { path: node.path, kind: 'string', from: v.length, to: kept };
  } else if (isObject(v)) {
    const keys = Object.keys(v);
    let keep = keys.length;
    let saved = 0;
    while (keep > 0 && saved < excess) {
      keep--;
      const key = keys[keep] as string;
      saved += jsonBytes(key) + 1 + totalBytes(v[key] as Json) + (keep > 0 ? 1 : 0);
    }
    const obj: { [key: string]: Json } = {};
    for (const key of keys.slice(0, keep)) defineData(obj, key, v[key] as Json);
    replacement = obj;
    cut = { path: node.path, kind: 'object', from: keys.length, to: keep };
  } else {
    return undefined;
  }
  if (cut.from === cut.to) return undefined;
  replaceNode(root, node, replacement);
  return cut;
}

function replaceNode(root: { value: Json }, node: Node, replacement: Json): void {
  const parent = node.parent;
  if (!parent) {
    root.value = replacement;
    return;
  }
  const pv = parent.value;
  if (Array.isArray(pv)) pv[node.key as number] = replacement;
  else if (isObject(pv)) defineData(pv, String(node.key), replacement);
}

/** Repeated cuts of the same place count once: from the original size to the final one. */
function mergeCuts(cuts: TruncationCut[]): TruncationCut[] {
  const byPath = new Map<string, TruncationCut>();
  for (const cut of cuts) {
    const seen = byPath.get(cut.path);
    if (seen && seen.kind === cut.kind) seen.to = cut.to;
    else byPath.set(cut.path, { ...cut });
  }
  return [...byPath.values()];
}

function propertyPath(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function isObject(v: Json): v is { [key: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Own data property even for `__proto__`: results are data, never prototypes. */
function defineData(target: { [key: string]: Json }, key: string, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
