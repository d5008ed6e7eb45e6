/**
 * How a request opens decides what it asks: an imperative verb ("delete …", "please list …"), a
 * state question ("is …", "which …", "how many …") or a way to act ("how do I …").
 */
import type { HttpMethod } from '../schema/model.js';
import { isNoise, stem } from './analyzer.js';
import { QUESTION_METHODS, isMannerModal, isNeutralOpener, isStateQuestion, phrasalVerbRule, separableVerbRule, verbRule, type VerbRule } from './verbs.js';

/** Modals that make a verb after a question hypothetical ("what would change", "what will happen if I delete"). */
const HYPOTHETICAL = new Set(['would', 'will', 'might']);
const EXISTENTIAL = new Set(['there', 'any']);

/** Subjects after which a question word is a plain verb. */
const PRONOUNS = new Set(['i', 'we', 'you', 'they', 'it', 'he', 'she']);
/** Modals that, asked of "you", request an act. */
const POLITE_MODALS = new Set(['can', 'could', 'would', 'will']);

/** Modals that, before the asker ("can I …", "could we …"), ask whether the asker may act. */
const ABILITY_MODALS = new Set(['can', 'could']);
/** The asker, as the subject of such a modal. */
const ASKERS = new Set(['i', 'we']);

/** "how much …", "how many …", "how long …" ask for a figure: a read, like "which …". */
const MEASURES = new Set(['much', 'many', 'long', 'full', 'big', 'large', 'old', 'often', 'fast', 'busy']);

export interface Opening {
  verb?: { rule: VerbRule; position: number; length: number };
  questionMethods?: readonly HttpMethod[];
  /** Position of the first word that is neither noise nor an opener: where an action word hints a method. */
  firstContent?: number;
  /** The request asks how to act ("how do I …", "how can I …", "how to …"). */
  manner?: boolean;
  /** Position of a modal asking whether the asker may act ("can I …", "could we …"): the act first, a check of it next. */
  ability?: number;
  /** Position of an opening word read as a verb whose meaning the rest of the request carries (ask.ts `unknownImperative`). */
  unknownVerb?: number;
}

/** The request asks to act: a verb that writes, or an action word that opens it. */
export function acting(opening: Opening, hinted: readonly HttpMethod[] | undefined): boolean {
  if (opening.questionMethods) return false;
  return opening.verb ? opening.verb.rule.methods[0] !== 'GET' : hinted !== undefined && hinted[0] !== 'GET';
}

/**
 * How the request opens decides the method: an imperative verb ("delete …", "please list …",
 * "how do I create …") or a state question ("is …", "which …"). A verb later in the request is
 * usually a noun and does not count.
 */
export function findOpening(tokens: string[], stems: string[]): Opening {
  let question = false;
  let manner = false;
  let ability: number | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as string;
    const phrasal = phrasalVerbRule(token, tokens[i + 1]);
    if (phrasal) return { verb: { rule: phrasal, position: i, length: 2 } };
    // "mounts and network", "updates for pve1": an imperative is never a word's -s form, so that is
    // a noun; after a question word it is a verb ("what endpoint deletes a snapshot").
    const rule = verbRule(token, token.endsWith('s') && !question ? token : (stems[i] as string));
    // "what would change if I applied …" asks what an act would do: still a question.
    if (rule && question && HYPOTHETICAL.has(tokens[i - 1] ?? '')) continue;
    // "are there updates for pve1", "is there any change pending": what exists is a thing, not an act.
    if (rule && question && EXISTENTIAL.has(tokens[i - 1] ?? '')) continue;
    if (rule)
      return {
        verb: { rule: separableVerbRule(token, tokens.slice(i + 1)) ?? causedRule(token, tokens.slice(i + 1, i + 1 + CAUSED_REACH)) ?? rule, position: i, length: 1 },
        ...(ability !== undefined && { ability }),
      };
    // "keep the two database vms on different nodes": a state to hold, like "ensure"; later in a
    // request the word is a setting's ("keep-daily").
    if (token === 'keep' && !question) return { verb: { rule: CHANGE_RULE, position: i, length: 1 } };
    // "can you restart vm 101", "could you please …", "I was wondering if you could …": asked of
    // the one who acts, a modal is a polite imperative, not a question about state.
    // After "how" it asks for a way to act ("how can you stop …"), read below.
    if (POLITE_MODALS.has(token) && tokens[i - 1] !== 'how' && (tokens[i + 1] === 'you' || tokens[i - 1] === 'you')) continue;
    // "can I suspend every vm on pve4", "could we restart pveproxy": asking whether one may do a
    // thing asks how to do it, like "how can I …", so the act it names decides; an operation that
    // answers whether it is possible (a precondition check) is still found by its words. After a
    // question word the modal is part of that question ("which macros can I use").
    if (ABILITY_MODALS.has(token) && ASKERS.has(tokens[i + 1] ?? '') && !question && tokens[i - 1] !== 'how') {
      manner = true;
      ability = i;
      continue;
    }
    // "I was wondering …", "we are trying …": after its subject a form of "be" or "have" states.
    if (isStateQuestion(token) && PRONOUNS.has(tokens[i - 1] ?? '')) continue;
    if (tokens[i - 1] === 'how' && isMannerModal(token)) {
      manner = true;
      continue;
    }
    if (isStateQuestion(token) || (token === 'how' && MEASURES.has(tokens[i + 1] ?? ''))) {
      question = true;
      continue;
    }
    if (!isNoise(token) && !isNeutralOpener(token)) return question ? { questionMethods: QUESTION_METHODS } : { firstContent: i, manner, ...(ability !== undefined && { ability }) };
  }
  return question ? { questionMethods: QUESTION_METHODS } : {};
}

