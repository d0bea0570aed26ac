/**
 * LoCoMo's official token F1 (snap-research/LoCoMo @ 3eb6f2c, task_eval/evaluation.py), offline.
 *
 * normalize_answer: drop ',' -> lower -> remove ASCII punctuation -> remove the words
 * a/an/the/**and** -> collapse whitespace. f1_score: Porter-stemmed tokens, multiset overlap.
 * Category 1 (multi-hop): split prediction and gold on ',' first; for each gold sub-answer take the
 * best-matching predicted sub-answer, then average. Category 3: gold is cut at the first ';'.
 * Categories 2 and 4: f1_score on the whole strings. Category 5: 1 if the prediction says
 * "no information available" or "not mentioned".
 *
 * Stemming: npm `stemmer` implements Porter's original algorithm; the official code uses NLTK's
 * PorterStemmer in its default NLTK_EXTENSIONS mode, which adds a table of irregular forms
 * (skies->sky, dying->die, lying->lie, news->news, ...) and a few rule variants (e.g. 'ies' with a
 * short stem -> 'ie'). Scores can therefore differ on such words; the difference is confined to rare
 * tokens and both sides of a comparison are stemmed the same way.
 */
import { multisetF1 } from '../../scoring/token-f1.js';
import { stemmer } from 'stemmer';
import type { Metric } from '../../core/protocol.js';
import type { Question } from '../../core/schema.js';

/** Python's string.punctuation. */
const PUNCT = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;
/** `\b(a|an|the|and)\b` with Python `regex`'s Unicode word boundaries. */
const ARTICLES = /(?<![\p{L}\p{N}_])(a|an|the|and)(?![\p{L}\p{N}_])/gu;

export function normalizeAnswer(s: string): string {
  let t = s.replaceAll(',', '').toLowerCase();
  t = t.replace(PUNCT, '');
  t = t.replace(ARTICLES, ' ');
  return t.split(/\s+/).filter(Boolean).join(' ');
}

function tokens(s: string): string[] {
  return normalizeAnswer(s)
    .split(' ')
    .filter(Boolean)
    .map((w) => stemmer(w));
}

/** `f1_score(prediction, ground_truth)`. */
export function tokenF1(prediction: string, groundTruth: string): number {
  return multisetF1(tokens(prediction), tokens(groundTruth));
}

/** `f1(prediction, ground_truth)`: the multi-hop sub-answer rule. */
export function subAnswerF1(prediction: string, groundTruth: string): number {
  const preds = prediction.split(',').map((p) => p.trim());
  const golds = groundTruth.split(',').map((g) => g.trim());
  const best = golds.map((g) => Math.max(...preds.map((p) => tokenF1(p, g))));
  return best.reduce((a, b) => a + b, 0) / best.length;
}

/** The per-category rule of `eval_question_answering`. */
export function locomoF1(prediction: string, gold: string, category: number): number {
  switch (category) {
    case 1:
      return subAnswerF1(prediction, gold);
    case 3:
      return tokenF1(prediction, gold.split(';')[0]!.trim());
    case 5: {
      const p = prediction.toLowerCase();
      return p.includes('no information available') || p.includes('not mentioned') ? 1 : 0;
    }
    default:
      return tokenF1(prediction, gold);
  }
}

export const locomoF1Metric: Metric = {
  name: 'f1',
  score(answer: string, q: Question): number | null {
    const cat = typeof q.typeId === 'number' ? q.typeId : Number(q.typeId);
    return Number.isInteger(cat) ? locomoF1(answer, q.gold, cat) : null;
  },
};
