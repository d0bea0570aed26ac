/**
 * Wrong answers whose truth is known, made from a gold answer by fixed rules (no LLM, so the set is
 * reproducible from the data and the seed; docs/judging.md lists the rules):
 *
 * specific-but-wrong — the gold's specifics replaced by other specifics:
 *   date-shift   a year moved by 1-3, a day of the month by 1-9, a month or weekday name replaced by another;
 *   number       a number (digits or a word up to twelve) replaced by another;
 *   name-swap    a capitalised name in the gold replaced by another name from the same conversation
 *                (its speakers and the capitalised words its turns use mid-sentence);
 *   other-answer when the gold has none of these: the gold of another question of the same type in
 *                the same conversation (a specific answer, but to another question).
 * vague-but-topical — the gold's specifics dropped, the topic kept:
 *   date-vague   a date to "some time that year", a bare year ("in 2022") to "some time back then";
 *   count-vague  a number to "a few";
 *   name-vague   a name to a role word ("a friend" for a speaker; "somewhere" after in/at/to/from or in a
 *                where-question; else "someone");
 *   topic-only   when the gold has none of these: "Something to do with <the question's topic word>".
 * A perturbation that leaves the answer equal to the gold (after normalising case and spaces) is dropped.
 */
import { seedrandom } from '../util/lazy-packages.js';
import type { Episode, Question } from '../core/schema.js';

export type PerturbationKind = 'specific' | 'vague';

export interface Perturbation {
  kind: PerturbationKind;
  answer: string;
  /** The rules applied, in order. */
  rules: string[];
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const NUMBER_WORDS = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
const MONTH_RE = new RegExp(`\\b(${MONTHS.join('|')})\\b`, 'gi');
const WEEKDAY_RE = new RegExp(`\\b(${WEEKDAYS.join('|')})\\b`, 'gi');
const YEAR_RE = /\b(19|20)\d{2}\b/g;
/** A day of the month next to a month name: "7 May", "May 7", "7th of May". */
const DAY_RE = new RegExp(
  `\\b(\\d{1,2})(st|nd|rd|th)?(?=\\s+(?:of\\s+)?(?:${MONTHS.join('|')})\\b)|(?<=\\b(?:${MONTHS.join('|')})\\s+)(\\d{1,2})(st|nd|rd|th)?\\b`,
  'gi',
);
const NUMBER_RE = new RegExp(`\\b(\\d+|${NUMBER_WORDS.join('|')})\\b`, 'gi');
/** A full date expression (day? month year?) or a month with a year: replaced as a whole by the vague rule. */
const DATE_EXPR_RE = new RegExp(
  `\\b(?:(?:the\\s+)?(?:${WEEKDAYS.join('|')})\\s+(?:before|after|of)\\s+)?(?:\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?)?(?:${MONTHS.join('|')})(?:\\s+\\d{1,2}(?:st|nd|rd|th)?)?,?(?:\\s+(?:19|20)\\d{2})?\\b`,
  'gi',
);
const STOP = new Set(
  'a an the and or of to in on at for with by from about is are was were be been being do does did has have had what which who whom whose when where why how would could should might may can will shall that this these those it its their there they she he her his him them i you we our your my me as into than then so not no yes if but also some any all likely kind type sort did does do ever'.split(
    ' ',
  ),
);
const PLACE_PREPOSITIONS = new Set(['in', 'at', 'to', 'from', 'near', 'around']);

const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();

/** Both perturbations of q's gold that the rules can make (none, one or both). */
export function perturb(q: Question, episode: Episode, sameType: Question[], seed: number): Perturbation[] {
  const rng = seedrandom(`${seed}:${q.id}`);
  const out: Perturbation[] = [];
  const specific = specificWrong(q, episode, sameType, rng);
  if (specific && norm(specific.answer) !== norm(q.gold)) out.push(specific);
  const vague = vagueTopical(q, episode);
  if (vague && norm(vague.answer) !== norm(q.gold)) out.push(vague);
  return out;
}

/** Integer in [lo, hi]. */
const pick = (rng: () => number, lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));

function otherOf<T>(list: T[], not: T, rng: () => number): T {
  const rest = list.filter((x) => x !== not);
  return rest[Math.floor(rng() * rest.length)]!;
}

const titleLike = (word: string, like: string) => (like[0] === like[0]!.toUpperCase() ? word : word.toLowerCase());

