/**
 * Letta (MemGPT) as its public LoCoMo benchmark drives it (`--system letta`): the V1 server (letta
 * 0.11.7 from the package index, the last release whose server runs on SQLite; `rawrag systems
 * install letta`, then started for you: `letta server` on SQLite under the run's state folder, its
 * OpenAI provider at the configured OpenAI-compatible endpoint) or any Letta server at `-S url=`,
 * through its REST API (protocol.md). -S mode=search (client.ts): one folder per conversation, one
 * text file per session, processing waited on, each question sent to an agent whose first and last
 * tool is Letta's own `semantic_search_files`, the passages it found shown to rawrag's reader;
 * mode=agent (client.ts): the same folder, each question's agent answering itself through the
 * script's answer_question tool (the source declares `answersItself`: no reader); mode=archival
 * (archival.ts): a passage per session in a per-conversation agent's archival memory, each question
 * searched there directly, rawrag's reader answering.
 */
import { z } from 'zod';
import type { InstallSpec } from '../../core/install-spec.js';
import { promptFile } from '../../scoring/prompts.js';
import { serviceSettingsShape, type ServiceSettings } from '../memory-service/config.js';
import { serviceSystem } from '../memory-service/plugin.js';
import { LettaArchival } from './archival.js';
import { LettaService } from './client.js';
import { readProtocol } from '../protocol-file.js';

const KEY_ENV = 'LETTA_API_KEY';
/** What each question is asked through (protocol.md): the script's file search by an agent, or Letta's archival search. */
export const LETTA_MODES = ['search', 'archival', 'agent'] as const;
/** configs/prompts/ file of the docstring of the script's answer_question tool (mode=agent; letta-SOURCE.md). */
export const LETTA_ANSWER_TOOL_DOC = 'letta-answer-question';
/** configs/prompts/ file of the script's agent prompt (letta-SOURCE.md). */
export const LETTA_AGENT_PROMPT = 'letta-locomo-agent';

/**
 * Letta's V1 server at its last release that runs on SQLite (0.11.7: from 0.12 its server/db.py
 * builds a Postgres engine only, whatever the settings say; the last V1 release is 0.16.8, and
 * letta >= 0.32 on the index is "Letta Code", another product), with its server and SQLite extras,
 * every requirement at the version of its authors' lock (today's releases of its open-ended
 * requirements do not import together). pip 23.2 (Python 3.11.7's) stops on letta's requirements
 * with an internal resolver error on `lxml[html-clean]`; a current pip resolves them.
 */
export const LETTA_INSTALL: InstallSpec = {
  python: '>=3.11,<3.14',
  pip: {
    version: 'pip==26.3',
    why: "Python 3.11's pip 23.2 fails resolving letta's requirements (AssertionError: Candidate is not for this requirement lxml[html-clean,html-clean])",
  },
  packages: ['letta[server,sqlite]==0.11.7'],
  constraints: {
    file: 'integrations/sidecars/letta-constraints.txt',
    source: 'letta-ai/letta@bf9356ceaf8ac4c80f1b418f209ad49b04986885 uv.lock (tag 0.11.7)',
  },
  library: { name: 'letta', version: '0.11.7' },
  script: 'integrations/sidecars/letta.py',
  env: { LETTA_TELEMETRY_ENABLE_DATADOG: 'false', LETTA_OTEL_EXPORTER_OTLP_ENDPOINT: '' },
  tiktoken: ['cl100k_base', 'o200k_base'],
  notes: [
    "every requirement at the version of letta 0.11.7's own uv.lock (integrations/sidecars/letta-constraints.txt)",
    "Letta's V1 server at 0.11.7, its last release that runs on SQLite (0.12 to 0.16.8, the last V1 release, need Postgres with pgvector), on SQLite under the run's state folder; NLTK's punkt_tab, which it tries to download at start-up, is not fetched (it only warns)",
  ],
};

