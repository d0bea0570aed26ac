/**
 * The embedded second stage: re-scores first-stage candidates with three signals, each scaled to
 * [0, 1] for the query and weighted 1 / 1 / 2 (plus a date signal, below):
 *   lexical  BM25 of the window, divided by the best candidate's BM25;
 *   window   soft query-term coverage of the window;
 *   turn     soft query-term coverage of the window's best single turn (a focused answer
 *            inside a 256-token window should not be drowned by the window's other turns).
 * Speaker and date awareness:
 *   a question naming some of the speakers (not all) takes its turn signal from their turns only;
 *   in a chat with an assistant, the best turn is the user's (the facts asked about are theirs);
 *   date     1 when the window holds a turn said during the day or month the question names
 *            (or up to a week after: people report "yesterday", "last week"), else 0.
 * Dense (when a sentence encoder is given): cosine of the query's and the window's sentence
 *          embeddings, scaled min-max over the candidates. It catches what shares no word with
 *          the question: paraphrases, pronouns, a photo described in other terms.
 * Soft coverage = sum over distinct query terms of idf(term) * match(term, unit), divided by the
 * idf total; match = 1 when a unit word has the same stem, otherwise the best GloVe cosine
 * similarity to a unit word mapped linearly from [tau, 1] to [0, 1] ("dogs" ~ "puppy" 0.57,
 * "outdoor" ~ "hiking" 0.45; unrelated pairs sit below ~0.35). Without word vectors only exact
 * stem matches count, and the stage is still a proper lexical reranker.
 */
import type { IngestedEpisode } from '../../core/ingested-episode.js';
import { compareHits } from '../rank.js';
import type { Embedder, Reranker, Hit } from '../../core/retriever.js';
import { chunkContentWords, isStopword, stem, words } from './text-analysis.js';
import { Bm25Index, DEFAULT_BM25, bm25For, type Bm25Params } from './bm25.js';
import type { WordVectors } from './word-vectors.js';
import { parseDay, questionSpan, saidAbout } from './dates.js';
import { EMPTY_BLOCK, queryVector, rowsAbove, vectorBlock, type VectorBlock } from './cosine-scan.js';
import { dot } from './dot-rows.js';

export interface SoftRerankParams {
  /** Cosine below which two different words do not match at all. */
  tau: number;
  /**
   * GloVe rows are in corpus-frequency order: in the history, the `genericRows` most frequent
   * English words ("good", "time", "love") take exact matches only. They occur in nearly every
   * window, so a soft match on them says little about a window and costs a dot product each.
   * Query words of any frequency still soft-match the specific words of the history.
   */
  genericRows: number;
  /** Question words found in more than this share of the windows match exactly only. */
  commonShare: number;
  lexicalWeight: number;
  windowWeight: number;
  turnWeight: number;
  /** Weight of the date signal: the window holds a turn said during the day/month the question names. */
  dateWeight: number;
  /**
   * Factor on an assistant's turns (speaker `assistant`, as in chat logs between a user and a
   * model) in the best-turn signal. 0: the best turn is a user's turn. The facts a question asks
   * about are what the user said; an assistant's long replies restate the question's topic in
   * many words and would win the best-turn signal without holding the fact.
   */
  assistantTurnWeight: number;
  /** Weight of the dense signal (sentence-embedding cosine); 0 or no encoder = off. */
  denseWeight: number;
  /** Days after the named span that a turn may still report it ("yesterday", "last week"). */
  dateLagDays: number;
  bm25: Bm25Params;
}

/**
 * tau 0.4: the usual "related words" floor for 100-d GloVe (measured above). Weights 1, except
 * the best-turn signal (2) and an assistant's turns in it (0): both chosen on LoCoMo and the
 * LongMemEval-S dev split together (docs/retriever.md), so that neither benchmark alone decides.
 */
export const DEFAULT_SOFT_RERANK: SoftRerankParams = {
  tau: 0.4,
  genericRows: 1000,
  commonShare: 0.5,
  lexicalWeight: 1,
  windowWeight: 1,
  turnWeight: 2,
  dateWeight: 1,
  assistantTurnWeight: 0,
  denseWeight: 1,
  dateLagDays: 7,
  bm25: DEFAULT_BM25,
};

