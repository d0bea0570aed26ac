/** a-mem's own prompts (tests/helpers/library-responders.ts says which source each answers), as a loopback responder. */
import { aMemAnalysis, aMemEvolution, aMemKeywords } from '../library-responders.js';
import type { Responder } from './types.js';

export const responders: Responder[] = [aMemAnalysis, aMemEvolution, aMemKeywords].map((answer) => ({
  library: 'a-mem',
  matches: (req) => answer(req.body) !== null,
  answer: (req) => answer(req.body)!,
}));