export const LettaSchema = z
  .object({
    ...serviceSettingsShape({ keyEnv: KEY_ENV, batch: 'session', top_k: 5, owners: 'per-episode' }),
    mode: z
      .enum(LETTA_MODES)
      .default('search')
      .describe(
        "search (default): a file per session in a folder per conversation (the script's), each question sent to a fresh Letta agent whose first and last tool is semantic_search_files (its LLM writes the search), rawrag's common reader answering from the passages it found; archival: each session written as one archival passage of a per-conversation agent (POST /v1/agents/{id}/archival-memory, dated by the session), each question searched directly (GET /v1/agents/{id}/archival-memory/search, top_k; no LLM call at query time), rawrag's common reader answering from the passages found; agent: the script's whole protocol, the folder as in search, each question's agent (semantic_search_files first, answer_question terminal) answering itself: its answer_question return is the item's answer, judged (no reader is called; the run's setting names the agent's LLM, -S agent_model)",
      ),
    endpoint: z
      .string()
      .url()
      .nullable()
      .default(null)
      .describe(
        "the OpenAI-compatible endpoint the folder's embedding config and the agent's LLM config name (the script: https://api.openai.com/v1); unset: the one rawrag gave the server it started, else the server's own OPENAI_BASE_URL",
      ),
    embedding_model: z
      .string()
      .min(1)
      .default('text-embedding-3-large')
      .describe("the folder's embedding model, one the server offers (GET /v1/models/embedding; the script: text-embedding-3-large)"),
    embedding_dim: z.number().int().positive().default(1536).describe("the folder's embedding dimension (the script: 1536)"),
    chunk_size: z
      .number()
      .int()
      .positive()
      .default(100_000)
      .describe("the folder's embedding chunk size in tokens (the script: 100000, one passage per session file)"),
    agent_model: z
      .string()
      .min(1)
      .default('gpt-4o-mini')
      .describe(
        "the agents' LLM, on the same endpoint: mode=search, it writes each question's one search; mode=agent, it searches and answers (the run's answerer); mode=archival, named in the per-conversation agent's config, never called",
      ),
  })
  .strict();
export type LettaConfig = z.infer<typeof LettaSchema> & ServiceSettings;

export const letta = serviceSystem<LettaConfig>({
  name: 'letta',
  description:
    "Letta (MemGPT) under its public LoCoMo benchmark: a file per session in a folder, searched by Letta's own file search (-S mode=agent: its agent answers; mode=archival: archival passages)",
  about: {
    label: 'Letta',
    kind: 'service',
    captions: 'with-image',
    start: [
      "started for you: 'rawrag systems install letta' once (letta[server,sqlite] 0.11.7), then a run without -S url= starts `letta server` on SQLite under <cache>/sidecars/letta (integrations/sidecars/letta.py), its OpenAI provider at OPENAI_BASE_URL (else the reader's base URL), and stops it at the end",
      'by hand: <systems dir>/letta/venv/bin/python integrations/sidecars/letta.py --port 8283 --state DIR (or LETTA_DIR=DIR OPENAI_BASE_URL=... letta server --port 8283), then -S url=http://127.0.0.1:8283',
    ],
    env: [
      {
        name: 'OPENAI_BASE_URL',
        description: "the started server's OpenAI-compatible endpoint (its embeddings, its agents' LLM); OPENAI_API_KEY its key",
      },
    ],
    protocol: readProtocol(import.meta.url),
  },
  schema: LettaSchema as unknown as z.ZodType<LettaConfig>,
  connect: (cfg, key, transport) => {
    const opts = {
      endpoint: cfg.endpoint ?? transport.endpoint ?? null,
      embeddingModel: cfg.embedding_model,
      embeddingDim: cfg.embedding_dim,
      chunkSize: cfg.chunk_size,
      llmModel: cfg.agent_model,
      agentSystem: promptFile(LETTA_AGENT_PROMPT),
      answerDoc: cfg.mode === 'agent' ? promptFile(LETTA_ANSWER_TOOL_DOC) : null,
    };
    return cfg.mode === 'archival' ? new LettaArchival(cfg.url!, opts, key, transport) : new LettaService(cfg.url!, opts, key, transport);
  },
  // mode=agent: the script's agent answers (its answer_question return), with -S agent_model.
  answersItself: (cfg) => (cfg.mode === 'agent' ? { model: cfg.agent_model } : null),
  install: LETTA_INSTALL,
  // What was run here against the loopback OpenAI-compatible API (tests/real/letta.test.ts runs the same).
  checked: {
    kind: 'real',
    library: 'letta (its V1 server, on SQLite)',
    version: '0.11.7',
    date: '2026-12-07',
    how: "rawrag run locomo --system letta --reader gpt-4o-mini --limit 20, started for you, against the loopback API answering Letta's embeddings and its agents' semantic_search_files call: 0 errors, 19 session files completed, 19 passages in its SQLite store, 100 passages shown to the reader, then purged; -S mode=archival: 0 errors, 19 archival passages dated by their sessions, 100 shown, purged to 0 rows (after the sidecar's SQLite fix); -S mode=agent: 0 errors, 40 agent steps (search, then answer_question), every answer the agent's, no reader request, purged (letta 0.16.8, the last V1 release, needs Postgres: not run)",
  },
});
