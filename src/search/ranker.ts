/**
 * Relevance ranking over the operation index.
 *
 * minisearch scores each query term against the operation fields (BM25 with field boosts, prefix
 * and typo tolerance). The ranker groups terms into the request's concepts, scales each concept to
 * its best match and by its rarity, multiplies by how completely an operation covers the request,
 * and applies priors: the intended method, no unmentioned path segments, collections for "list"
 * requests, and the operation's own prior (shallow, not a directory index, not deprecated).
 */
import MiniSearch from 'minisearch';
import type { HttpMethod, Operation } from '../schema/model.js';
import { analyze, indexTerm, wordCountingTokenizer } from './analyzer.js';
import {
  FIELD_BOOST,
  INDEXED_FIELDS,
  directoryIndexes,
  itemSegmentTerms,
  shownByUpdates,
  STRONG_FIELDS,
  indexedOperation,
  literalSegmentTerms,
  operationPrior,
  type IndexedOperation,
} from './document.js';
import type { Concept, ParsedQuery } from './query.js';
import { asksForListing, asksToSet } from './request-kind.js';
import { verbRule } from './verbs.js';
import { guestKindOps, identifierTerms, pathPairs } from './schema-terms.js';
import { GUEST_ARGUMENT_COVERAGE, GUEST_ARGUMENT_SCORE, guestArgumentOps, isNamedGuest, NODE_READ_FOR_ONE_GUEST, nodeOwnReadOps } from './arguments.js';

/** A concept found only in parameter or return fields counts this much towards coverage. */
const WEAK_COVERAGE = 0.35;
/**
 * A question about many things ("which guests are locked", "the node with the most free memory") is
 * answered by a listing whose items carry that property: for such a request a GET whose returned
 * properties name the concept covers it this much.
 */
const RETURNED_PROPERTY_COVERAGE = 0.8;
/** Each literal path segment the request does not mention costs this much (1 / (1 + k·n)). */
const UNMENTIONED_SEGMENT_PENALTY = 0.25;
/** Each word of a compound last segment the request does not mention counts as this much of an unmentioned segment. */
const COMPOUND_WORD_UNMENTIONED = 1;
/** Query terms weaker than this do not count as mentioning a path segment. */
const MENTION_MIN_WEIGHT = 0.3;
/** Factor for reading one item when the request asks for a list ("list ha resources"). */
const ITEM_FOR_COLLECTION = 0.7;
/** Factor for the collection of a kind when the request names one item of it ("the PVEAuditor role", "group admins"). */
const COLLECTION_FOR_ITEM = 0.7;
/** Factor for an operation on one item of the kind the request names an item of ("the 2fa entries of user bob@pve" → `…/tfa/{userid}`). */
const NAMED_ITEM_ARGUMENT = 1.15;
/** Factor for a directory index (child links only) asked a question: it holds no answer ("what disks does pve1 have"). */
const DIRECTORY_INDEX_FOR_QUESTION = 0.6;
/**
 * Factor for a read about a kind of guest but no one guest (the VM list, the node's QEMU CPU
 * models) when the request names one guest ("is vm 101 running", "how many cores does vm 101 have").
 */
const KIND_READ_FOR_ONE_GUEST = 0.45;
/** Factor for a write on a kind of guest (creating a VM) when the request names an existing guest by ID ("make container 200 start at boot"). */
const KIND_WRITE_FOR_NAMED_GUEST = 0.4;
/**
 * Factor for an every-guest twin (`POST /nodes/{node}/stopall`, the cluster's bulk actions: a POST
 * taking a list of guests, `vms`, with no `{vmid}` in its path) when the request names one guest.
 */
const EVERY_GUEST_FOR_ONE_GUEST = 0.5;
/**
 * Factor for creating or changing a scheduled job (a write taking a `schedule`: backup and
 * replication jobs) when the request says nothing of when: "back up vm 101" means now.
 */
