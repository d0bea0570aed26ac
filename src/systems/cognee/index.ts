/**
 * Cognee (topoteretes/cognee, a Python library) through its sidecar, integrations/sidecars/cognee.py:
 * `rawrag systems install cognee` once (cognee from the package index, with its turso extra), then a
 * run without `-S url=` starts it for you. Its stores are embedded under the sidecar's state folder
 * (SQLite, LanceDB, and a local Turso graph file in place of the default Ladybug graph, which wants
 * a network download). Cognee publishes no LoCoMo runner: the protocol is rawrag's own (protocol.ts).
 */
import { z } from 'zod';
import type { InstallSpec } from '../../core/install-spec.js';
import { sidecarSystem, type SidecarConfig } from '../http/sidecar.js';
import { COGNEE_PROTOCOL } from './protocol.js';

export const COGNEE_VERSION = '1.6.5';
export const COGNEE_LABEL = 'Cognee (Turso graph)';

export const COGNEE_INSTALL: InstallSpec = {
  python: '>=3.10,<3.15',
  packages: [`cognee[turso]==${COGNEE_VERSION}`],
  library: { name: 'cognee', version: COGNEE_VERSION },
  script: 'integrations/sidecars/cognee.py',
  env: { TELEMETRY_DISABLED: '1', LITELLM_LOCAL_MODEL_COST_MAP: 'True' },
  // Its chunker and token counts use tiktoken with the OpenAI models (the embedder's cl100k_base, the LLM's o200k_base).
  tiktoken: ['cl100k_base', 'o200k_base'],
  notes: [
    "graph store: a local Turso file (GRAPH_DATABASE_PROVIDER=turso, the turso extra's pyturso) in place of Cognee's default Ladybug database, whose adapter installs Ladybug's JSON extension from the network: runs are labelled \"Cognee (Turso graph)\"",
  ],
};

const SEARCH_TYPES = ['CHUNKS', 'CHUNKS_LEXICAL', 'SUMMARIES'] as const;

export const cognee = sidecarSystem({
  name: 'cognee',
  label: COGNEE_LABEL,
  description: "Cognee (a Python library) behind its sidecar, under rawrag's declared LoCoMo protocol (Cognee publishes none)",
  script: 'integrations/sidecars/cognee.py',
  setup: [
    `rawrag systems install cognee   (cognee[turso] ${COGNEE_VERSION} from the package index; SQLite, LanceDB and the Turso graph file are embedded: no store to start)`,
  ],
  env: [
    { name: 'OPENAI_API_KEY', description: "the library's LLM and embedding key (LLM_API_KEY / EMBEDDING_API_KEY when set)" },
    {
      name: 'OPENAI_BASE_URL',
      description: "the library's OpenAI-compatible endpoint for its LLM and embeddings (LLM_ENDPOINT / EMBEDDING_ENDPOINT when set)",
    },
    {
      name: 'COGNEE_LLM_MODEL',
      description: "the library's LLM (default: Cognee's own LLM_MODEL default); COGNEE_EMBEDDING_MODEL its embedding model",
    },
  ],
  top_k: 15,
  options: {
    search_type: z
      .enum(SEARCH_TYPES)
      .default('CHUNKS')
      .describe(
        "the SearchType each question runs, retrieval only (the benchmark's reader answers): CHUNKS (passages by vector similarity, default), CHUNKS_LEXICAL (passages by BM25-style lexical ranking) or SUMMARIES (cognify's chunk summaries)",
      ),
    chunk_size: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("cognify's chunk_size in tokens (default: the library's own, from its embedding and LLM limits)"),
  },
  flagsOf: (cfg: SidecarConfig) => [
    ...(cfg.search_type && cfg.search_type !== 'CHUNKS' ? ['--search-type', String(cfg.search_type)] : []),
    ...(cfg.chunk_size ? ['--chunk-size', String(cfg.chunk_size)] : []),
  ],
  install: COGNEE_INSTALL,
  // What the real-library tier ran (tests/real/cognee.test.ts), against the loopback OpenAI-compatible API.
  checked: {
    kind: 'real',
    library: 'cognee (Turso graph file, LanceDB, SQLite)',
    version: COGNEE_VERSION,
    date: '2026-12-07',
    how: "tests/real/cognee.test.ts (npm run test:real): rawrag run locomo --system cognee --reader gpt-4o-mini --limit 20, started for you, against the loopback API answering Cognee's own KnowledgeGraph and SummarizedContent prompts: 0 errors; conv-26's 19 session documents cognified into 19 chunks (every turn in one), 19 summaries and 94 entities; CHUNKS search; then purged (verified, 0 left)",
  },
  protocol: COGNEE_PROTOCOL,
});