/** Verbs that, after "make <something>", say how it is to behave ("make migrations use the 10.10.10.0/24 network"). */
const CAUSED = new Set(['use', 'start', 'run', 'boot', 'go', 'point', 'resolve', 'listen', 'talk', 'send', 'stay', 'be']);
/** How many words after "make" such a verb may stand. */
const CAUSED_REACH = 4;
const CHANGE_RULE = verbRule('change', 'change') as VerbRule;

/** "make migrations use …", "make vm 101 start at boot": making a thing behave a way changes its settings. */
function causedRule(token: string, rest: readonly string[]): VerbRule | undefined {
  return token === 'make' && rest.slice(1).some((w) => CAUSED.has(w)) ? CHANGE_RULE : undefined;
}

/** Particles a two-word action splits around its object ("shut the host down", "roll vm 300 back"). */
const SPLIT_PARTICLES = new Set(['down', 'up', 'off', 'on', 'back', 'out']);
const COORDINATORS = new Set(['and', 'or']);
/** An adverb of manner ("gracefully", "cleanly"): it says how, not what. */
const MANNER_ADVERB = /^[a-z]{3,}ly$/;
/** How many words may stand between an action word and its particle. */
const MAX_SPLIT = 3;

/**
 * "shut the host pve3 down", "wake vm 200 up from pause": a two-word action the vocabulary knows,
 * split around its object, is put back together before its words are read, so the action is found.
 * The particle must end the request or its clause, or come before a preposition.
 */
export function rejoinSplitActions(tokens: string[], synonyms: ReadonlyMap<string, ReadonlyArray<{ tokens: readonly string[] }>>): string[] {
  for (let i = 0; i < tokens.length; i++) {
    const rules = synonyms.get(stem(tokens[i] as string)) ?? [];
    for (let j = i + 2; j <= i + 1 + MAX_SPLIT && j < tokens.length; j++) {
      const particle = tokens[j] as string;
      // "power guests on and off": particles joined by a conjunction belong to no one action.
      if (COORDINATORS.has(tokens[j - 1] as string) || COORDINATORS.has(tokens[j + 1] ?? '')) break;
      // "clean it up", "set it up": a two-word verb splits the same way.
      const phrasal = phrasalVerbRule(tokens[i] as string, particle) !== undefined;
      if (!SPLIT_PARTICLES.has(particle) || !(phrasal || rules.some((r) => r.tokens.length === 2 && r.tokens[1] === stem(particle)))) continue;
      // "shut it down gracefully": how it is done may follow the particle.
      const next = tokens[j + 1];
      if (next !== undefined && !isNoise(next) && !MANNER_ADVERB.test(next)) break;
      return [...tokens.slice(0, i + 1), particle, ...tokens.slice(i + 1, j), ...tokens.slice(j + 1)];
    }
  }
  return tokens;
}
