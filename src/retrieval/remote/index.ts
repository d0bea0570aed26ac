/** The remote two-stage retrievers (embeddings + reranker endpoints) a registry names. */
import { InputError } from '../../util/errors.js';
import type { ProviderSession } from '../../providers/session.js';
import { RemoteEmbedder } from './embeddings.js';
import { CohereReranker, VllmReranker } from './rerank.js';
import type { Embedder, Reranker } from '../../core/retriever.js';

export type StagePair = { ok: true; embedder: Embedder; reranker: Reranker } | { ok: false; reasons: string[] };

/** The embedder + reranker a two-stage retriever names in the registry (`retrievers.<name>`). */
export function remoteStages(session: ProviderSession, retriever: string): StagePair {
  const pair = session.registry.retrievers[retriever];
  if (!pair)
    throw new InputError(`retriever '${retriever}' is not defined in the model registry`, {
      file: session.registry.file,
      place: 'retrievers',
    });
  const embedEntry = session.model(pair.embed, 'embed');
  const rerankEntry = session.model(pair.rerank, 'rerank');
  const ea = session.availability(embedEntry, 'embed');
  const ra = session.availability(rerankEntry, 'rerank');
  const reasons = [ea, ra].filter((a): a is { ok: false; reason: string } => !a.ok).map((a) => a.reason);
  if (!ea.ok || !ra.ok) return { ok: false, reasons };
  if (embedEntry.protocol !== 'openai')
    throw new InputError(`embedding model '${embedEntry.name}' must use protocol openai`, { file: session.registry.file });
  const embedder = new RemoteEmbedder(session, embedEntry, ea.endpoint);
  const reranker =
    rerankEntry.protocol === 'cohere'
      ? new CohereReranker(session, rerankEntry, ra.endpoint)
      : rerankEntry.protocol === 'vllm-rerank'
        ? new VllmReranker(session, rerankEntry, ra.endpoint)
        : null;
  if (!reranker)
    throw new InputError(`rerank model '${rerankEntry.name}' has protocol ${rerankEntry.protocol}, which cannot rerank`, {
      file: session.registry.file,
    });
  return { ok: true, embedder, reranker };
}
