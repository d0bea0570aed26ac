/**
 * The systems `rawrag run --system` can put under test, by name: the one place a system's name
 * maps to its implementation. Everything downstream reads the source's capabilities.
 */
import type { RunConfig } from '../config/schema.js';
import type { ProviderSession } from '../providers/session.js';
import { createRetriever } from '../retrieval/retrievers.js';
import { InputError } from '../util/errors.js';
import type { EvidenceSource } from '../core/evidence-source.js';
import { rawRagSource } from './raw-rag-source.js';
import { createAgenticMemorySource } from '../memory/source.js';

export interface SourceOptions {
  /** The run directory (a source may keep its stores there); nothing may be written before `open`. */
  runDir: string;
}

type SourceFactory = (cfg: RunConfig, session: ProviderSession, opts: SourceOptions) => Promise<EvidenceSource>;

const SOURCES: Record<string, SourceFactory> = {
  'raw-rag': async (cfg, session) => rawRagSource(await createRetriever(cfg, session), cfg.retrieval.rerank),
  'agentic-memory': (cfg, session, opts) => createAgenticMemorySource(cfg, session, opts),
};

export async function createEvidenceSource(cfg: RunConfig, session: ProviderSession, opts: SourceOptions): Promise<EvidenceSource> {
  const factory = SOURCES[cfg.system];
  if (!factory)
    throw new InputError(`system '${cfg.system}' is not available in this build (known: ${Object.keys(SOURCES).join(', ')})`, {
      place: '--system',
    });
  return factory(cfg, session, opts);
}
