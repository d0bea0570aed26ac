/** simplemem's own prompts (tests/helpers/library-responders.ts says which source each answers), as a loopback responder. */
import { simplememResponder } from '../library-responders.js';
import type { Responder } from './types.js';

export const responders: Responder[] = [simplememResponder].map((answer) => ({
  library: 'simplemem',
  matches: (req) => answer(req.body) !== null,
  answer: (req) => answer(req.body)!,
}));
