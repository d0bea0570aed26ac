/**
 * Cognee (topoteretes/cognee, a Python library) through its sidecar, integrations/sidecars/cognee.py:
 * `rawrag systems install cognee` once (cognee from the package index, with its turso extra), then a
 * run without `-S url=` starts it for you. Its stores are embedded under the sidecar's state folder:
 * Cognee's defaults (SQLite, LanceDB, and its Ladybug graph, whose JSON extension cognee 1.6.5
 * bundles: no download), or the graph in a local Turso file (-S graph=turso). Cognee publishes no
 * LoCoMo runner: the protocol is rawrag's own (protocol.md).
 */
import { z } from 'zod';
import type { InstallSpec } from '../../core/install-spec.js';
import { sidecarSystem, type SidecarConfig } from '../http/sidecar.js';
import { readProtocol } from '../protocol-file.js';

export const COGNEE_VERSION = '1.6.5';
export const COGNEE_LABEL = 'Cognee';
export const COGNEE_TURSO_LABEL = 'Cognee (Turso graph)';

export const COGNEE_INSTALL: InstallSpec = {
  python: '>=3.10,<3.15',
  packages: [`cognee[turso]==${COGNEE_VERSION}`],
  library: { name: 'cognee', version: COGNEE_VERSION },
  script: 'integrations/sidecars/cognee.py',
  env: { TELEMETRY_DISABLED: '1', LITELLM_LOCAL_MODEL_COST_MAP: 'True' },
  // Its chunker and token counts use tiktoken with the OpenAI models (the embedder's cl100k_base, the LLM's o200k_base).
  tiktoken: ['cl100k_base', 'o200k_base'],
  notes: [
    'the turso extra (pyturso) is installed for -S graph=turso (the graph in a local Turso file, runs labelled "Cognee (Turso graph)"); by default the graph is Cognee\'s own Ladybug database, its JSON extension the binary cognee bundles (no download)',
  ],
};

const SEARCH_TYPES = ['CHUNKS', 'CHUNKS_LEXICAL', 'SUMMARIES'] as const;

export const cognee = sidecarSystem({
  name: 'cognee',
  label: COGNEE_LABEL,
  description: "Cognee (a Python library) behind its sidecar, under rawrag's declared LoCoMo protocol (Cognee publishes none)",
  script: 'integrations/sidecars/cognee.py',
  setup: [
    `rawrag systems install cognee   (cognee[turso] ${COGNEE_VERSION} from the package index; SQLite, LanceDB and the Ladybug graph are embedded: no store to start)`,
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
    graph: z
      .enum(['ladybug', 'turso'])
      .default('ladybug')
      .describe(
        "the graph store: ladybug (Cognee's default, an embedded Ladybug/Kuzu database; its JSON extension is the binary cognee bundles) or turso (a local Turso file, GRAPH_DATABASE_PROVIDER=turso; runs labelled 'Cognee (Turso graph)')",
      ),
    chunk_size: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("cognify's chunk_size in tokens (default: the library's own, from its embedding and LLM limits)"),
  },
  flagsOf: (cfg: SidecarConfig) => [
    ...(cfg.graph === 'turso' ? ['--graph', 'turso'] : []),
    ...(cfg.search_type && cfg.search_type !== 'CHUNKS' ? ['--search-type', String(cfg.search_type)] : []),
    ...(cfg.chunk_size ? ['--chunk-size', String(cfg.chunk_size)] : []),
  ],
  labelOf: (cfg: SidecarConfig) => (cfg.graph === 'turso' ? COGNEE_TURSO_LABEL : COGNEE_LABEL),
  install: COGNEE_INSTALL,
  // What the real-library tier ran (tests/real/cognee.test.ts), against the loopback OpenAI-compatible API.
  checked: {
    kind: 'real',
    library: 'cognee (its default Ladybug graph, LanceDB, SQLite)',
    version: COGNEE_VERSION,
    date: '2026-12-07',
    how: "tests/real/cognee.test.ts (npm run test:real): rawrag run locomo --system cognee --reader gpt-4o-mini --limit 20, started for you, against the loopback API answering Cognee's own KnowledgeGraph and SummarizedContent prompts: 0 errors; conv-26's 19 session documents cognified into 19 chunks (every turn in one), 19 summaries and 94 entities; CHUNKS search; then purged (verified, 0 left). -S graph=turso ran the same run to 0 errors before the default became Ladybug",
  },
  protocol: readProtocol(import.meta.url),
});
