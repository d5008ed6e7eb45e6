/**
 * Text analysis shared by indexing and querying: the same tokenizer and stemmer run on both sides,
 * so a plural in a query ("snapshots") meets the singular in a path segment ("snapshot").
 */

/** Words that carry no intent in an operator's question. Verbs are not here: they steer the method. */
const STOPWORDS = new Set([
  'a',
  'about',
  'all',
  'am',
  'an',
  'and',
  'any',
  'are',
  'as',
  'at',
  'be',
  'been',
  'by',
  'can',
  'could',
  'currently',
  'do',
  'does',
  'each',
  'every',
  'for',
  'from',
  'go',
  'has',
  'have',
  'how',
  'i',
  'if',
  'in',
  'into',
  'is',
  'it',
  'its',
  'let',
  'like',
  'me',
  'my',
  'now',
  'of',
  'on',
  'one',
  'or',
  'our',
  'please',
  'should',
  'so',
  'some',
  'that',
  'the',
  'their',
  'them',
  'there',
  'these',
  'this',
  'those',
  'to',
  'up',
  'us',
  'via',
  'was',
  'we',
  'were',
  'what',
  'when',
  'where',
  'which',
  'will',
  'with',
  'would',
  'you',
  'your',
  'e',
  'g',
  'eg',
  'ie',
  'etc',
  'using',
  'use',
  'want',
  'need',
  'wants',
  'needs',
  // Words of scope and degree ("only manage vm 118, nothing else", "is anything still running"):
  // how much, not what.
  'only',
  'nothing',
  'else',
  'anything',
  'something',
  'still',
  'already',
  'must',
  'completely',
  'totally',
  'actually',
  'temporarily',
  'somewhere',
  'around',
  'way',
  'just',
  'also',
  'within',
  'inside',
  'per',
  'whose',
  'certain',
  'specific',
  'given',
  // Pronouns and clause openers ("unlock her", "after too many attempts") name nothing to search.
  'he',
  'she',
  'her',
  'him',
  'his',
  'they',
  'too',
  'after',
  'before',
  'while',
  'until',
  'because',
  // "show user bob's details": about the thing, not a thing of its own.
  'details',
  'detail',
  // Negations ("why did vm 130 not start", "won't boot") keep the question's object; phrases that
  // need them ("not backed up") still match, as phrases see every word.
  'not',
  'won',
  'didn',
  'doesn',
  'isn',
  'aren',
  'wasn',
  'cannot',
  't',
  // When something happened ("last night's archive", "this morning"): the request's object says what.
  'night',
  'tonight',
  'yesterday',
  'today',
  'morning',
  'evening',
  'afternoon',
  // What is left of a possessive or a contraction ("vm 101's", "what's", "it'll", "we're").
  's',
  'd',
  'll',
  're',
  've',
  'm',
  'here',
  'particular',
  // How an action is done, not which: "stop vm 118 hard", "right away" ("hard disk" is a phrase).
  // Node names (pve1, proxmox2) split into the product's name and a number; neither says what to do.
  'pve',
  'proxmox',
  'hard',
  'hardly',
  'immediately',
  'instantly',
  'forcefully',
  'forcibly',
  'asap',
  'away',
  'right',
  // "which roles are defined", "what backups exist": asking whether things exist is asking for the list.
  'exist',
  'exists',
  'defined',
  'configured',
  'present',
  // "which bridge is vm 101 connected to": how a thing hangs together, not what to read.
  'connected',
  'attached',
  'plugged',
  'hooked',
  // "add more memory", "an extra disk": how much, which the parameters say, not which operation.
  'more',
  'less',
  'than',
  // Units of the figures in a request ("more than 8 gb of ram"): the figure's noun says what is asked.
  'kb',
  'mb',
  'gb',
  'tb',
  'kib',
  'mib',
  'gib',
  'tib',
  'percent',
  'extra',
  // "a second network card", "the third disk": which one, not what.
  'first',
  'second',
  'third',
  'fourth',
  'additional',
  // "which storage holds the disks": a relation between the things named, not a thing of its own.
  'hold',
  'holds',
  'contain',
  'contains',
]);

