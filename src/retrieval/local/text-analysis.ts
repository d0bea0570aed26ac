/**
 * Text analysis for the embedded lexical retriever: lower-case word tokens, English stop words
 * removed, Porter-stemmed. Cached per surface form because conversations repeat words a lot.
 */
import { stemmer } from 'stemmer';
import type { IngestedEpisode } from '../../core/ingested-episode.js';

// A compact English stop list (function words only; content words are never dropped).
const STOP = new Set(
  `a about above after again against all am an and any are as at be because been before being below between both but by
can could did do does doing down during each few for from further had has have having he her here hers herself him himself
his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other our ours
ourselves out over own same she should so some such than that the their theirs them themselves then there these they this
those through to too under until up very was we were what when where which while who whom why will with would you your
yours yourself yourselves s t d ll m o re ve y don didn doesn isn wasn weren hasn haven hadn won wouldn shouldn couldn
also get got did does im ive id youre thats its`.split(/\s+/),
);

const stemCache = new Map<string, string>();

export function stem(word: string): string {
  let s = stemCache.get(word);
  if (s === undefined) {
    s = stemmer(word);
    stemCache.set(word, s);
  }
  return s;
}

/** Lower-cased word tokens (letters and digits; apostrophes dropped so "Caroline's" -> "carolines"). */
export function words(text: string): string[] {
  return (
    text
      .toLowerCase()
      .replace(/['’]/g, '')
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

export function isStopword(word: string): boolean {
  return STOP.has(word);
}

/** Content terms: stop words removed, stemmed. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) if (!STOP.has(w)) out.push(stem(w));
  return out;
}

const chunkWords = new WeakMap<IngestedEpisode, string[][]>();

/**
 * Each chunk's content words (stop words removed, not stemmed), analysed once per episode: the
 * BM25 index and the reranker both read them.
 */
export function chunkContentWords(ep: IngestedEpisode): string[][] {
  let out = chunkWords.get(ep);
  if (!out) {
    out = ep.chunks.map((c) => words(c.text).filter((w) => !STOP.has(w)));
    chunkWords.set(ep, out);
  }
  return out;
}
