/**
 * The role each thing a request names plays in it: what is created and where it goes, a guest that
 * joins or leaves something else, what something is added to. "add vm 130 to the dev pool" changes
 * the pool, not the guest; "create an account for carol in the pve realm" creates a user.
 */
import { isNoise, stem } from './analyzer.js';
import type { Concept } from './query.js';
import type { VerbRule } from './verbs.js';

/**
 * Words that name a guest (singular): followed by a number they name one guest by its ID ("vm 101",
 * "ct 200"), after an article one guest the operator has in mind ("is the vm running").
 */
export const GUEST_WORDS = new Set(['vm', 'container', 'ct', 'guest', 'vmid', 'lxc', 'qemu', 'kvm', 'instance']);
/** Words that name guests in the plural. */
export const GUEST_PLURALS = new Set(['vms', 'containers', 'cts', 'guests', 'instances']);
export const NODE_WORDS = new Set(['node', 'host', 'hypervisor']);
export const ONE_OF = new Set(['the', 'this', 'that', 'a', 'an', 'my', 'one']);
/** A guest after one of these is one that exists ("add a disk to a vm", "the config of the vm"). */
export const PREPOSITIONS = new Set(['to', 'of', 'on', 'in', 'into', 'onto', 'for', 'from', 'inside', 'within']);
/** PVE's default host names (pve2, proxmox-3). */
export const NODE_ID = /\b(?:pve|proxmox)-?[0-9]+\b/gi;

const VM_WORDS = new Set(['vm', 'vms', 'qemu', 'kvm']);
const CT_WORDS = new Set(['container', 'containers', 'ct', 'cts', 'lxc']);
/** "every vm or container": both kinds of guest at once, which only the cluster's resource list holds. */
export const bothGuestKinds = (tokens: readonly string[]) => tokens.some((t) => VM_WORDS.has(t)) && tokens.some((t) => CT_WORDS.has(t));

/** Guests in the plural on a node named by its name or as one node ("how many containers are on this node"), not "each node". */
export function asksForNodeGuests(text: string, tokens: readonly string[]): boolean {
  if (!tokens.some((t) => GUEST_PLURALS.has(t))) return false;
  return text.match(NODE_ID) !== null || tokens.some((t, i) => NODE_WORDS.has(t) && ONE_OF.has(tokens[i - 1] ?? ''));
}

/** A plural names things when its rule's term stands for them this well ("guests" → qemu, lxc). */
export const PLURAL_TERM_MIN = 0.6;

export interface Roles {
  /** The guest named joins or leaves something else ("take vm 120 out of ha"). */
  guestMember: boolean;
  /** Index terms of what an add request adds to ("… to the blocklist ipset" → ipset). */
  addedTo: Set<string>;
  /**
   * What the guest joins is one that exists, named or pointed at ("to the dev pool", "into pool
   * staging"), not a facility ("under ha"): joining it changes it rather than creating an entry.
   */
  joinsExisting: boolean;
}

/**
 * Weighs the request's concepts by their role (in place) and says which roles it found: in a
 * create request what follows the object is context; a guest that joins or leaves weighs less.
 */
export function weighRoles(tokens: string[], stems: string[], concepts: Concept[], verb: { rule: VerbRule; position: number; length: number } | undefined): Roles {
  if (!verb) return { guestMember: false, addedTo: new Set(), joinsExisting: false };
  const creates = verb.rule.words[0] === 'create';
  if (creates) {
    const after = firstPrepositionAfter(tokens, verb.position + verb.length);
    if (after !== undefined) {
      const objectWords = new Set(tokens.slice(0, after));
      for (const [k, c] of concepts.entries()) if (!c.verb && !c.source.split(' ').some((w) => objectWords.has(w))) concepts[k] = { ...c, weight: c.weight * CONTEXT_WEIGHT };
    }
  }
  const receiver = movesGuest(tokens, verb.position, verb.rule);
  const guestMember = receiver !== undefined;
  if (guestMember) {
    for (const [k, c] of concepts.entries()) if (!c.verb && GUEST_WORDS.has(c.source)) concepts[k] = { ...c, weight: c.weight * MEMBER_GUEST_WEIGHT };
  }
  return { guestMember, addedTo: creates ? targetTerms(tokens, stems, concepts) : new Set(), joinsExisting: creates && receiver === 'existing' };
}

