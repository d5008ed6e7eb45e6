/**
 * `search_api`: find the operations that do what an operator describes, as compact one-line hits.
 *
 * This module is the public face: it validates the request, resolves operations named outright
 * (`POST /nodes/{node}/qemu`), applies the method / risk / path-prefix filters and turns ranked
 * operations into hits. Query analysis lives in query.ts, relevance in ranker.ts.
 */
import { z } from 'zod';
import { HTTP_METHODS, RISK_CLASSES, splitPath, type ApiModel, type HttpMethod, type Operation, type RiskClass } from '../schema/model.js';
import { SearchQueryError } from './errors.js';
import { namedCommands } from './cli-commands.js';
import { helperOperations } from './helpers.js';
import type { SearchHit } from './hit.js';
import { parseQuery } from './query.js';
import { Ranker } from './ranker.js';
import { Speller, searchVocabulary } from './spelling.js';
import { compileSynonyms, type CompiledSynonym } from './synonym-compile.js';

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 50;
export const MAX_QUERY_CHARS = 500;

export const SearchOptionsSchema = z
  .object({
    limit: z.number().int().min(1).max(MAX_LIMIT).optional(),
    method: z.enum(HTTP_METHODS).optional(),
    risk: z.enum(RISK_CLASSES).optional(),
    pathPrefix: z.string().max(MAX_QUERY_CHARS).optional(),
    where: z.custom<(op: Operation) => boolean>((v) => typeof v === 'function', 'a function of the operation').optional(),
  })
  .strict();

export interface SearchOptions {
  /** Number of hits to return (1..50, default 10). */
  limit?: number;
  method?: HttpMethod;
  risk?: RiskClass;
  /** Only operations at or below this path; template (`/nodes/{node}/qemu`) or concrete (`/nodes/pve1`). */
  pathPrefix?: string;
  /**
   * Only operations this accepts (the server's verdict filter). Like a path prefix, it lets an
   * empty query list what it keeps.
   */
  where?: (op: Operation) => boolean;
}

/** The vocabulary is fixed, so it is compiled once per process. */
const SYNONYMS: ReadonlyMap<string, CompiledSynonym[]> = compileSynonyms();

/** A request that is just an operation key or a path: `POST /nodes/{node}/qemu`, `/cluster/resources`. */
const EXPLICIT_PATH = /^\s*(?:(get|post|put|delete)\s+)?(\/\S*)\s*$/i;

export class ApiSearch {
  private readonly operations: readonly Operation[];
  private readonly ranker: Ranker;
  private readonly ids = new Map<Operation, number>();
  private readonly depths: number[];
  private readonly speller: Speller;

  constructor(private readonly model: ApiModel) {
    this.operations = model.operations;
    this.operations.forEach((op, id) => this.ids.set(op, id));
    this.depths = this.operations.map((op) => splitPath(op.path).length);
    this.ranker = new Ranker(this.operations);
    this.speller = new Speller(searchVocabulary(this.ranker.indexedWords));
  }

  /**
   * Operations matching a free-text request, best first. Throws SearchQueryError for an empty,
   * oversized or wordless query and for invalid options; returns [] when nothing matches.
   */
  search(query: string, opts: SearchOptions = {}): SearchHit[] {
    if (typeof query !== 'string') throw new SearchQueryError('search query must be a string describing the task, e.g. "list vms on a node"');
    if (query.length > MAX_QUERY_CHARS) {
      throw new SearchQueryError(`search query is ${query.length} characters; keep it under ${MAX_QUERY_CHARS} (a few words describing the task)`);
    }
    const options = parseOptions(opts);
    const limit = options.limit ?? DEFAULT_LIMIT;
    const keep = this.filterFor(options);

    const explicit = this.explicitOperations(query).filter((id) => keep(id));
    const parsed = parseQuery(
      this.speller.correct(query),
      SYNONYMS,
      (term) => this.ranker.isIdentifier(term),
      (a, b) => this.ranker.isPathPair(a, b),
      (term) => this.ranker.isItemValue(term),
    );
    if (parsed.concepts.length === 0 && explicit.length === 0) {
      if (options.pathPrefix !== undefined || options.where !== undefined) return this.browse(keep, limit);
      throw new SearchQueryError(
        query.trim() === ''
          ? 'search query is empty: describe the task in a few words, e.g. "take a snapshot of a vm"'
          : `search query "${query.trim().slice(0, 60)}" has no searchable words: name the object and action, e.g. "list storage content"`,
      );
    }

    const scores = this.ranker.rank(parsed);
    const ranked = [...scores.entries()].filter(([id]) => keep(id) && !explicit.includes(id)).sort((a, b) => b[1] - a[1] || this.tieBreak(a[0], b[0]));
    const top = ranked[0]?.[1] ?? 1;
    const hits = [...explicit.map((id): [number, number] => [id, top + 1]), ...ranked];
    return hits.slice(0, limit).map(([id, score]) => this.hit(id, score));
  }

