/**
 * Entity alignment: the extractor names the same person or place in several ways ("Caroline",
 * "caroline's", "Caroline Smith"); recall and de-duplication compare aligned names. Names are
 * normalised (case, possessive, punctuation, a leading article), then mapped onto the episode's
 * speakers when they name one: full name, first name, surname, first name plus a surname the
 * speaker list does not give, or a nickname that begins exactly one speaker's first name ("Mel").
 */

/** Lower case, no possessive, no surrounding punctuation, single spaces, no leading article. */
export function normaliseEntity(name: string): string {
  return name
    .toLowerCase()
    .normalize('NFKC')
    .replace(/['’]s\b/g, '')
    .replace(/[^\p{L}\p{N}\s.&-]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^(the|a|an) /, '')
    .replace(/[.-]+$/, '')
    .trim();
}

export class EntityAligner {
  /** alias -> canonical name */
  private readonly aliases = new Map<string, string>();
  /** Canonical speakers by first name (for nicknames). */
  private readonly firstNames = new Map<string, string>();

  /** `speakers`: the episode's speaker names (canonical forms). */
  constructor(speakers: Iterable<string>) {
    const ambiguous = new Set<string>();
    const claim = (alias: string, canon: string) => {
      if (ambiguous.has(alias)) return;
      const had = this.aliases.get(alias);
      // A first name or surname stands for the speaker unless two speakers share it.
      if (had !== undefined && had !== canon && had !== alias) {
        this.aliases.set(alias, alias);
        ambiguous.add(alias);
      } else if (had === undefined) this.aliases.set(alias, canon);
    };
    const canons: string[] = [];
    for (const s of speakers) {
      const canon = normaliseEntity(s);
      if (!canon) continue;
      canons.push(canon);
      this.aliases.set(canon, canon);
    }
    for (const canon of canons) {
      const words = canon.split(' ');
      if (words.length > 1) {
        claim(words[0]!, canon);
        claim(words[words.length - 1]!, canon);
      }
      const first = words[0]!;
      this.firstNames.set(first, this.firstNames.has(first) && this.firstNames.get(first) !== canon ? '' : canon);
    }
  }

  align(name: string): string {
    const n = normaliseEntity(name);
    const known = this.aliases.get(n);
    if (known !== undefined) return known;
    const words = n.split(' ');
    // "Caroline Smith" for the speaker "Caroline": a speaker's first name followed by a surname.
    const byFirst = words.length === 2 ? this.firstNames.get(words[0]!) : undefined;
    if (byFirst) return byFirst;
    // A nickname: a capitalised name of 3+ letters that begins exactly one speaker's first name ("Mel" for Melanie).
    if (words.length === 1 && n.length >= 3 && /^\p{Lu}/u.test(name.trim())) {
      const matches = [...this.firstNames].filter(([first, canon]) => canon !== '' && first !== n && first.startsWith(n));
      if (matches.length === 1) return matches[0]![1];
    }
    return n;
  }

  /** Aligned, de-duplicated, sorted (a stable set). */
  alignAll(names: readonly string[]): string[] {
    return [...new Set(names.map((n) => this.align(n)).filter((n) => n !== ''))].sort();
  }
}

/** Capitalised words that start questions or sentences rather than name anything. */
const NOT_NAMES = new Set(
  "what when where who whom whose which why how did does do is are was were will would can could should has have had may might shall i i'm i've the a an in on at of for to from by with and or but if then this that these those it its my your our their his her he she they we you me us them there here after before during since until according based".split(
    ' ',
  ),
);

/**
 * The entities a question names: the speakers it mentions and its proper nouns (capitalised
 * words, runs of them joined), aligned like the items' entities.
 */
export function questionEntities(question: string, aligner: EntityAligner, speakers: Iterable<string>): string[] {
  const found = new Set<string>();
  const lower = ` ${normaliseEntity(question)} `;
  for (const s of speakers) {
    const canon = normaliseEntity(s);
    const first = canon.split(' ')[0]!;
    if (canon && (lower.includes(` ${canon} `) || lower.includes(` ${first} `))) found.add(aligner.align(s));
  }
  for (const m of question.matchAll(/\b[\p{Lu}][\p{L}\p{N}'’-]*(?:\s+[\p{Lu}][\p{L}\p{N}'’-]*)*/gu)) {
    const words = m[0].split(/\s+/).filter((w) => !NOT_NAMES.has(normaliseEntity(w)));
    if (words.length === 0) continue;
    found.add(aligner.align(words.join(' ')));
  }
  return [...found].filter((e) => e !== '').sort();
}

/** 1 when an entity in focus is among the item's entities (whole-word containment counts: "caroline" in "caroline smith"). */
export function entityMatch(focus: readonly string[], itemEntities: readonly string[]): number {
  for (const f of focus) {
    for (const e of itemEntities) {
      if (e === f || ` ${e} `.includes(` ${f} `) || ` ${f} `.includes(` ${e} `)) return 1;
    }
  }
  return 0;
}