const JOB_FOR_ONE_OFF = 0.6;
/** Factor for an operation on a guest or a kind of guest when the guest named joins or leaves something else ("add vm 130 to the dev pool"). */
const GUEST_OP_FOR_MEMBER = 0.5;
/** Factor for creating a thing of the kind the request adds something to ("add 10.0.0.5 to the blocklist ipset"): it exists. */
const CREATE_FOR_RECEIVER = 0.6;
/** Factor for an every-guest twin when the request names a node, no guest and not many things ("shut down the node"). */
const EVERY_GUEST_FOR_NODE = 0.7;
/** Factor for a guest's configuration write when the request adds something to a guest: its parts are options there. */
const PART_OF_RECEIVER = 2;
/** Factor for a cluster-wide listing of guests when the request is an inventory question ("which guests are stopped"). */
const INVENTORY_LISTING = 1.5;
/** Factor for such a listing when the request asks about the guests of a node it names ("how many containers are on this node"). */
const CLUSTER_LIST_FOR_NODE_GUESTS = 0.7;
/** Factor for an operation on one guest (`{vmid}` in its path) when the request names a node and no guest. */
const GUEST_OP_FOR_NODE = 0.4;
/**
 * Each concept's scores are scaled to its best match (0..1) so a concept with many strong synonyms
 * cannot drown the others; the root compresses the gap between a good and the best match.
 */
const CONCEPT_SCORE_EXPONENT = 0.35;
/**
 * Rare concepts say more about the wanted operation than common ones ("pending" vs "vm"): a concept's
 * relevance is scaled by 1 + log(N/df)/log(N), where df counts the operations that cover it well.
 */
const WELL_COVERED = 0.5;
/** Weight factor of a concept no operation covers well: incidental to the request. */
const INCIDENTAL_WEIGHT = 0.5;
/** How much a concept's weaker synonyms add on top of its best one. */
const SYNONYM_SPILL = 0.25;
/**
 * Factor for an operation whose last literal segment (`…/disks/lvmthin`) the request's nouns name: it is about what was
 * asked. Not for one-segment paths (`/nodes`: any request about a node names it) nor ones the request's shape ranks down.
 */
const NAMED_HEAD = 1.15;
/** How much of its (already lowered) weight a concept only the context names counts towards coverage. */
const CONTEXT_COVERAGE = 0.5;
/** Exponent on the share of request concepts an operation covers: partial matches fall off fast. */
const COVERAGE_EXPONENT = 2;
/** Factor for operations whose method contradicts the verb ("delete …" → a GET) or the question. */
const METHOD_MISMATCH = 0.35;
/** Factor for a write asked a question about many things ("which templates do we have"): the list answers, not an act. */
const QUESTION_ABOUT_MANY_WRITE = 0.1;
/**
 * Factor for the second method a verb accepts: "change" means PUT on most PVE paths but POST on a
 * few (`POST …/qemu/{vmid}/config`), and POST is also how things are created.
 */
const SECONDARY_METHOD = 0.8;
/** Factor for operations whose method differs from the one an action word suggests ("upload" → POST). */
const HINT_MISMATCH = 0.7;
/** Without a verb most requests are questions: writes rank lower. */
const NO_INTENT_WRITE = 0.6;
/** Without a verb, a request for many things ("two factor authentication entries") asks to see them: writes rank lower still. */
const NO_INTENT_COLLECTION_WRITE = 0.45;
/** Terms this long also match as prefixes ("snap" → snapshot). */
const PREFIX_MIN_LENGTH = 4;
/** Terms this long also match with one typo per five characters. */
const FUZZY_MIN_LENGTH = 6;
const FUZZY_DISTANCE = 0.2;
/** Prefix and typo matches count less than exact ones. */
const LOOSE_MATCH_WEIGHTS = { prefix: 0.4, fuzzy: 0.3 };
const TERM_CACHE_LIMIT = 4096;

