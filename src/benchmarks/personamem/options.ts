/**
 * How PersonaMem-v2 orders the options of a row (spec meme-personamem-beam.md §2.3):
 * - `verl` (default; verl_custom/data_preprocess.py MCQ mode and verl_custom/rag.py, the protocol of
 *   the official RAG runs): the first 4 of [correct, *incorrect], `random.seed(42 + idx);
 *   random.shuffle(...)` with idx the 0-based CSV row; letters (a)-(d).
 * - `frontier` (inference.py): [correct] + every incorrect answer, shuffled; letters A, B, ...
 *   Its seed is `hash(f"{persona_id}_{query}") % 2**32`, and Python salts str hashes per process,
 *   so that order cannot be reproduced: here it is seeded 42 + idx as well (recorded per question).
 */
import { PyRandom } from './pyrandom.js';

export const MCQ_PROTOCOLS = ['verl', 'frontier'] as const;
/** The protocol when `-B mcq-protocol` is not given (the loader and the summary share it). */
export const DEFAULT_MCQ_PROTOCOL = 'verl';
export type McqProtocol = (typeof MCQ_PROTOCOLS)[number];

export interface McqOptions {
  options: string[];
  letters: string[];
  /** Letters that count as correct (verl: the correct answer's position; frontier: any option with its text). */
  correctLetters: string[];
  seed: number;
}

export function buildOptions(protocol: McqProtocol, correct: string, incorrect: string[], rowIndex: number): McqOptions | null {
  const seed = 42 + rowIndex;
  const all = [correct, ...incorrect];
  if (protocol === 'verl') {
    if (all.length < 4) return null;
    const options = new PyRandom(seed).shuffle(all.slice(0, 4));
    const letters = options.map((_, i) => String.fromCharCode(97 + i));
    // shuffled_answers.index(correct): the first position holding the correct text.
    return { options, letters, correctLetters: [letters[options.indexOf(correct)]!], seed };
  }
  const options = new PyRandom(seed).shuffle(all);
  const letters = options.map((_, i) => String.fromCharCode(65 + i));
  return { options, letters, correctLetters: letters.filter((_, i) => options[i] === correct), seed };
}

/** `(a) text` lines (verl) or `A. text` lines (frontier), joined by newlines. */
export function renderOptions(protocol: McqProtocol, options: string[]): string {
  return options.map((o, i) => (protocol === 'verl' ? `(${String.fromCharCode(97 + i)}) ${o}` : `${String.fromCharCode(65 + i)}. ${o}`)).join('\n');
}

const FRONTIER_PATTERNS = [
  /\$\\boxed\{([A-Z])\}\$/im,
  /\\boxed\{([A-Z])\}/im,
  /Final Answer:\s*([A-Z])/im,
  /final answer:\s*([A-Z])/im,
  /Answer:\s*([A-Z])/im,
  /answer:\s*([A-Z])/im,
  /final answer is\s*\$?\\boxed\{([A-Z])\}\$?/im,
  /final answer is\s*([A-Z])/im,
  /the answer is\s*\$?\\boxed\{([A-Z])\}\$?/im,
  /the answer is\s*([A-Z])/im,
  /\b([A-Z])\.\s*$/im,
];

const VERL_PATTERNS = [
  /\$\\boxed\{([A-Za-z])\}\$/im,
  /\\boxed\{([A-Za-z])\}/im,
  /Final Answer:\s*([A-Za-z])/im,
  /final answer:\s*([A-Za-z])/im,
  /Answer:\s*([A-Za-z])/im,
  /answer:\s*([A-Za-z])/im,
  /final answer is\s*\$?\\boxed\{([A-Za-z])\}\$?/im,
  /final answer is\s*([A-Za-z])/im,
  /the answer is\s*\$?\\boxed\{([A-Za-z])\}\$?/im,
  /the answer is\s*([A-Za-z])/im,
  /\b([A-Za-z])\.\s*$/im,
];

/**
 * The letter in a reply, by the first pattern (in order) that matches anywhere (re.search with
 * IGNORECASE | MULTILINE): verl as rag/inference_rag.py (lower-cased), frontier as inference.py
 * (upper-cased). '' when none matches, which scores as wrong.
 */
export function extractLetter(protocol: McqProtocol, reply: string): string {
  if (!reply) return '';
  for (const p of protocol === 'verl' ? VERL_PATTERNS : FRONTIER_PATTERNS) {
    const m = p.exec(reply);
    if (m) return protocol === 'verl' ? m[1]!.toLowerCase() : m[1]!.toUpperCase();
  }
  return '';
}