/** Per-episode state, built on the episode's first query and reused by the rest. */
interface EpisodeState {
  bm25: Bm25Index;
  /** Distinct content words of the episode (surface forms) and their stems. */
  vocab: Map<string, number>;
  stems: string[];
  /** Vocab ids per stem (exact matches). */
  byStem: Map<string, number[]>;
  /** Vocab words that may soft-match, and their vectors in one block (row i = softIds[i]). */
  softIds: Int32Array;
  block: VectorBlock;
  /** Postings: for each vocab word, the chunks and the turns holding it (ascending). */
  chunksOf: Postings;
  turnsOf: Postings;
  /** Best match per chunk and turn per query word (questions on one episode share words). */
  coverage: Map<string, WordCoverage>;
  /** Zeroed work arrays of one value per chunk / turn (bestPerUnit leaves them zeroed), and the units it touched. */
  chunkScratch: Float32Array;
  turnScratch: Float32Array;
  touched: Int32Array;
  /** A question's coverage of every chunk and turn (lexicalScores zeroes them first: no allocation per question). */
  chunkCoverage: Float64Array;
  turnCoverage: Float64Array;
  /** Day each turn was said (null when its date cannot be read). */
  turnDays: Array<number | null>;
  /** The episode's speakers and the words of each name (for questions that name one). */
  speakerWords: Map<string, string[]>;
  /** Sentence embedding of each chunk, filled as chunks first become candidates. */
  chunkVectors: Array<Float32Array | undefined>;
  /** Factor of each turn in the best-turn signal (assistantTurnWeight for an assistant's turns, else 1). */
  turnFactor: Float32Array;
}

/** The units (chunks or turns) holding each vocab word: unit[start[id] .. start[id + 1]), ascending. */
interface Postings {
  start: Int32Array;
  unit: Int32Array;
}

/** Vocab words a query word matches, with match values in (0, 1]. */
interface SparseMatches {
  ids: Int32Array;
  values: Float32Array;
}

/** The chunks and turns a query word matches, each with its best match value there. */
interface WordCoverage {
  chunks: Int32Array;
  chunkMatch: Float32Array;
  turns: Int32Array;
  turnMatch: Float32Array;
}

export class SoftReranker implements Reranker {
  readonly name: string;
  private readonly states = new WeakMap<IngestedEpisode, EpisodeState>();

  /**
   * `vectors()` is called on first use only, so the vectors load lazily (null = exact matches
   * only). `encoder` null = no dense signal.
   */
  constructor(
    private readonly vectors: () => WordVectors | null,
    private readonly params: SoftRerankParams = DEFAULT_SOFT_RERANK,
    private readonly encoder: Embedder | null = null,
  ) {
    this.name = encoder && params.denseWeight > 0 ? 'soft-match+dense' : 'soft-match';
  }

  async rerank(query: string, candidates: Hit[], ep: IngestedEpisode, topN: number): Promise<Hit[]> {
    const scored = this.lexicalScores(query, candidates, ep);
    if (this.encoder && this.params.denseWeight > 0 && scored.length > 0) {
      const dense = await this.denseScores(this.encoder, query, candidates, ep);
      scored.forEach((h, i) => (h.score += this.params.denseWeight * dense[i]!));
    }
    scored.sort(compareHits);
    return scored.slice(0, topN);
  }

  /** Query-to-window cosine per candidate (in candidate order), scaled to [0, 1] over the candidates. */
  private async denseScores(encoder: Embedder, query: string, candidates: Hit[], ep: IngestedEpisode): Promise<number[]> {
    const st = this.state(ep);
    const todo = [...new Set(candidates.map((h) => h.chunk).filter((c) => !st.chunkVectors[c]))];
    const [q, ...vs] = await encoder.embed([query, ...todo.map((c) => ep.chunks[c]!.text)], 'document');
    todo.forEach((c, i) => (st.chunkVectors[c] = vs[i]));
    const cos = candidates.map((h) => dot(st.chunkVectors[h.chunk]!, 0, q!, q!.length));
    const lo = Math.min(...cos);
    const hi = Math.max(...cos);
    return cos.map((x) => (hi > lo ? (x - lo) / (hi - lo) : 0));
  }