export class Ranker {
  private readonly index: MiniSearch<IndexedOperation>;
  private readonly priors: number[];
  private readonly segments: string[][][];
  private readonly endsWithParam: boolean[];
  /** Per operation: the terms of each literal segment a path parameter follows (`storage` in `…/storage/{storage}/status`). */
  private readonly itemSegments: string[][];
  /** Operations on a kind of guest but no one guest: a segment that elsewhere precedes `{vmid}` (qemu, lxc), no `{vmid}`. */
  private readonly guestKindOps: boolean[];
  private readonly everyGuestOps: boolean[];
  private readonly oneGuestOps: boolean[];
  private readonly jobWrites: boolean[];
  private readonly directoryIndexes: boolean[];
  private readonly isRead: boolean[];
  /** Cluster-wide listings whose items are guests (`GET /cluster/resources`): what an inventory question reads. */
  private readonly clusterGuestLists: boolean[];
  private readonly guestConfigs: boolean[];
  private readonly guestArguments: boolean[];
  private readonly nodeOwnReads: boolean[];
  private readonly termCache = new Map<string, ReadonlyMap<number, TermMatch>>();
  private readonly identifiers: ReadonlySet<string>;
  private readonly itemValues: ReadonlySet<string>;
  private readonly pathPairs: ReadonlySet<string>;
  /** The words of the indexed text with how often it uses each: the speller's vocabulary (spelling.ts). */
  readonly indexedWords: ReadonlyMap<string, number>;

  constructor(private readonly operations: readonly Operation[]) {
    const words = wordCountingTokenizer();
    this.index = new MiniSearch<IndexedOperation>({ idField: 'id', fields: INDEXED_FIELDS, storeFields: [], tokenize: words.tokenize, processTerm: indexTerm });
    const updates = shownByUpdates(operations);
    this.index.addAll(operations.map((op, id) => indexedOperation(op, id, updates[id])));
    this.indexedWords = words.done();
    this.directoryIndexes = directoryIndexes(operations);
    this.priors = operations.map((op, id) => operationPrior(op, this.directoryIndexes[id] as boolean));
    this.segments = operations.map(literalSegmentTerms);
    this.endsWithParam = operations.map((op) => op.path.endsWith('}'));
    this.itemSegments = operations.map(itemSegmentTerms);
    this.guestKindOps = guestKindOps(operations);
    this.everyGuestOps = operations.map((op) => op.method === 'POST' && !op.path.includes('{vmid}') && op.params.some((p) => !p.inPath && p.name === 'vms'));
    this.oneGuestOps = operations.map((op) => op.path.includes('{vmid}'));
    this.jobWrites = operations.map((op) => op.method !== 'GET' && op.params.some((p) => !p.inPath && p.name === 'schedule'));
    this.isRead = operations.map((op) => op.method === 'GET');
    this.clusterGuestLists = operations.map((op) => op.method === 'GET' && !op.path.includes('{') && op.returns.items?.properties?.['vmid'] !== undefined);
    this.guestConfigs = operations.map((op) => op.path.endsWith('{vmid}/config'));
    this.guestArguments = guestArgumentOps(operations);
    this.nodeOwnReads = nodeOwnReadOps(operations, this.guestKindOps, this.guestArguments);
    this.identifiers = identifierTerms(operations);
    this.itemValues = new Set(operations.flatMap((op, id) => analyze(indexedOperation(op, id).items)));
    this.pathPairs = pathPairs(operations);
  }

  /** Whether two terms are adjacent literal segments of some path (`acme` `account` in `/cluster/acme/account`). */
  isPathPair(first: string, second: string): boolean {
    return this.pathPairs.has(`${first} ${second}`);
  }

  /** Whether a term is a value a path parameter enumerates (a service name, a Ceph flag). */
  isItemValue(term: string): boolean {
    return this.itemValues.has(term);
  }

  /** Whether a term is one of the schema's identifiers (path segment, handler, parameter or returned property name). */
  isIdentifier(term: string): boolean {
    return this.identifiers.has(term);
  }

