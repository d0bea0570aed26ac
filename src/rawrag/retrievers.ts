/** Builds the retriever a config names. */
import type { RunConfig } from '../config/schema.js';
import type { Retriever } from './retriever.js';
import { createLocalRetriever } from './local/index.js';
import { InputError } from '../util/errors.js';

export const RETRIEVER_NAMES = ['local'] as const;

export async function createRetriever(cfg: RunConfig): Promise<Retriever> {
  switch (cfg.retrieval.retriever) {
    case 'local':
      return createLocalRetriever();
    default:
      throw new InputError(`unknown retriever '${cfg.retrieval.retriever}' (known: ${RETRIEVER_NAMES.join(', ')})`, { place: '--retriever' });
  }
}