  /** Lexical, window, turn and date signals per candidate, in candidate order (unsorted). */
  private lexicalScores(query: string, candidates: Hit[], ep: IngestedEpisode): Hit[] {
    if (candidates.length === 0) return [];
    const st = this.state(ep);
    const p = this.params;
    const qWords = queryWords(query);
    const weights = qWords.map((w) => st.bm25.idf(stem(w)));
    const weightSum = weights.reduce((s, x) => s + x, 0) || 1;
    // Coverage of every chunk and turn at once, from each word's best match per unit (cached:
    // questions on one episode share words). Units a word does not match add nothing.
    const chunkCoverage = st.chunkCoverage.fill(0);
    const turnCoverage = st.turnCoverage.fill(0);
    this.wordCoverage(st, qWords).forEach((cv, j) => {
      const wj = weights[j]! / weightSum;
      for (let k = 0; k < cv.chunks.length; k++) chunkCoverage[cv.chunks[k]!]! += wj * cv.chunkMatch[k]!;
      for (let k = 0; k < cv.turns.length; k++) turnCoverage[cv.turns[k]!]! += wj * cv.turnMatch[k]!;
    });

    const span = p.dateWeight > 0 ? questionSpan(query) : null;
    const named = namedSpeakers(query, st.speakerWords);
    const lexical = st.bm25.scoresOf(query);
    let maxLexical = 0;
    for (const h of candidates) maxLexical = Math.max(maxLexical, lexical[h.chunk]!);
    return candidates.map((h) => {
      const c = ep.chunks[h.chunk]!;
      let turn = 0;
      let dated = 0;
      for (let t = c.firstTurn; t <= c.lastTurn; t++) {
        if (named && !named.has(ep.episode.turns[t]!.speaker)) continue;
        const covered = turnCoverage[t]! * st.turnFactor[t]!;
        if (covered > turn) turn = covered;
        if (span && saidAbout(st.turnDays[t]!, span, p.dateLagDays)) dated = 1;
      }
      const score =
        p.lexicalWeight * (maxLexical > 0 ? lexical[h.chunk]! / maxLexical : 0) +
        p.windowWeight * chunkCoverage[h.chunk]! +
        p.turnWeight * turn +
        p.dateWeight * dated;
      return { chunk: h.chunk, score };
    });
  }

  private state(ep: IngestedEpisode): EpisodeState {
    let st = this.states.get(ep);
    if (st) return st;
    const vocab = new Map<string, number>();
    const stems: string[] = [];
    // A unit's distinct vocab ids in first-occurrence order; `lastUnit[id]` = the last unit that took id.
    const lastUnit: number[] = [];
    let unit = 0;
    const idsOf = (contentWords: string[]): Int32Array => {
      unit++;
      const ids: number[] = [];
      for (const w of contentWords) {
        let id = vocab.get(w);
        if (id === undefined) {
          id = stems.length;
          vocab.set(w, id);
          stems.push(stem(w));
          lastUnit.push(0);
        }
        if (lastUnit[id] === unit) continue;
        lastUnit[id] = unit;
        ids.push(id);
      }
      return Int32Array.from(ids);
    };
    const chunkWords = chunkContentWords(ep).map(idsOf);
    const turnWords = ep.lines.map((l) => idsOf(words(l).filter((w) => !isStopword(w))));
    // Every word's units in one array, by word, ascending (a counting sort of the (unit, word) pairs).
    const postings = (units: Int32Array[]): Postings => {
      const start = new Int32Array(stems.length + 1);
      for (const u of units) for (let j = 0; j < u.length; j++) start[u[j]! + 1]!++;
      for (let id = 0; id < stems.length; id++) start[id + 1]! += start[id]!;
      const unit = new Int32Array(start[stems.length]!);
      const fill = start.slice(0, stems.length);
      units.forEach((u, i) => {
        for (let j = 0; j < u.length; j++) unit[fill[u[j]!]!++] = i;
      });
      return { start, unit };
    };
    const byStem = new Map<string, number[]>();
    stems.forEach((s, id) => {
      const list = byStem.get(s);
      if (list) list.push(id);
      else byStem.set(s, [id]);
    });
    const vectors = this.vectors();
    const soft: Array<[number, number]> = [];
    if (vectors) {
      for (const [w, id] of vocab) {
        if (/\d/.test(w)) continue;
        const r = vectors.row(w);
        if (r >= this.params.genericRows) soft.push([id, r]); // r = -1: no vector
      }
    }
    st = {
      bm25: bm25For(ep, this.params.bm25),
      vocab,
      stems,
      byStem,
      softIds: Int32Array.from(soft, ([id]) => id),
      block: vectors
        ? vectorBlock(
            vectors,
            soft.map(([, r]) => r),
          )
        : EMPTY_BLOCK,
      chunksOf: postings(chunkWords),
      turnsOf: postings(turnWords),
      coverage: new Map(),
      chunkScratch: new Float32Array(ep.chunks.length),
      turnScratch: new Float32Array(ep.lines.length),
      touched: new Int32Array(Math.max(ep.chunks.length, ep.lines.length)),
      chunkCoverage: new Float64Array(ep.chunks.length),
      turnCoverage: new Float64Array(ep.lines.length),
      turnDays: dayCache(ep),
      speakerWords: new Map([...new Set(ep.episode.turns.map((t) => t.speaker).filter(Boolean))].map((sp) => [sp, words(sp)])),
      chunkVectors: new Array(ep.chunks.length),
      turnFactor: Float32Array.from(ep.lines, (_, t) =>
        ep.episode.turns[t]!.speaker === 'assistant' ? this.params.assistantTurnWeight : 1,
      ),
    };
    this.states.set(ep, st);
    return st;
  }

