/**
 * Which questions a run asks: all of them, an explicit list (`--ids FILE`), a stratified random
 * sample (`--sample N --seed S`, strata = question type x episode), and/or the first N
 * (`--limit N`) or a range of them (`--limit A-B`). Pure: the caller reads the ids file
 * (readIdList) and gets back the questions in dataset order plus one sentence saying what was
 * selected, because "the first 100 questions" of LoCoMo are one conversation of ten, and a reader
 * of the results must be told.
 */
import { existsSync, readFileSync } from 'node:fs';
import { seedrandom } from '../util/lazy-packages.js';
import { InputError } from '../util/errors.js';
import type { Dataset, Question } from '../core/schema.js';

/** An explicit id list and where each id was read (for error messages). */
export interface IdList {
  file: string;
  entries: Array<{ id: string; line: number }>;
}

export interface Selection {
  /** Keep only the first N questions (after the other selections), or questions A to B ("A-B", 1-based, inclusive). */
  limit?: number | string | null;
  /** A stratified random sample of N questions. */
  sample?: number | null;
  seed?: number;
  ids?: IdList | null;
}

export interface Selected {
  questions: Question[];
  /** E.g. "first 100 of all 1,986 questions: 1 of 10 episodes, 5 of 5 question types". */
  description: string;
}

/** How many unknown ids an error lists. */
const LISTED = 5;

export function selectQuestions(dataset: Dataset, sel: Selection): Selected {
  const all = dataset.questions;
  let questions = all;
  let phrase = `all ${fmt(all.length)} questions`;
  if (sel.ids) {
    questions = byIds(dataset, sel.ids);
    phrase = `the ${fmt(questions.length)} questions listed in ${sel.ids.file}`;
  }
  // A sample larger than its population would silently be the whole population, under another
  // config (a run directory of its own): say so instead.
  if (sel.sample != null && sel.sample > questions.length) {
    throw new InputError(
      `--sample ${fmt(sel.sample)} asks for more questions than there are (${phrase}): leave --sample out to run them all, or give at most ${fmt(questions.length)}`,
      {
        place: '--sample',
      },
    );
  }
  if (sel.sample != null && sel.sample < questions.length) {
    questions = stratifiedSample(questions, sel.sample, sel.seed ?? 0);
    phrase = `${fmt(questions.length)} questions drawn at random (seed ${sel.seed ?? 0}, stratified by question type and episode) from ${phrase}`;
  }
  if (typeof sel.limit === 'string') {
    const [from, to] = sel.limit.split('-').map(Number) as [number, number];
    if (from > questions.length)
      throw new InputError(
        `range ${sel.limit} starts after the last question (${phrase}): give a range within 1-${fmt(questions.length)}`,
        {
          place: '--limit',
        },
      );
    const end = Math.min(to, questions.length);
    questions = questions.slice(from - 1, end);
    phrase = `questions ${fmt(from)}-${fmt(end)} of ${phrase}`;
  } else if (sel.limit != null && sel.limit < questions.length) {
    questions = questions.slice(0, sel.limit);
    phrase = `first ${fmt(questions.length)} of ${phrase}`;
  }
  const spread = `${count(questions, (q) => q.episode)} of ${count(all, (q) => q.episode)} episodes, ${count(questions, (q) => q.type)} of ${count(all, (q) => q.type)} question types`;
  return { questions, description: `${phrase}: ${spread}` };
}

/** The listed questions, in dataset order; unknown or repeated ids are an input error. */
function byIds(dataset: Dataset, list: IdList): Question[] {
  const known = new Map(dataset.questions.map((q) => [q.id, q]));
  const seen = new Map<string, number>();
  const unknown: Array<{ id: string; line: number }> = [];
  const leftOut: Array<{ id: string; line: number; why: string }> = [];
  for (const e of list.entries) {
    const first = seen.get(e.id);
    if (first !== undefined)
      throw new InputError(`id '${e.id}' is listed twice (first on line ${first})`, { file: list.file, place: `line ${e.line}` });
    seen.set(e.id, e.line);
    const why = dataset.leftOut?.get(e.id);
    if (why !== undefined) leftOut.push({ ...e, why });
    else if (!known.has(e.id)) unknown.push(e);
  }
  // A question of the file that the benchmark's own options left out is named as such, not as unknown.
  if (leftOut.length > 0 && unknown.length === 0) {
    const shown = leftOut
      .slice(0, LISTED)
      .map((u) => `'${u.id}' (line ${u.line}: ${u.why})`)
      .join(', ');
    const more = leftOut.length > LISTED ? ` and ${leftOut.length - LISTED} more` : '';
    throw new InputError(
      `${leftOut.length} ${leftOut.length === 1 ? 'id is a question' : 'ids are questions'} of ${dataset.benchmark} outside the selected ones: ${shown}${more}`,
      { file: list.file, place: `line ${leftOut[0]!.line}` },
    );
  }
  if (unknown.length > 0) {
    const shown = unknown
      .slice(0, LISTED)
      .map((u) => `'${u.id}' (line ${u.line})`)
      .join(', ');
    const more = unknown.length > LISTED ? ` and ${unknown.length - LISTED} more` : '';
    const example = dataset.questions[0] ? `; ids look like '${dataset.questions[0].id}'` : '';
    throw new InputError(
      `${unknown.length} ${unknown.length === 1 ? 'id is not a question' : 'ids are not questions'} of ${dataset.benchmark}: ${shown}${more}${example}`,
      { file: list.file, place: `line ${unknown[0]!.line}` },
    );
  }
  if (list.entries.length === 0) throw new InputError('the id list is empty', { file: list.file });
  return dataset.questions.filter((q) => seen.has(q.id));
}

