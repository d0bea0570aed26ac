/**
 * Golden tests for the official MemoryAgentBench metrics (utils/eval_other_utils.py semantics).
 * Expected values are what the Python code returns for the same inputs (worked by hand from the
 * Python definitions: ASCII-only string.punctuation, Unicode \b and str.split()).
 */
import { describe, expect, test } from 'vitest';
import {
  calculateMetrics,
  defaultPostProcess,
  editDistance,
  eventqaRecall,
  exactMatch,
  extractMovieName,
  f1,
  matchTitles,
  movieCatalogue,
  normalizeAnswer,
  parseOutput,
  parsedOnly,
  recommendationLines,
  recsysRecall,
  substringExactMatch,
} from '../../../src/benchmarks/memoryagentbench/metrics.js';

describe('normalize_answer', () => {
  test.each([
    ['The Fairly OddParents', 'fairly oddparents'],
    ['  A  cat, an apple; THE end. ', 'cat apple end'],
    // punctuation goes first, so "the-end" becomes one word and its article survives
    ['the-end', 'theend'],
    ["Levi's Stadium", 'levis stadium'],
    // string.punctuation is ASCII: the curly apostrophe, em dash and accents survive
    ['Levi’s — Stadium', 'levi’s — stadium'],
    ['pesäpallo', 'pesäpallo'],
    // Python \b is Unicode-aware: "a" between letters with accents is not an article
    ['éa the àa', 'éa àa'],
    ['theatre a', 'theatre'],
    // Python str.split() treats \x1c and \x85 as whitespace but not \ufeff
    ['a\x1cb\x85c', 'b c'],
    ['x\ufeffy', 'x\ufeffy'],
    ['label: 43', 'label 43'],
    ['', ''],
  ])('%j -> %j', (input, expected) => {
    expect(normalizeAnswer(input)).toBe(expected);
  });
});

describe('exact / substring exact match / f1', () => {
  test('substring EM looks for the gold inside the prediction', () => {
    expect(substringExactMatch('Based on the pool, the answer is The Fairly OddParents.', 'The Fairly OddParents')).toBe(1);
    expect(substringExactMatch('Fairly Odd', 'The Fairly OddParents')).toBe(0);
    // an all-article gold normalises to '' and is "found" in anything (official behaviour)
    expect(substringExactMatch('anything', 'The')).toBe(1);
  });
  test('EM is strict: "label: 43" is not "43"', () => {
    expect(exactMatch('label: 43', '43')).toBe(0);
    expect(exactMatch(' 43. ', '43')).toBe(1);
  });
  test('f1 yes/no rule and token overlap', () => {
    expect(f1('yes', 'no')).toBe(0);
    expect(f1('no', 'no')).toBe(1);
    expect(f1('the red car', 'red car fast')).toBeCloseTo(0.8, 10);
    expect(f1('red red', 'red')).toBeCloseTo(2 / 3, 10);
  });
  test('calculate_metrics takes the max over golds', () => {
    expect(calculateMetrics('normandy', ['Normandy, a region in France', 'Normandy'])).toEqual({
      exact_match: 1,
      substring_exact_match: 1,
      f1: 1,
    });
  });
});