  /** Relevance of every operation that matches the request at all (operation index → score). */
  rank(query: ParsedQuery): Map<number, number> {
    const perConcept: Array<{ concept: Concept; matches: Map<number, ConceptMatch> }> = [];
    const listing = asksForListing(query);
    const setting = asksToSet(query);
    for (const concept of query.concepts) {
      const matches = this.conceptMatches(concept, listing, setting);
      if (matches.size === 0) continue;
      // A word no operation is about (only descriptions mention it: "browser", "consistently") is
      // incidental to the request: it weighs less than the words that name operations.
      const central = concept.verb || [...matches.values()].some((m) => m.coverage >= WELL_COVERED);
      perConcept.push({ concept: central ? concept : { ...concept, weight: concept.weight * INCIDENTAL_WEIGHT }, matches });
    }
    // What only the context names counts towards relevance, not towards how much of the request an
    // operation covers: the ask decides that ("the security team wants ssh restricted. show me the rules").
    // Unless the ask names nothing of its own ("pve2 clock shows UTC, we want CET").
    const asksOwn = perConcept.some((c) => !c.concept.verb && c.concept.context === undefined);
    const coverageWeight = (c: Concept) => (asksOwn && c.context === 'weighed' ? c.weight * CONTEXT_COVERAGE : c.weight);
    const totalWeight = perConcept.reduce((sum, c) => sum + coverageWeight(c.concept), 0);
    const relevance = new Map<number, number>();
    const covered = new Map<number, number>();
    const n = this.operations.length;
    for (const { concept, matches } of perConcept) {
      let top = 0;
      let df = 0;
      for (const m of matches.values()) {
        top = Math.max(top, m.score);
        if (m.coverage >= WELL_COVERED) df += 1;
      }
      const info = concept.verb ? 1 : 1 + Math.log(n / Math.max(1, df)) / Math.log(n);
      for (const [id, match] of matches) {
        relevance.set(id, (relevance.get(id) ?? 0) + info * concept.weight * (match.score / top) ** CONCEPT_SCORE_EXPONENT);
        covered.set(id, (covered.get(id) ?? 0) + coverageWeight(concept) * match.coverage);
      }
      if (isNamedGuest(concept, query)) this.creditGuestArguments(matches, info * concept.weight, concept.weight, relevance, covered);
    }
    const mentioned = new Set<string>();
    const nouns = new Set<string>();
    for (const { concept } of perConcept) {
      for (const [term, weight] of concept.terms) if (weight >= MENTION_MIN_WEIGHT) for (const set of concept.verb ? [mentioned] : [mentioned, nouns]) set.add(term);
    }
    const final = new Map<number, number>();
    for (const [id, rel] of relevance) {
      const op = this.operations[id] as Operation;
      const coverage = (covered.get(id) ?? 0) / totalWeight;
      const method = this.methodFactor(op.method, query);
      const segments = this.segments[id] as string[][];
      // The words of a compound last segment (`move_disk`, `suspend-disk`) each name part of the act;
      // a generic verb among them (`get-osinfo`) names none.
      const tail = segments.at(-1) ?? [];
      const partly = tail.length > 1 && tail.some((t) => mentioned.has(t)) ? tail.filter((t) => !mentioned.has(t) && verbRule(t, t) === undefined).length * COMPOUND_WORD_UNMENTIONED : 0;
      const unmentioned = segments.filter((seg) => !seg.some((t) => mentioned.has(t))).length + partly;
      const specificity = 1 / (1 + UNMENTIONED_SEGMENT_PENALTY * unmentioned);
      const receiver = this.createsOneOf(id, query.addedTo) ? CREATE_FOR_RECEIVER : this.partOfReceiver(id, query.addedTo) ? PART_OF_RECEIVER : 1;
      const shape = this.shapeFactor(id, query) * ((this.itemSegments[id] as string[]).some((t) => query.namedItems.has(t)) ? NAMED_ITEM_ARGUMENT : 1);
      const head = shape >= 1 && segments.length > 1 && namesHead(tail, nouns) ? NAMED_HEAD : 1;
      final.set(id, head * rel * coverage ** COVERAGE_EXPONENT * method * specificity * receiver * shape * (this.priors[id] as number));
    }
    return final;
  }

