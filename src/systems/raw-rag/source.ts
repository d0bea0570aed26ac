/**
 * RAW-RAG as an evidence source: a window retriever (first stage + reranker) over the episode's
 * raw history; the top-k windows are assembled into the reader's evidence (expanded to turns and
 * ordered as the benchmark's policy says). Coverage at other depths comes from the same ranking.
 */
import type { Question } from '../../core/schema.js';
import { retrieve } from '../../retrieval/retrieve.js';
import { effectiveRetrieval, rankingDepth, recordRetrieval } from '../../retrieval/ranked-evidence.js';
import type { Retriever } from '../../core/retriever.js';
import type { EvidenceSource } from '../../core/evidence-source.js';

export function rawRagSource(retriever: Retriever, rerank = true): EvidenceSource {
  const remote = retriever.remote === true;
  return {
    system: `RAW-RAG/${retriever.name}`,
    name: retriever.name,
    ranker: retriever,
    notes: retriever.notes,
    capabilities: {
      remote,
      llmAtIngest: false,
      questionRole: remote && retriever.reranker ? 'rerank' : remote ? 'embed' : null,
      ranksWindows: !retriever.selectsAll,
      cheapDeepRanking: retriever.cheapDeepRanking,
    },
    async prefetch(qs: Question[]) {
      // Only a run that reranks needs the reranker's one-time work.
      if (rerank) await retriever.warmUp?.();
      await retriever.firstStage.prefetch?.(qs.map((q) => q.text));
    },
    async open(ep) {
      const index = await retriever.firstStage.prepare(ep);
      return {
        async evidenceFor(q, item, ctx) {
          const cfg = effectiveRetrieval(ctx.cfg, retriever);
          const ranking = await retrieve(q.text, index, retriever.reranker, ep, cfg.retrieval, rankingDepth(cfg, retriever, ctx.benchmark));
          const evidence = recordRetrieval(item, q, ep, ranking, ctx.policy, cfg, ctx.benchmark);
          // Depth-k coverage means nothing when nothing was ranked.
          if (retriever.selectsAll) item.coverage_at_k = {};
          return evidence;
        },
      };
    },
  };
}