describe('parse_output and post-processing', () => {
  test.each([
    ['Answer: Paris\nbecause ...', 'Paris'],
    // the first "answer:" (any case) starts the answer; a second leading "Answer:" is stripped too
    ['The answer: ANSWER: Rome', 'Rome'],
    ['I think\nAnswer: Berlin', 'Berlin'],
    ['first line\nsecond line', 'first line'],
    ['  label: 43  \nmore', 'label: 43'],
    // Python's "." matches \r, so the \r stays inside the line and is then stripped
    ['Answer: Oslo\r\nnext', 'Oslo'],
    ['answer:answer: Lima', 'Lima'],
  ])('%j -> %j', (raw, expected) => {
    expect(parseOutput(raw)).toBe(expected);
  });

  test('default_post_process takes the better of raw and parsed per metric', () => {
    // exact match only succeeds on the parsed first line; substring succeeds on both
    const m = defaultPostProcess('C. The Brandt couple\n{"reasoning": "..."}', ['C. The Brandt couple']);
    expect(m.exact_match).toBe(1);
    expect(m.substring_exact_match).toBe(1);
    const json = defaultPostProcess('{"answer":"C. The Brandt couple", "reasoning": "x"}', ['C. The Brandt couple']);
    expect(json.exact_match).toBe(0);
    expect(json.substring_exact_match).toBe(1);
  });

  test('ICL / EventQA score the parsed output only', () => {
    expect(parsedOnly('7\nlabel: 43', ['43']).exact_match).toBe(0);
    expect(parsedOnly('43\nthat is all', ['43']).exact_match).toBe(1);
    // the gold is on the second line: found by default_post_process (raw), not by the parsed-only path
    expect(parsedOnly('The event is:\nMara climbed the stairs', ['Mara climbed the stairs']).substring_exact_match).toBe(0);
    expect(defaultPostProcess('The event is:\nMara climbed the stairs', ['Mara climbed the stairs']).substring_exact_match).toBe(1);
  });

  test('eventqa_recall: every gold, lower-cased, in the raw output (no punctuation removal)', () => {
    expect(eventqaRecall('MARA CLIMBED the stairs.', ['Mara climbed'])).toBe(1);
    expect(eventqaRecall('Levis stadium', ["Levi's stadium"])).toBe(0);
    expect(eventqaRecall('a b', ['a', 'c'])).toBe(0);
  });
});

describe('recsys recall@k', () => {
  const cat = movieCatalogue({
    '<http://dbpedia.org/resource/Inception>': 100,
    '<http://dbpedia.org/resource/The_Matrix>': 101,
    '<http://dbpedia.org/resource/Interstellar_(film)>': 102,
    '<http://dbpedia.org/resource/Groundhog_Day_(film)>': 103,
    '<http://dbpedia.org/resource/Up>': 104,
    '<http://dbpedia.org/resource/Up_(2009_film)>': 105,
  });

  test('extract_movie_name', () => {
    expect(extractMovieName('<http://dbpedia.org/resource/Interstellar_(film)>')).toBe('Interstellar');
    expect(extractMovieName('Spider-Man_2')).toBe('Spider Man 2');
    expect(cat.candidates).toEqual(['Inception', 'The Matrix', 'Interstellar', 'Groundhog Day', 'Up']);
    // two ids with the same title: one candidate, both ids map to it
    expect(cat.byId.get(104)).toBe('Up');
    expect(cat.byId.get(105)).toBe('Up');
  });

  test('lines before the first "1." are dropped; numbering and parentheses cleaned; blank lines kept', () => {
    expect(recommendationLines('Sure! Here you go:\n1. The Matrix (1999)\n2) Interstellar\n\n3 - Inception')).toEqual([
      'The Matrix',
      'Interstellar',
      '',
      'Inception',
    ]);
    // no "1.": commas separate titles
    expect(recommendationLines('Inception, Up')).toEqual(['Inception', 'Up']);
    // the "1." itself is cut off, so a title starting with digits loses them to the numbering rule (official)
    expect(recommendationLines('1. 2001: A Space Odyssey\n2. Up   (2009)  x')).toEqual([': A Space Odyssey', 'Up x']);
    // only innermost parentheses go, in one pass
    expect(extractMovieName('Film_((a)b)_x')).toBe('Film (b) x');
  });

  test('a blank line is matched to the shortest title and occupies a rank', () => {
    expect(matchTitles(['', 'the matrx'], cat)).toEqual(['Up', 'The Matrix']);
    const reply = '1. Groundhog Day\n\n\n\n\n2. The Matrix\n3. Interstellar';
    // ranks: Groundhog Day, Up, Up, Up, Up, The Matrix, Interstellar -> only 0 of 2 golds in the top 5
    expect(recsysRecall(reply, ['101', '102'], cat, 5)).toBe(0);
    expect(recsysRecall(reply, ['101', '102'], cat, 10)).toBe(1);
    expect(recsysRecall('1. The Matrix\n2. Inception', ['101', '102'], cat, 5)).toBe(0.5);
    expect(recsysRecall('1. The Matrix', ['999'], cat, 5)).toBeNull();
  });

  test('bounded edit distance agrees with the full one below the bound', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('kitten', 'sitting', 4)).toBe(3);
    expect(editDistance('kitten', 'sitting', 2)).toBe(2);
    expect(editDistance('', 'abc')).toBe(3);
  });
});
