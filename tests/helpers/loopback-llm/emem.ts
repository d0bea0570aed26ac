/** emem's own prompts (tests/helpers/library-responders.ts says which source each answers), as a loopback responder. */
import { ememEdus } from '../library-responders.js';
import type { Responder } from './types.js';

export const responders: Responder[] = [ememEdus].map((answer) => ({
  library: 'emem',
  matches: (req) => answer(req.body) !== null,
  answer: (req) => answer(req.body)!,
}));
