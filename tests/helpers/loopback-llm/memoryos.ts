/** memoryos's own prompts (tests/helpers/library-responders.ts says which source each answers), as a loopback responder. */
import { memoryosResponder } from '../library-responders.js';
import type { Responder } from './types.js';

export const responders: Responder[] = [memoryosResponder].map((answer) => ({
  library: 'memoryos',
  matches: (req) => answer(req.body) !== null,
  answer: (req) => answer(req.body)!,
}));
