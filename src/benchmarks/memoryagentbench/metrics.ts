/**
 * MemoryAgentBench official metrics, ported from HUST-AI-HYZ/MemoryAgentBench @ 455306d
 * utils/eval_other_utils.py (spec memoryagentbench.md §2.2-2.3). Python string semantics are kept
 * where they change results: `string.punctuation` is ASCII only, `\b` and `str.split()`/`strip()`
 * are Unicode-aware in Python (JS `\b`, `\s` and `trim()` are not the same sets), `.` matches `\r`.
 * ROUGE (computed but never reported by the official code) is not ported.
 */
import { multisetF1 } from '../../scoring/token-f1.js';
import { readFileSync } from 'node:fs';

const ASCII_PUNCTUATION = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');
/** Python str.split()/strip() whitespace (includes \x1c-\x1f and \x85, excludes \ufeff). */
const PY_WS = '\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PY_WS_RUN = new RegExp(`[${PY_WS}]+`, 'u');
const PY_STRIP = new RegExp(`^[${PY_WS}]+|[${PY_WS}]+$`, 'gu');
/** Python 3 `\b(a|an|the)\b` on str: word characters are Unicode letters, numbers and `_`. */
const ARTICLES = /(?<![\p{L}\p{N}_])(?:a|an|the)(?![\p{L}\p{N}_])/gu;

export function pyStrip(s: string): string {
  return s.replace(PY_STRIP, '');
}

export function pySplit(s: string): string[] {
  return s.split(PY_WS_RUN).filter((x) => x.length > 0);
}

/** `normalize_answer`: lower, drop ASCII punctuation, articles -> space, collapse whitespace. */
export function normalizeAnswer(text: string): string {
  let out = '';
  for (const ch of text.toLowerCase()) if (!ASCII_PUNCTUATION.has(ch)) out += ch;
  return pySplit(out.replace(ARTICLES, ' ')).join(' ');
}

export function exactMatch(prediction: string, gold: string): number {
  return normalizeAnswer(prediction) === normalizeAnswer(gold) ? 1 : 0;
}

export function substringExactMatch(prediction: string, gold: string): number {
  return normalizeAnswer(prediction).includes(normalizeAnswer(gold)) ? 1 : 0;
}

/** Token F1 on normalised text; 0 when one side is yes/no/noanswer and they differ. */
export function f1(prediction: string, gold: string): number {
  const p = normalizeAnswer(prediction);
  const g = normalizeAnswer(gold);
  const special = ['yes', 'no', 'noanswer'];
  if ((special.includes(p) || special.includes(g)) && p !== g) return 0;
  return multisetF1(pySplit(p), pySplit(g));
}

export interface QaMetrics {
  exact_match: number;
  substring_exact_match: number;
  f1: number;
}

/** `calculate_metrics` without ROUGE: each metric is the max over the gold answers. */
export function calculateMetrics(prediction: string, golds: readonly string[]): QaMetrics {
  const max = (fn: (p: string, g: string) => number) => Math.max(0, ...golds.map((g) => fn(prediction, g)));
  return { exact_match: max(exactMatch), substring_exact_match: max(substringExactMatch), f1: max(f1) };
}

/**
 * `parse_output(output, "Answer:")`: the text after the first `Answer:` up to the end of its line
 * (case-insensitive), else the first line; stripped, and a leading `Answer:` stripped again.
 * Python's `.` matches `\r` (JS's does not), hence `[^\n]`.
 */
export function parseOutput(output: string, prefix = 'Answer:'): string {
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`(?:${escaped})([^\\n]*)(?:\\n|$)`, 'i').exec(output) ?? /^([^\n]*)/.exec(output)!;
  return pyStrip(pyStrip(m[1]!).replace(new RegExp(`^${escaped}`, 'i'), ''));
}

/** `default_post_process`: metrics on the raw output and on its parsed form, max of each. */
export function defaultPostProcess(output: string, golds: readonly string[]): QaMetrics {
  const raw = calculateMetrics(output, golds);
  const parsed = calculateMetrics(parseOutput(output), golds);
  return {
    exact_match: Math.max(raw.exact_match, parsed.exact_match),
    substring_exact_match: Math.max(raw.substring_exact_match, parsed.substring_exact_match),
    f1: Math.max(raw.f1, parsed.f1),
  };
}

/** `_process_icl_dataset` / `_process_eventqa_dataset`: metrics on the parsed output only. */
export function parsedOnly(output: string, golds: readonly string[]): QaMetrics {
  return calculateMetrics(parseOutput(output), golds);
}