/** Weight of what a create request names after its object ("in the pve realm"): where the new thing goes. */
const CONTEXT_WEIGHT = 0.7;

/** Position of the first preposition after the verb's object (at least one content word after `from`). */
function firstPrepositionAfter(tokens: string[], from: number): number | undefined {
  let seenObject = false;
  for (let i = from; i < tokens.length; i++) {
    const t = tokens[i] as string;
    if (seenObject && PREPOSITIONS.has(t)) return i;
    if (!isNoise(t) && !PREPOSITIONS.has(t)) seenObject = true;
  }
  return undefined;
}

/** Prepositions after which an add request names what receives the new thing. */
const RECEIVERS = new Set(['to', 'into']);

/** The strong terms of the concept that follows "to" / "into" in an add request ("… to the blocklist ipset" → ipset). */
function targetTerms(tokens: string[], stems: string[], concepts: Concept[]): Set<string> {
  const at = tokens.findIndex((t) => RECEIVERS.has(t));
  if (at === -1) return new Set();
  const after = new Set(stems.slice(at + 1));
  const terms = new Set<string>();
  for (const c of concepts) {
    if (c.verb || !c.source.split(' ').some((w) => after.has(stem(w)))) continue;
    for (const [term, weight] of c.terms) if (weight >= PLURAL_TERM_MIN) terms.add(term);
  }
  return terms;
}

/** Weight of a guest that is added to or taken from something else: that something is the point. */
const MEMBER_GUEST_WEIGHT = 0.5;
/** Verbs that add a guest to, or take it from, a pool, HA, a job (their rules' first word). */
const MEMBERSHIP_VERBS = new Set(['create', 'remove']);
/** Prepositions that name what the guest joins or leaves. */
const MEMBERSHIP_PREPOSITIONS = new Set(['to', 'into', 'under', 'out', 'from']);
/** Joining or leaving these is not membership: "delete vm 101 from the cluster" destroys it, "move … to pve2" migrates. */
const PLACES = new Set(['cluster', 'datacenter', 'node', 'host', 'storage', 'disk']);

/**
 * The request adds a guest named by ID to something, or takes it out ("add vm 130 to the dev
 * pool", "take vm 120 out of ha"): verb, guest word, ID, then a preposition and a thing that is
 * not a place.
 */
function movesGuest(tokens: string[], verbAt: number, rule: VerbRule): 'existing' | 'facility' | undefined {
  if (!MEMBERSHIP_VERBS.has(rule.words[0] as string)) return undefined;
  let i = verbAt + 1;
  if (ONE_OF.has(tokens[i] ?? '')) i += 1;
  if (!GUEST_WORDS.has(tokens[i] ?? '') || !/^[0-9]+$/.test(tokens[i + 1] ?? '')) return undefined;
  i += 2;
  while (tokens[i] === 'and' || /^[0-9]+$/.test(tokens[i] ?? '') || GUEST_WORDS.has(tokens[i] ?? '')) i += 1;
  if (!MEMBERSHIP_PREPOSITIONS.has(tokens[i] ?? '')) return undefined;
  const rest = tokens.slice(i + 1).filter((t) => !ONE_OF.has(t) && t !== 'of');
  const target = rest[0];
  if (target === undefined || PLACES.has(target) || target.match(NODE_ID) !== null || /^[0-9]+$/.test(target)) return undefined;
  return ONE_OF.has(tokens[i + 1] ?? '') || rest.length > 1 ? 'existing' : 'facility';
}