  /** Each word's best match per chunk and per turn, computed once per episode and word. */
  private wordCoverage(st: EpisodeState, qWords: string[]): WordCoverage[] {
    return qWords.map((w) => {
      let cv = st.coverage.get(w);
      if (!cv) st.coverage.set(w, (cv = bestPerUnit(st, this.matchesFor(st, w))));
      return cv;
    });
  }

  /**
   * The vocab words `queryWord` matches: same stem (1), or GloVe cosine above tau. Words with
   * digits match exactly only: numbers and dates are identifiers, and "2022" ~ "2023" in GloVe.
   */
  private matchesFor(st: EpisodeState, queryWord: string): SparseMatches {
    const exact = st.byStem.get(stem(queryWord)) ?? [];
    const vectors = this.vectors();
    // A question word already found in most windows (a speaker's name) discriminates little even
    // exactly; its neighbours (other names) would match everywhere: exact matches only.
    const common = st.bm25.docFreq(stem(queryWord)) > this.params.commonShare * st.bm25.docCount;
    const qRow = vectors && !common && !/\d/.test(queryWord) ? vectors.row(queryWord) : -1;
    const { tau } = this.params;
    const soft = qRow >= 0 ? rowsAbove(st.block, queryVector(vectors!, qRow), tau) : null;
    const ids = new Int32Array(exact.length + (soft?.rows.length ?? 0));
    const values = new Float32Array(ids.length);
    ids.set(exact);
    values.fill(1, 0, exact.length);
    let n = exact.length;
    for (let k = 0; soft && k < soft.rows.length; k++) {
      const id = st.softIds[soft.rows[k]!]!;
      // Same-stem words are already in at 1 and have cosine ~1 to themselves anyway.
      if (exact.includes(id)) continue;
      ids[n] = id;
      values[n++] = Math.min(1, (soft.cos[k]! - tau) / (1 - tau));
    }
    return { ids: ids.subarray(0, n), values: values.subarray(0, n) };
  }
}

/** A word's best match value in each chunk and turn holding a matched word (values in (0, 1]). */
function bestPerUnit(st: EpisodeState, matches: SparseMatches): WordCoverage {
  const [chunks, chunkMatch] = bestIn(st.chunksOf, matches, st.chunkScratch, st.touched);
  const [turns, turnMatch] = bestIn(st.turnsOf, matches, st.turnScratch, st.touched);
  return { chunks, chunkMatch, turns, turnMatch };
}

/** The units holding a matched word, each with its best match value; `scratch` is left zeroed. */
function bestIn(
  { start, unit }: Postings,
  { ids, values }: SparseMatches,
  scratch: Float32Array,
  touched: Int32Array,
): [Int32Array, Float32Array] {
  let n = 0;
  for (let k = 0; k < ids.length; k++) {
    const v = values[k]!;
    const id = ids[k]!;
    for (let i = start[id]!, end = start[id + 1]!; i < end; i++) {
      const u = unit[i]!;
      if (v <= scratch[u]!) continue;
      if (scratch[u] === 0) touched[n++] = u;
      scratch[u] = v;
    }
  }
  const units = new Int32Array(n);
  const match = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const u = touched[i]!;
    units[i] = u;
    match[i] = scratch[u]!;
    scratch[u] = 0;
  }
  return [units, match];
}

/**
 * The speakers a question names, when it names some but not all of them: a question about one
 * person is answered by what that person said, so the best-turn signal looks at their turns only.
 * Whole words only: a possessive ("Melanie's kids") is about something of theirs, which either
 * speaker may describe, so it does not restrict (matching stems instead measured 0.848 on LoCoMo).
 */
function namedSpeakers(query: string, speakerWords: Map<string, string[]>): Set<string> | null {
  const qWords = new Set(words(query));
  const named = new Set([...speakerWords].filter(([, ws]) => ws.length > 0 && ws.every((w) => qWords.has(w))).map(([sp]) => sp));
  return named.size > 0 && named.size < speakerWords.size ? named : null;
}

/** Each visible turn's day; turns of one session share a date string, so parse each string once. */
function dayCache(ep: IngestedEpisode): Array<number | null> {
  const byString = new Map<string | null, number | null>();
  return ep.lines.map((_, t) => {
    const date = ep.episode.turns[t]!.date;
    if (!byString.has(date)) byString.set(date, parseDay(date));
    return byString.get(date)!;
  });
}

/** Distinct content words of the query (one surface form per stem, first occurrence wins). */
export function queryWords(query: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const w of words(query)) {
    if (isStopword(w)) continue;
    const s = stem(w);
    if (seen.has(s)) continue;
    seen.add(s);
    out.push(w);
  }
  return out;
}