  /** Operations that take the guest named as a parameter cover it (arguments.ts). */
  private creditGuestArguments(matches: ReadonlyMap<number, ConceptMatch>, relevanceWeight: number, weight: number, relevance: Map<number, number>, covered: Map<number, number>): void {
    for (const [id, takesGuest] of this.guestArguments.entries()) {
      const coverage = matches.get(id)?.coverage ?? 0;
      if (!takesGuest || coverage >= GUEST_ARGUMENT_COVERAGE) continue;
      covered.set(id, (covered.get(id) ?? 0) + weight * (GUEST_ARGUMENT_COVERAGE - coverage));
      if (!matches.has(id)) relevance.set(id, (relevance.get(id) ?? 0) + relevanceWeight * GUEST_ARGUMENT_SCORE ** CONCEPT_SCORE_EXPONENT);
    }
  }

  /**
   * A request about many things ("which storages are almost full") is not answered by reading one
   * of them (`…/storage/{storage}/status`); one about a guest named by its ID not by the guest list.
   */
  private shapeFactor(id: number, query: ParsedQuery): number {
    if ((query.question || query.collection) && this.directoryIndexes[id]) return DIRECTORY_INDEX_FOR_QUESTION;
    if (query.guestMember && (this.oneGuestOps[id] || this.guestKindOps[id])) return GUEST_OP_FOR_MEMBER;
    if (query.oneGuest && this.everyGuestOps[id]) return EVERY_GUEST_FOR_ONE_GUEST;
    if (query.inventory && this.clusterGuestLists[id]) return INVENTORY_LISTING;
    if (query.nodeGuests && this.clusterGuestLists[id]) return CLUSTER_LIST_FOR_NODE_GUESTS;
    if (query.nodeNotGuest && this.oneGuestOps[id]) return GUEST_OP_FOR_NODE;
    if (query.nodeNotGuest && !query.collection && this.everyGuestOps[id]) return EVERY_GUEST_FOR_NODE;
    if (query.oneGuest && this.guestKindOps[id] && this.isRead[id]) return KIND_READ_FOR_ONE_GUEST;
    if (query.question && query.oneGuest && query.guestExists && this.nodeOwnReads[id]) return NODE_READ_FOR_ONE_GUEST;
    if (query.guestExists && this.guestKindOps[id]) return KIND_WRITE_FOR_NAMED_GUEST;
    if (!query.timed && this.jobWrites[id]) return JOB_FOR_ONE_OFF;
    if (!this.endsWithParam[id] && (this.segments[id] as string[][]).at(-1)?.some((t) => query.namedItems.has(t))) return COLLECTION_FOR_ITEM;
    if (!query.collection || !this.isRead[id]) return 1;
    if (this.endsWithParam[id]) return ITEM_FOR_COLLECTION;
    return (this.itemSegments[id] as string[]).some((t) => query.pluralTerms.has(t)) ? ITEM_FOR_COLLECTION : 1;
  }

  /** A guest's configuration write, the request adding something to that kind of guest ("add a disk to a vm"): a part of it. */
  private partOfReceiver(id: number, kinds: ReadonlySet<string>): boolean {
    if (kinds.size === 0 || this.isRead[id] || !this.guestConfigs[id]) return false;
    return (this.segments[id] as string[][]).some((seg) => seg.some((t) => kinds.has(t)));
  }

  /** The operation creates a thing of a kind the request adds something to (`POST /cluster/firewall/ipset` for "add … to the ipset"). */
  private createsOneOf(id: number, kinds: ReadonlySet<string>): boolean {
    if (kinds.size === 0 || this.operations[id]?.method !== 'POST' || this.endsWithParam[id]) return false;
    const tail = (this.segments[id] as string[][]).at(-1);
    return tail !== undefined && tail.some((t) => kinds.has(t));
  }

