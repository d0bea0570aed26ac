/** Builds the retriever a config names. */
import type { RunConfig } from '../config/schema.js';
import type { Embedder, FirstStage, Retriever } from '../core/retriever.js';
import { createLocalRetriever } from './local/index.js';
import { createFullContextRetriever } from './full-context.js';
import { DenseFirstStage } from './flat-index.js';
import { InputError } from '../util/errors.js';
import { ProviderSession } from '../providers/session.js';
import { remoteStages } from './remote/index.js';

import { RETRIEVER_NAMES } from '../config/schema.js';
export { RETRIEVER_NAMES };

/**
 * `openai` = text-embedding-3-small + Cohere rerank-v3.5, `qwen3` = Qwen3-Embedding-4B +
 * Qwen3-Reranker-4B (models as configs/models.yaml names them). Without keys or endpoints for
 * them the run stops before anything is sent, or, under `--fallback local`, runs `local` and says
 * so in the retriever's notes (a reproduction must not report another retriever's numbers silently).
 */
export async function createRetriever(cfg: RunConfig, session: ProviderSession = new ProviderSession()): Promise<Retriever> {
  const name = cfg.retrieval.retriever;
  switch (name) {
    case 'local':
    case 'local-lexical': // the name from when `local` carried the sentence encoder: now the same as `local`
    case 'local-dense':
      return createLocalRetriever({ dense: name === 'local-dense', name });
    case 'full-context':
      return createFullContextRetriever();
    case 'openai':
    case 'qwen3': {
      const stages = remoteStages(session, name);
      if (!stages.ok) {
        if (session.transport.fallback !== 'local')
          throw new InputError(
            `retriever '${name}' cannot run here: ${stages.reasons.join('; ')} (or add --fallback local to run the local retriever instead)`,
            { place: '--retriever' },
          );
        const local = createLocalRetriever();
        // The fallback first: it is what the user most needs to know about this run.
        return {
          ...local,
          notes: [
            `retriever '${name}' unavailable (${stages.reasons.join('; ')}): fell back to the local retriever (--fallback local)`,
            ...local.notes,
          ],
        };
      }
      return {
        name: `${stages.embedder.name}+${stages.reranker.name}`,
        firstStage: withPrefetch(new DenseFirstStage(stages.embedder), stages.embedder),
        reranker: stages.reranker,
        notes: [],
        cheapDeepRanking: false,
        remote: true,
      };
    }
    default:
      throw new InputError(`unknown retriever '${name}' (known: ${RETRIEVER_NAMES.join(', ')})`, { place: '--retriever' });
  }
}

/**
 * What each retriever is, as data (dry runs and estimates read this instead of testing names):
 * `selectsAll` = every chunk is evidence (no ranking); remote pairs are looked up in the model
 * registry's `retrievers` table under the retriever's name.
 */
export const RETRIEVER_TRAITS: Record<(typeof RETRIEVER_NAMES)[number], { selectsAll: boolean; local: boolean }> = {
  local: { selectsAll: false, local: true },
  'local-lexical': { selectsAll: false, local: true },
  'local-dense': { selectsAll: false, local: true },
  openai: { selectsAll: false, local: false },
  qwen3: { selectsAll: false, local: false },
  'full-context': { selectsAll: true, local: true },
};

/** True for the embedded retrievers (no provider is called). */
export function isLocalRetriever(name: string): boolean {
  return RETRIEVER_TRAITS[name as keyof typeof RETRIEVER_TRAITS]?.local === true;
}

/** A dense first stage whose question embeddings can be fetched in one batch up front. */
function withPrefetch(stage: DenseFirstStage, embedder: Embedder): FirstStage {
  return {
    name: stage.name,
    prepare: (ep) => stage.prepare(ep),
    prefetch: async (queries) => {
      await embedder.embed([...new Set(queries)], 'query');
    },
  };
}
