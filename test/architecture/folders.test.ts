/**
 * The folders under src/ depend on one another in one direction: no folder-level import cycle,
 * and the core folders in the order docs/architecture.md states (each imports only folders before
 * it). Read from the sources themselves: static `from '…'`, side-effect `import '…'` and dynamic
 * `import('…')` of relative paths, in non-test files.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../support/source-files.js';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

/** Each folder may import only folders before it (docs/architecture.md, "Layers, by folder"). */
const ORDER = [
  'schema',
  'pve',
  'files',
  'process',
  'state',
  'permissions',
  'client',
  'search',
  'typegen',
  'script',
  'policy',
  'safety',
  'audit',
  'bridge',
  'sandbox',
  'run',
  'describe',
  'runbook',
  'app',
  'server',
  'cli',
];
/** Folders outside the order, each with the only folders it may import: the simulator is not the product. */
const APART: Record<string, readonly string[]> = { simulator: ['schema'] };

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.[^'"]+)\1/g;

interface Edge {
  from: string;
  to: string;
  /** `src/sandbox/engine.ts -> ../bridge/protocol.js`, one per importing file and specifier. */
  sites: string[];
}

/** The top folder of `src/` a path is in, or undefined for a file at the top of src/ or outside it. */
function folderOf(path: string): string | undefined {
  const parts = relative(SRC, path).split(sep);
  return parts.length > 1 && parts[0] !== '..' ? parts[0] : undefined;
}

function folderEdges(): Map<string, Edge> {
  const edges = new Map<string, Edge>();
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    if (!from) continue;
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const specifier = match[2]!;
      const to = folderOf(resolve(dirname(file), specifier));
      if (!to || to === from) continue;
      const key = `${from} -> ${to}`;
      const edge = edges.get(key) ?? { from, to, sites: [] };
      const site = `${relative(join(SRC, '..'), file)} -> ${specifier}`;
      if (!edge.sites.includes(site)) edge.sites.push(site);
      edges.set(key, edge);
    }
  }
  return edges;
}

/** Strongly connected components with more than one folder (Tarjan). */
function cycles(edges: Iterable<Edge>): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) {
    next.set(from, [...(next.get(from) ?? []), to]);
    if (!next.has(to)) next.set(to, []);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return out;
}

const describeEdges = (edges: Edge[]): string => edges.map((e) => `${e.from} -> ${e.to}\n${e.sites.map((s) => `    ${s}`).join('\n')}`).join('\n');

describe('folders of src/', () => {
  const edges = folderEdges();

  it('are read from the sources', () => {
    expect(edges.get('sandbox -> bridge')?.sites.length).toBeGreaterThan(0);
    expect(edges.get('app -> sandbox')?.sites.length).toBeGreaterThan(0);
  });

  it('import one another without a cycle', () => {
    const report = cycles(edges.values()).map((component) => {
      const inside = [...edges.values()].filter((e) => component.includes(e.from) && component.includes(e.to));
      return `cycle through ${component.join(', ')}:\n${describeEdges(inside)}`;
    });
    expect(report.join('\n\n'), 'folder-level import cycles').toBe('');
  });

  it(`import only folders before them in the order ${ORDER.join(', ')}`, () => {
    const backwards = [...edges.values()].filter((e) => ORDER.includes(e.from) && ORDER.includes(e.to) && ORDER.indexOf(e.to) > ORDER.indexOf(e.from));
    expect(describeEdges(backwards), 'imports against the folder order').toBe('');
  });

  it('apart from the order, import only the folders named for them', () => {
    const stray = [...edges.values()].filter((e) => Object.hasOwn(APART, e.from) && !APART[e.from]!.includes(e.to));
    expect(describeEdges(stray), 'imports of folders outside the order').toBe('');
  });

  it('are every one named, in the order or apart from it', () => {
    const folders = readdirSync(SRC).filter((name) => statSync(join(SRC, name)).isDirectory());
    const named = [...ORDER, ...Object.keys(APART)];
    expect(
      named.filter((f) => !folders.includes(f)),
      'named folders that no longer exist',
    ).toEqual([]);
    expect(
      folders.filter((f) => !named.includes(f)),
      'folders named nowhere',
    ).toEqual([]);
  });
});
