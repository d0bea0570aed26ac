/**
 * LongMemEval's official retrieval metrics (src/retrieval/eval_utils.py, spec §2.3) computed from
 * RAW-RAG's ranked windows, offline.
 *
 * The official corpus indexes user turns only (turn level: one document per user turn; session
 * level: a session keyed by its user turns). A window ranking becomes a user-turn ranking by first
 * appearance: walking the windows best first, each new user turn a window touches is the next turn
 * (assistant turns are not documents). Session-level metrics are the official
 * `evaluate_retrieval_turn2session` over that turn ranking: each user turn stands for its session
 * id (a user turn without has_answer in an `answer` session for a different, non-gold `noans` id,
 * as the official corpus renames it); k grows to the first effective_k turns that cover k distinct
 * ids; recall is over those ids and nDCG over the turns (each gold turn is one relevant entry). k counts documents, and
 * `recall_any@k`, `recall_all@k`, `ndcg_any@k` follow eval_utils.py: binary relevance, DCG =
 * rel_1 + sum_{r>=2} rel_r / log2(r), IDCG from every gold document of the corpus at the top.
 *
 * A metric at k is null when the window ranking ended before it yielded k documents (and had not
 * ranked the whole episode): a truncated ranking would understate it. Excluded questions (official
 * `main`: abstention, and no user-side has_answer turn) get null everywhere, so they drop out of
 * every average.
 */
import type { IngestedEpisode, Chunk } from '../../core/ingested-episode.js';
import type { Question } from '../../core/schema.js';
import { sessionIdOf, type LongMemEvalMeta } from './convert.js';

export const RETRIEVAL_KS = [1, 3, 5, 10, 30, 50] as const;
export const RETRIEVAL_LEVELS = ['session', 'turn'] as const;
export const RETRIEVAL_MEASURES = ['recall_any', 'recall_all', 'ndcg_any'] as const;

/** Metric name as stored in item.metrics, e.g. `session_recall_all@5`. */
export function metricName(level: (typeof RETRIEVAL_LEVELS)[number], measure: (typeof RETRIEVAL_MEASURES)[number], k: number): string {
  return `${level}_${measure}@${k}`;
}

export function dcg(relevances: number[], k: number): number {
  const rel = relevances.slice(0, k);
  if (rel.length === 0) return 0;
  let sum = rel[0]!;
  for (let i = 1; i < rel.length; i++) sum += rel[i]! / Math.log2(i + 1);
  return sum;
}

export interface DocScores {
  recall_any: number;
  recall_all: number;
  ndcg_any: number;
}

/**
 * eval_utils.evaluate_retrieval on a document ranking: `ranked` holds distinct document ids best
 * first, `gold` the gold ids, `goldInCorpus` how many corpus documents are gold (for the IDCG).
 */
export function evaluateRanking(ranked: readonly string[], gold: ReadonlySet<string>, goldInCorpus: number, k: number): DocScores {
  const top = ranked.slice(0, k);
  const recalled = new Set(top);
  const golds = [...gold];
  const ideal = dcg(Array.from({ length: goldInCorpus }, () => 1), k);
  const actual = dcg(top.map((d) => (gold.has(d) ? 1 : 0)), k);
  return {
    recall_any: golds.some((g) => recalled.has(g)) ? 1 : 0,
    recall_all: golds.every((g) => recalled.has(g)) ? 1 : 0,
    ndcg_any: ideal === 0 ? 0 : actual / ideal,
  };
}

/** User turns in order of first appearance in the ranked windows, and their sessions in that order. */
export function documentRankings(ranked: readonly Chunk[], ep: IngestedEpisode): { sessions: string[]; turns: string[] } {
  const turns = ep.episode.turns;
  const sessions: string[] = [];
  const userTurns: string[] = [];
  const seenSessions = new Set<string>();
  const seenTurns = new Set<number>();
  for (const c of ranked) {
    for (let t = c.firstTurn; t <= c.lastTurn; t++) {
      const turn = turns[t]!;
      if (seenTurns.has(t) || turn.speaker !== 'user') continue;
      seenTurns.add(t);
      userTurns.push(turn.id);
      const session = sessionIdOf(ep.episode, turn.session);
      if (!seenSessions.has(session)) {
        seenSessions.add(session);
        sessions.push(session);
      }
    }
  }
  return { sessions, turns: userTurns };
}