/**
 * N questions spread over question types in proportion to their sizes, then within each type
 * over episodes likewise (largest remainder at both levels, ties by a seeded draw), so the type
 * mix is right even when N is smaller than the number of type x episode strata; drawn at random
 * within each stratum and returned in dataset order.
 */
export function stratifiedSample(questions: Question[], n: number, seed: number): Question[] {
  const rng = seedrandom(`rawrag-sample:${seed}`);
  const chosen = new Set<Question>();
  // Map insertion order is dataset order: the draw depends only on the data, the seed and n.
  const types = groupBy(questions, (q) => q.type);
  const perType = allocate(
    types.map((g) => g.length),
    n,
    rng,
  );
  types.forEach((typeQs, t) => {
    const episodes = groupBy(typeQs, (q) => q.episode);
    const perEpisode = allocate(
      episodes.map((g) => g.length),
      perType[t]!,
      rng,
    );
    episodes.forEach((qs, e) => {
      for (const q of shuffle(qs, rng).slice(0, perEpisode[e])) chosen.add(q);
    });
  });
  return questions.filter((q) => chosen.has(q));
}

/** `n` split over groups of the given sizes in proportion (largest remainder), never above a size. */
function allocate(sizes: number[], n: number, rng: () => number): number[] {
  const total = sizes.reduce((a, b) => a + b, 0);
  const take = sizes.map((s) => Math.floor((n * s) / total));
  const order = sizes
    .map((s, i) => ({ i, remainder: (n * s) / total - take[i]!, tie: rng() }))
    .sort((a, b) => b.remainder - a.remainder || a.tie - b.tie);
  let left = n - take.reduce((a, b) => a + b, 0);
  for (const { i } of order) {
    if (left === 0) break;
    if (take[i]! < sizes[i]!) {
      take[i]!++;
      left--;
    }
  }
  return take;
}

function groupBy(qs: Question[], key: (q: Question) => string): Question[][] {
  const groups = new Map<string, Question[]>();
  for (const q of qs) {
    const k = key(q);
    let g = groups.get(k);
    if (!g) groups.set(k, (g = []));
    g.push(q);
  }
  return [...groups.values()];
}

function shuffle<T>(xs: T[], rng: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * Parses an id list: one question id per line; blank lines and `#` comments are skipped; a JSON
 * line `{"id": ...}` (an answers or items file) gives its `id`.
 */
export function parseIdList(text: string, file: string): IdList {
  const entries: IdList['entries'] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    let id = line;
    if (line.startsWith('{')) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch (e) {
        throw new InputError(`not valid JSON (${(e as Error).message})`, { file, place: `line ${i + 1}` });
      }
      const v = (parsed as { id?: unknown }).id;
      if (typeof v !== 'string' || v === '') throw new InputError('a JSON line needs a string "id"', { file, place: `line ${i + 1}` });
      id = v;
    }
    entries.push({ id, line: i + 1 });
  });
  return { file, entries };
}

/**
 * `--ids`: a file (one id a line), or the ids themselves, comma-separated (`--ids a,b,c`; one id
 * alone when no file of that name exists and it does not look like a path). Inline ids are
 * reported as `--ids`, entry N.
 */
export function readIdList(file: string): IdList {
  const looksLikePath = /[\\/]|\.(txt|jsonl?|csv)$/i.test(file);
  if (!existsSync(file) && (file.includes(',') || !looksLikePath)) {
    const ids = file.split(',').map((s) => s.trim());
    return { file: '--ids', entries: ids.flatMap((id, i) => (id === '' ? [] : [{ id, line: i + 1 }])) };
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read the id list (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file });
  }
  return parseIdList(text, file);
}

function count(qs: Question[], key: (q: Question) => string): number {
  return new Set(qs.map(key)).size;
}

/** 1,540: toLocaleString('en-US') for counts, without loading ICU's number formatting (~20 ms at the first call). */
function fmt(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
