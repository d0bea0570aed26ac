/**
 * Entity alignment: the extractor names the same person or place in several ways ("Caroline",
 * "caroline's", "Caroline Smith"); recall and de-duplication compare aligned names. Names are
 * normalised (case, possessive, punctuation, a leading article), then mapped onto the episode's
 * speakers when they name one (first name or full name).
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

  /** `speakers`: the episode's speaker names (canonical forms). */
  constructor(speakers: Iterable<string>) {
    for (const s of speakers) {
      const canon = normaliseEntity(s);
      if (!canon) continue;
      this.aliases.set(canon, canon);
      const first = canon.split(' ')[0]!;
      // A first name stands for the speaker unless two speakers share it.
      if (first !== canon) this.aliases.set(first, this.aliases.has(first) && this.aliases.get(first) !== canon ? first : canon);
    }
  }

  align(name: string): string {
    const n = normaliseEntity(name);
    return this.aliases.get(n) ?? n;
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