/** Words that end in "s" but are not plurals (acronyms and PVE terms); stripping would break them. */
const KEEP_TRAILING_S = new Set([
  'nfs',
  'dns',
  'cifs',
  'zfs',
  'cephfs',
  'pbs',
  'sys',
  'tls',
  'ssl',
  'tos',
  'cors',
  'lvs',
  'mds',
  'https',
  'alias',
  'os',
  'has',
  'was',
  'yes',
  'series',
  'always',
  'whereas',
]);

/** Irregular or ambiguous forms mapped to the stem the regular rules give their base word. */
const IRREGULAR: Record<string, string> = {
  aliases: 'alias',
  statuses: 'status',
  indices: 'index',
  indexes: 'index',
  addresses: 'address',
  processes: 'process',
  ips: 'ip',
  vms: 'vm',
  cts: 'ct',
  osds: 'osd',
  logging: 'log',
  stopped: 'stop',
  started: 'start',
  paused: 'pause',
  booted: 'boot',
  failed: 'fail',
  failing: 'fail',
  failure: 'fail',
  errors: 'error',
  upgraded: 'upgrade',
  installed: 'install',
  attached: 'attach',
  children: 'child',
  mounted: 'mount',
  locked: 'lock',
  enabled: 'enable',
  disabled: 'disable',
  tagged: 'tag',
};

/** Lowercases and splits into runs of letters and runs of digits (`net0` → `net 0`, `get-fsinfo` → `get fsinfo`). */
export function tokenize(text: string): string[] {
  return text.toLowerCase().match(/[a-z]+|[0-9]+/g) ?? [];
}

/**
 * `tokenize` that also counts the words (tokens without digits) it meets until `done()`: the index
 * tokenizes the schema's text once, and the speller's vocabulary is gathered from that same pass.
 */
export function wordCountingTokenizer(): { tokenize: (text: string) => string[]; done: () => ReadonlyMap<string, number> } {
  let words: Map<string, number> | undefined = new Map();
  return {
    tokenize(text) {
      const tokens = tokenize(text);
      if (words) for (const token of tokens) if (!/[0-9]/.test(token)) words.set(token, (words.get(token) ?? 0) + 1);
      return tokens;
    },
    done() {
      const counted = words ?? new Map<string, number>();
      words = undefined;
      return counted;
    },
  };
}

/** A light suffix stemmer: enough to fold plurals and a few verb forms; never produces an empty term. */
export function stem(word: string): string {
  const irregular = IRREGULAR[word];
  if (irregular !== undefined) return irregular;
  if (word.length <= 2 || KEEP_TRAILING_S.has(word)) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses') || word.endsWith('xes')) return word.slice(0, -2);
  if (word.endsWith('s') && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

/** True for tokens that carry no meaning for search: stopwords and bare numbers (VM IDs, sizes). */
export function isNoise(token: string): boolean {
  return STOPWORDS.has(token) || /^[0-9]+$/.test(token);
}

/** Index-side term processing: noise dropped, the rest stemmed. Memoized: the schema repeats words a lot. */
const termCache = new Map<string, string | null>();
const TERM_CACHE_LIMIT = 20_000;

export function indexTerm(token: string): string | null {
  let term = termCache.get(token);
  if (term === undefined) {
    term = isNoise(token) ? null : stem(token);
    if (termCache.size >= TERM_CACHE_LIMIT) termCache.clear();
    termCache.set(token, term);
  }
  return term;
}

/** Full analysis of indexed text: tokens, stemmed, noise removed. */
export function analyze(text: string): string[] {
  const out: string[] = [];
  for (const token of tokenize(text)) {
    const term = indexTerm(token);
    if (term !== null) out.push(term);
  }
  return out;
}