/** Benchmark.rankingMetrics for LongMemEval: every level x measure x k, null where not defined. */
export function longMemEvalRankingMetrics(q: Question, ranked: Chunk[], ep: IngestedEpisode): Record<string, number | null> {
  const meta = q.meta as LongMemEvalMeta | undefined;
  const out: Record<string, number | null> = {};
  const excluded = !meta || meta.retrievalExcluded !== null;
  const docs = excluded ? null : documentRankings(ranked, ep);
  const wholeEpisodeRanked = ranked.length >= ep.chunks.length;
  const goldTurns = new Set(meta?.goldTurns ?? []);
  const keyOf = sessionKeyOf(ep, goldTurns);
  const corpus = excluded ? null : corpusSizes(ep, keyOf);
  const turnKeys = docs ? docs.turns.map(keyOf) : [];
  for (const level of RETRIEVAL_LEVELS) {
    const list = docs ? (level === 'session' ? docs.sessions : docs.turns) : [];
    const gold = new Set(meta ? (level === 'session' ? meta.goldSessions : meta.goldTurns) : []);
    const corpusSize = corpus ? corpus[level] : 0;
    for (const k of RETRIEVAL_KS) {
      const reached = list.length >= k || wholeEpisodeRanked;
      const scores = excluded
        ? null
        : level === 'session'
          ? turn2session(turnKeys, goldTurns.size, new Set([...goldTurns].map(keyOf)), corpus!.turn, k, wholeEpisodeRanked)
          : reached
            ? evaluateRanking(list, gold, gold.size, k)
            : null;
      for (const m of RETRIEVAL_MEASURES) {
        let v: number | null = scores ? scores[m] : null;
        // With k at least the corpus size every document is in the top k, officially: recall is 1
        // whatever the order (nDCG still depends on the order, so it stays unknown).
        if (v === null && !excluded && k >= corpusSize && m !== 'ndcg_any') v = 1;
        out[metricName(level, m, k)] = v;
      }
    }
  }
  return out;
}

/**
 * The official session-level id of a user turn in a turn-level corpus: its session id, except a
 * turn without has_answer in an `answer` session, which run_retrieval.py renames `noans`.
 */
export function sessionKeyOf(ep: IngestedEpisode, goldTurns: ReadonlySet<string>): (turnId: string) => string {
  const sessionOfTurn = new Map(ep.episode.turns.map((t) => [t.id, sessionIdOf(ep.episode, t.session)]));
  return (turnId) => {
    const s = sessionOfTurn.get(turnId) ?? turnId;
    return s.includes('answer') && !goldTurns.has(turnId) ? `${s.replace('answer', 'noans')}` : s;
  };
}

/**
 * eval_utils.evaluate_retrieval_turn2session on a user-turn ranking given as session-level ids
 * (`turnKeys`, best first): effective_k = the first number of turns covering k distinct ids (grown
 * up to the corpus size), then evaluate_retrieval at effective_k. null when the ranking ended before
 * effective_k and did not rank the whole episode.
 */
export function turn2session(turnKeys: readonly string[], goldTurnCount: number, goldIds: ReadonlySet<string>, corpusTurns: number, k: number, whole: boolean): DocScores | null {
  const n = turnKeys.length;
  let effectiveK = k;
  const seen = new Set(turnKeys.slice(0, k));
  while (effectiveK <= corpusTurns && seen.size < k) {
    effectiveK++;
    if (effectiveK <= n) seen.add(turnKeys[effectiveK - 1]!);
    else if (!whole) return null;
  }
  // The top effective_k turns must all be known (a whole-episode ranking knows them all).
  if (effectiveK > n && !whole) return null;
  return evaluateRanking(turnKeys, goldIds, goldTurnCount, effectiveK);
}

/** Corpus sizes as ranked here: distinct session-level ids of the user turns (official turn2session), and user turns. */
function corpusSizes(ep: IngestedEpisode, keyOf: (turnId: string) => string): { session: number; turn: number } {
  const sessions = new Set<string>();
  let user = 0;
  for (const t of ep.episode.turns.slice(0, ep.visibleTurns)) {
    if (t.speaker !== 'user') continue;
    sessions.add(keyOf(t.id));
    user++;
  }
  return { session: sessions.size, turn: user };
}