  private methodFactor(method: HttpMethod, query: ParsedQuery): number {
    if (query.methods) {
      const rank = query.methods.indexOf(method);
      if (rank === 0) return 1;
      if (rank > 0) return SECONDARY_METHOD;
      return query.question && query.collection ? QUESTION_ABOUT_MANY_WRITE : METHOD_MISMATCH;
    }
    if (query.hintedMethods) return query.hintedMethods.includes(method) ? 1 : HINT_MISMATCH;
    if (method === 'GET') return 1;
    return query.collection ? NO_INTENT_COLLECTION_WRITE : NO_INTENT_WRITE;
  }

  /**
   * A concept scores as its best term plus a little of the others. It counts as covered as far as
   * its best term stands for it and matched in a field that says what the operation is.
   */
  private conceptMatches(concept: Concept, listing: boolean, setting: boolean): Map<number, ConceptMatch> {
    const best = new Map<number, number>();
    const sum = new Map<number, number>();
    const coverage = new Map<number, number>();
    const propertyCoverage = new Map<number, number>();
    for (const [term, weight] of concept.terms) {
      for (const [id, match] of this.termScores(term)) {
        const s = weight * match.score;
        best.set(id, Math.max(best.get(id) ?? 0, s));
        sum.set(id, (sum.get(id) ?? 0) + s);
        const property = !match.strong && ((listing && match.returned && this.isRead[id]) || (setting && match.param && !this.isRead[id]));
        const credit = Math.min(1, weight) * (match.strong ? 1 : property ? RETURNED_PROPERTY_COVERAGE : WEAK_COVERAGE);
        coverage.set(id, Math.max(coverage.get(id) ?? 0, credit));
        // Several of a concept's terms among an operation's properties (scsi, virtio, sata, ide in a
        // config) add up; strong matches do not, so a rich synonym list cannot outweigh a plain word.
        if (property) propertyCoverage.set(id, 1 - (1 - (propertyCoverage.get(id) ?? 0)) * (1 - credit));
      }
    }
    const matches = new Map<number, ConceptMatch>();
    for (const [id, b] of best) {
      const covers = Math.max(coverage.get(id) as number, propertyCoverage.get(id) ?? 0);
      matches.set(id, { score: b + SYNONYM_SPILL * ((sum.get(id) as number) - b), coverage: covers });
    }
    return matches;
  }

  private termScores(term: string): ReadonlyMap<number, TermMatch> {
    const cached = this.termCache.get(term);
    if (cached) return cached;
    const results = this.index.search(term, {
      boost: FIELD_BOOST,
      prefix: term.length >= PREFIX_MIN_LENGTH,
      fuzzy: term.length >= FUZZY_MIN_LENGTH ? FUZZY_DISTANCE : false,
      weights: LOOSE_MATCH_WEIGHTS,
      tokenize: (text) => [text],
      processTerm: (t) => t,
    });
    const scores = new Map<number, TermMatch>();
    for (const r of results) {
      const fields = Object.values(r.match).flat();
      scores.set(r.id as number, {
        score: r.score,
        strong: fields.some((f) => STRONG_FIELDS.has(f)),
        returned: fields.includes('returns') || fields.includes('values'),
        param: fields.includes('params'),
      });
    }
    if (this.termCache.size >= TERM_CACHE_LIMIT) this.termCache.clear();
    this.termCache.set(term, scores);
    return scores;
  }
}

interface TermMatch {
  score: number;
  /** Matched in a field that says what the operation is (path, name, summary). */
  strong: boolean;
  /** Matched a property name of what the operation returns, or a value a parameter selects. */
  returned: boolean;
  /** Matched a parameter's name: what a write sets. */
  param: boolean;
}

/** Every word of a last segment is a noun of the request or a generic verb (`get-osinfo`), and one is a noun. */
const namesHead = (tail: readonly string[], nouns: ReadonlySet<string>) => tail.some((t) => nouns.has(t)) && tail.every((t) => nouns.has(t) || verbRule(t, t) !== undefined);

interface ConceptMatch {
  score: number;
  /** 0..1: how fully the operation covers the concept. */
  coverage: number;
}