function specificWrong(q: Question, episode: Episode, sameType: Question[], rng: () => number): Perturbation | null {
  let text = q.gold;
  const rules: string[] = [];
  const apply = (re: RegExp, rule: string, f: (m: string, ...g: string[]) => string) => {
    const next = text.replace(re, f as (m: string) => string);
    if (next !== text) {
      text = next;
      if (!rules.includes(rule)) rules.push(rule);
    }
  };
  const dates = DATE_EXPR_RE.test(q.gold) || YEAR_RE.test(q.gold) || WEEKDAY_RE.test(q.gold);
  DATE_EXPR_RE.lastIndex = YEAR_RE.lastIndex = WEEKDAY_RE.lastIndex = 0;
  if (dates) {
    apply(YEAR_RE, 'date-shift', (m) => String(Number(m) + (rng() < 0.5 ? -1 : 1) * pick(rng, 1, 3)));
    apply(DAY_RE, 'date-shift', (m) => {
      const d = Number(m.replace(/\D/g, ''));
      const shifted = ((d - 1 + pick(rng, 1, 9)) % 28) + 1;
      return String(shifted) + m.replace(/^\d+/, '');
    });
    apply(MONTH_RE, 'date-shift', (m) =>
      titleLike(
        otherOf(
          MONTHS,
          MONTHS.find((x) => x.toLowerCase() === m.toLowerCase())!,
          rng,
        ),
        m,
      ),
    );
    apply(WEEKDAY_RE, 'date-shift', (m) =>
      titleLike(
        otherOf(
          WEEKDAYS,
          WEEKDAYS.find((x) => x.toLowerCase() === m.toLowerCase())!,
          rng,
        ),
        m,
      ),
    );
  } else {
    apply(NUMBER_RE, 'number', (m) => {
      const i = NUMBER_WORDS.indexOf(m.toLowerCase());
      if (i >= 0) return titleLike(NUMBER_WORDS[(i + pick(rng, 1, 4)) % NUMBER_WORDS.length]!, m);
      const n = Number(m);
      return String(n + pick(rng, 1, Math.max(3, Math.round(n / 2))));
    });
  }
  const names = conversationNames(episode);
  const inGold = capitalisedWords(q.gold).filter((w) => names.has(w));
  if (inGold.length) {
    const pool = [...names].filter((n) => !inGold.includes(n) && !q.gold.includes(n)).sort();
    if (pool.length) {
      const swap = new Map(inGold.map((w) => [w, pool[Math.floor(rng() * pool.length)]!]));
      apply(new RegExp(`\\b(${[...swap.keys()].map(escapeRe).join('|')})\\b`, 'g'), 'name-swap', (m) => swap.get(m) ?? m);
    }
  }
  if (rules.length === 0) {
    const others = sameType.filter(
      (o) => o.id !== q.id && o.episode === q.episode && norm(o.gold) !== norm(q.gold) && !norm(o.gold).includes(norm(q.gold)),
    );
    if (others.length === 0) return null;
    return { kind: 'specific', answer: others[Math.floor(rng() * others.length)]!.gold, rules: ['other-answer'] };
  }
  return { kind: 'specific', answer: text, rules };
}

function vagueTopical(q: Question, episode: Episode): Perturbation | null {
  let text = q.gold;
  const rules: string[] = [];
  const apply = (re: RegExp, rule: string, f: (m: string, ...rest: unknown[]) => string) => {
    const next = text.replace(re, f as (m: string) => string);
    if (next !== text) {
      text = next;
      if (!rules.includes(rule)) rules.push(rule);
    }
  };
  apply(DATE_EXPR_RE, 'date-vague', () => 'some time that year');
  apply(/\b(?:in\s+)?(?:19|20)\d{2}\b/gi, 'date-vague', () => 'some time back then');
  apply(WEEKDAY_RE, 'date-vague', () => 'one day');
  apply(NUMBER_RE, 'count-vague', () => 'a few');
  const speakers = new Set((episode.meta?.speakers as string[] | undefined) ?? []);
  const names = conversationNames(episode);
  const inGold = capitalisedWords(text).filter((w) => names.has(w) || speakers.has(w));
  if (inGold.length) {
    apply(new RegExp(`(\\b\\w+\\s+)?\\b(${inGold.map(escapeRe).join('|')})\\b`, 'g'), 'name-vague', (m, before, name) => {
      const prev = typeof before === 'string' ? before : '';
      const place = PLACE_PREPOSITIONS.has(prev.trim().toLowerCase()) || /^where\b/i.test(q.text);
      const role = speakers.has(name as string) ? 'a friend' : place ? 'somewhere' : 'someone';
      return role === 'somewhere' ? role : prev + role;
    });
  }
  if (rules.length) return { kind: 'vague', answer: tidy(text), rules };
  const topic = topicWord(q);
  return topic ? { kind: 'vague', answer: `Something to do with ${topic}.`, rules: ['topic-only'] } : null;
}

/** The topic: a content word the question and the gold share, else the question's last content word. */
function topicWord(q: Question): string | null {
  const words = (s: string) => (s.toLowerCase().match(/[a-z][a-z'-]+/g) ?? []).filter((w) => !STOP.has(w) && w.length > 2);
  const goldWords = new Set(words(q.gold));
  const qWords = words(q.text).filter((w) => !capitalisedWords(q.text).some((c) => c.toLowerCase() === w));
  const shared = qWords.filter((w) => goldWords.has(w));
  return shared[0] ?? qWords[qWords.length - 1] ?? null;
}

const namesOf = new WeakMap<Episode, Set<string>>();

/** Speakers, and capitalised words the turns use mid-sentence at least twice (names, places); once per episode. */
function conversationNames(episode: Episode): Set<string> {
  const known = namesOf.get(episode);
  if (known) return known;
  const counts = new Map<string, number>();
  for (const t of episode.turns) {
    for (const m of t.text.matchAll(/(?<=[a-z,;] )([A-Z][a-z]{2,})\b/g)) counts.set(m[1]!, (counts.get(m[1]!) ?? 0) + 1);
  }
  const out = new Set((episode.meta?.speakers as string[] | undefined) ?? []);
  for (const [w, c] of counts) if (c >= 2 && !STOP.has(w.toLowerCase()) && !MONTHS.includes(w) && !WEEKDAYS.includes(w)) out.add(w);
  namesOf.set(episode, out);
  return out;
}

function capitalisedWords(s: string): string[] {
  return [...new Set(s.match(/\b[A-Z][a-z]{2,}\b/g) ?? [])];
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function tidy(s: string): string {
  return s
    .replace(/\s+/g, ' ')
    .replace(/\s+([,.;])/g, '$1')
    .trim();
}
