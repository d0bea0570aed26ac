/**
 * RAW-RAG, the paper's method: a window retriever (first stage + cross-encoder reranker) over the
 * raw history, no LLM at ingest. The reference system: stats pairs others against it and its
 * summaries print the paper's figure beside the run's.
 */
import type { SystemDescriptor } from '../../core/system.js';
import type { ModelEntry } from '../../providers/models.js';
import type { ProviderSession } from '../../providers/session.js';
import { createRetriever } from '../../retrieval/retrievers.js';
import { estimateRawRag } from './estimate.js';
import { rawRagSource } from './source.js';

export const rawRag: SystemDescriptor<ProviderSession, ModelEntry> = {
  name: 'raw-rag',
  description: "the paper's method: dense retrieval + reranking over the raw history (default)",
  about: { label: 'RAW-RAG', kind: 'method' },
  reference: true,
  async create(cfg, session) {
    return rawRagSource(await createRetriever(cfg, session), cfg.retrieval.rerank);
  },
  estimate: estimateRawRag,
};