  /**
   * Operations named outright by key or path (concrete paths resolve through the model), by an SDK
   * helper that reads them, or by a node command that calls them (`qm set`, `pvesh get /…`).
   */
  private explicitOperations(query: string): number[] {
    const commanded = namedCommands(query).flatMap(({ keys, pvesh }) => (pvesh ? [this.model.matchPath(pvesh.method, pvesh.path)?.operation?.key] : keys));
    const helped = [...new Set([...commanded, ...helperOperations(query)])].flatMap((key) => {
      const id = this.operations.findIndex((op) => op.key === key);
      return id === -1 ? [] : [id];
    });
    const m = EXPLICIT_PATH.exec(query);
    if (!m?.[2]) return helped;
    const methods = m[1] ? [m[1].toUpperCase() as HttpMethod] : HTTP_METHODS;
    const ids: number[] = [];
    for (const method of methods) {
      const match = this.model.matchPath(method, m[2]);
      if (!match?.operation) continue;
      const id = this.ids.get(match.operation);
      if (id !== undefined) ids.push(id);
    }
    return ids;
  }

  /** With a path prefix and no words, list what lives there, shallowest first. */
  private browse(keep: (id: number) => boolean, limit: number): SearchHit[] {
    const ids = this.operations.map((_, id) => id).filter(keep);
    ids.sort((a, b) => this.tieBreak(a, b));
    return ids.slice(0, limit).map((id) => this.hit(id, 0));
  }

  private tieBreak(a: number, b: number): number {
    const keyA = (this.operations[a] as Operation).key;
    const keyB = (this.operations[b] as Operation).key;
    return (this.depths[a] as number) - (this.depths[b] as number) || (keyA < keyB ? -1 : keyA > keyB ? 1 : 0);
  }

  private filterFor(options: SearchOptions): (id: number) => boolean {
    const prefix = options.pathPrefix === undefined ? undefined : splitPath(options.pathPrefix.trim());
    return (id) => {
      const op = this.operations[id] as Operation;
      if (options.method && op.method !== options.method) return false;
      if (options.risk && op.risk !== options.risk) return false;
      if (options.where && !options.where(op)) return false;
      return prefix === undefined || underPrefix(splitPath(op.path), prefix);
    };
  }

  private hit(id: number, score: number): SearchHit {
    const op = this.operations[id] as Operation;
    return {
      key: op.key,
      method: op.method,
      path: op.path,
      summary: op.summary || op.name || '',
      risk: op.risk,
      score: Math.round(score * 1000) / 1000,
    };
  }
}

function parseOptions(opts: unknown): SearchOptions {
  const parsed = SearchOptionsSchema.safeParse(opts ?? {});
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'options'}: ${i.message}`).join('; ');
  throw new SearchQueryError(`invalid search options (${issues}); allowed: limit 1..${MAX_LIMIT}, method ${HTTP_METHODS.join('|')}, risk ${RISK_CLASSES.join('|')}, pathPrefix, where`);
}

/** Segment-wise prefix test; a template parameter matches any concrete value and any parameter. */
function underPrefix(template: string[], prefix: string[]): boolean {
  if (prefix.length > template.length) return false;
  return prefix.every((p, i) => {
    const t = template[i] as string;
    return t === p || t.startsWith('{');
  });
}