/** EventQA's logged `eventqa_recall`: every gold (lower-cased, not normalised) inside the raw output. */
export function eventqaRecall(output: string, golds: readonly string[]): number {
  const raw = output.toLowerCase();
  return golds.every((g) => raw.includes(g.toLowerCase())) ? 1 : 0;
}

// ---- Recommendation (recsys_redial_full): recall@k against entity2id movie names ----

/** `normalize_whitespace`: Python `re.sub(r"\s+", " ", t).strip()`. */
function collapseWhitespace(t: string): string {
  return pySplit(t).join(' ');
}

/** `clean_parentheses`: innermost `(...)` groups dropped (one pass, as `re.sub(r"\([^()]*\)", "", t)`). */
function dropParentheses(t: string): string {
  return t.replace(/\([^()]*\)/g, '');
}

/** `extract_movie_name`: last `/` component, `_`/`-`/`>` -> space, `(...)` dropped, whitespace collapsed. */
export function extractMovieName(name: string): string {
  const last = name.slice(name.lastIndexOf('/') + 1);
  return collapseWhitespace(dropParentheses(last.replace(/[_\->]/g, ' ')));
}

export interface MovieCatalogue {
  /** id -> movie name (later names for the same id win, as in a dict comprehension). */
  byId: Map<number, string>;
  /** De-duplicated candidate names in first-seen order (lower-cased for matching). */
  candidates: string[];
  lower: string[];
}

export function movieCatalogue(entity2id: Record<string, number>): MovieCatalogue {
  const byId = new Map<number, string>();
  const seen = new Set<string>();
  const candidates: string[] = [];
  for (const [name, id] of Object.entries(entity2id)) {
    const movie = extractMovieName(name);
    byId.set(Number(id), movie);
    if (!seen.has(movie)) {
      seen.add(movie);
      candidates.push(movie);
    }
  }
  return { byId, candidates, lower: candidates.map((c) => c.toLowerCase()) };
}

const catalogues = new Map<string, MovieCatalogue>();

/** entity2id.json read once per path. */
export function loadMovieCatalogue(path: string): MovieCatalogue {
  let c = catalogues.get(path);
  if (!c) {
    c = movieCatalogue(JSON.parse(readFileSync(path, 'utf8')) as Record<string, number>);
    catalogues.set(path, c);
  }
  return c;
}

/** Levenshtein distance, giving up (returning `bound`) once it cannot beat `bound`. */
export function editDistance(a: string, b: string, bound = Infinity): number {
  if (Math.abs(a.length - b.length) >= bound) return bound;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let prev = new Array<number>(b.length + 1);
  let cur = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (cur[j]! < rowMin) rowMin = cur[j]!;
    }
    if (rowMin >= bound) return bound;
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}

/**
 * `extract_recommendation_list` + `clean_text_elements`: the text after the first `1.` (before it:
 * preference talk), or without one the whole text with commas as separators; split at newlines
 * (blank lines kept); each item stripped, `(...)` dropped, leading numbering dropped, whitespace
 * collapsed.
 */
export function recommendationLines(output: string): string[] {
  const at = output.indexOf('1.');
  const text = at >= 0 ? output.slice(at + 2) : output.replace(/,/g, '\n');
  return text.split('\n').map((item) => collapseWhitespace(dropParentheses(pyStrip(item)).replace(/^(?:\d+[.)、]?\s*[-—–]?\s*)?/u, '')));
}

/** Each line -> the nearest candidate title (ties: first in catalogue order). An empty line maps to the shortest title. */
export function matchTitles(lines: string[], cat: MovieCatalogue): string[] {
  return lines.map((line) => {
    const l = line.toLowerCase();
    let best = Infinity;
    let bestName = '';
    for (let i = 0; i < cat.lower.length; i++) {
      const d = editDistance(l, cat.lower[i]!, best);
      if (d < best) {
        best = d;
        bestName = cat.candidates[i]!;
        if (d === 0) break;
      }
    }
    return bestName;
  });
}

/** recall@k = |{g in gold : g in pred[:k]}| / |gold| (gold = entity ids mapped to names). */
export function recsysRecall(output: string, goldIds: readonly string[], cat: MovieCatalogue, k: number): number | null {
  const gold = goldIds.map((x) => cat.byId.get(Number(x.trim())));
  if (gold.length === 0 || gold.some((g) => g === undefined)) return null;
  const top = new Set(matchTitles(recommendationLines(output), cat).slice(0, k));
  return gold.filter((g) => top.has(g!)).length / gold.length;
}
