/**
 * Letta (MemGPT) as its public LoCoMo benchmark drives it (`--system letta`): the V1 server (letta
 * 0.16.8 from the package index, `rawrag systems install letta`, then started for you: `letta
 * server` on SQLite under the run's state folder, its OpenAI provider at the configured
 * OpenAI-compatible endpoint) or any Letta server at `-S url=`, through its REST API (client.ts):
 * one folder per conversation, one text file per session, processing waited on, each question run
 * through the agent's own `semantic_search_files` and the passages shown to rawrag's reader
 * (protocol.ts).
 */
import { z } from 'zod';
import type { InstallSpec } from '../../core/install-spec.js';
import { promptFile } from '../../scoring/prompts.js';
import { serviceSettingsShape, type ServiceSettings } from '../memory-service/config.js';
import { serviceSystem } from '../memory-service/plugin.js';
import { LettaService } from './client.js';
import { LETTA_PROTOCOL } from './protocol.js';

const KEY_ENV = 'LETTA_API_KEY';
/** configs/prompts/ file of the script's agent prompt (letta-SOURCE.md). */
export const LETTA_AGENT_PROMPT = 'letta-locomo-agent';

/**
 * The last release of Letta's V1 server (letta >= 0.32 on the index is "Letta Code", another
 * product), with its server and SQLite extras, every requirement at the version of its authors'
 * lock (today's releases of its open-ended requirements do not import together). pip 23.2 (Python
 * 3.11.7's) stops on its requirements with an internal resolver error on `lxml[html-clean]`; a
 * current pip resolves them.
 */
export const LETTA_INSTALL: InstallSpec = {
  python: '>=3.11,<3.14',
  pip: { version: 'pip==26.3', why: "Python 3.11's pip 23.2 fails resolving letta's requirements (AssertionError: Candidate is not for this requirement lxml[html-clean,html-clean])" },
  packages: ['letta[server,sqlite]==0.16.8'],
  constraints: {
    file: 'integrations/sidecars/letta-constraints.txt',
    source: 'letta-ai/letta@56ba9c25552605eec89de8ed3dc6394b625c1993 uv.lock (branch archive, letta 0.16.8)',
  },
  library: { name: 'letta', version: '0.16.8' },
  script: 'integrations/sidecars/letta.py',
  env: { LETTA_TELEMETRY_ENABLE_DATADOG: 'false', LETTA_OTEL_EXPORTER_OTLP_ENDPOINT: '' },
  tiktoken: ['cl100k_base', 'o200k_base'],
  notes: [
    "every requirement at the version of letta 0.16.8's own uv.lock (integrations/sidecars/letta-constraints.txt)",
    "Letta's V1 server (letta 0.16.8, its last release before the package became Letta Code) on SQLite under the run's state folder; NLTK's punkt_tab, which it tries to download at start-up, is not fetched (it only warns)",
  ],
};

export const LettaSchema = z
  .object({
    ...serviceSettingsShape({ keyEnv: KEY_ENV, batch: 'session', top_k: 5, owners: 'per-episode' }),
    mode: z
      .enum(['search'])
      .default('search')
      .describe(
        "search: rawrag runs the agent's own semantic_search_files with the question and its common reader answers from the passages (the script's own agent answering, mode=agent, is not implemented)",
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
      .describe("the model named in the agent's LLM config (the agent is never asked to think in mode=search)"),
  })
  .strict();
export type LettaConfig = z.infer<typeof LettaSchema> & ServiceSettings;

export const letta = serviceSystem<LettaConfig>({
  name: 'letta',
  description: "Letta (MemGPT) under its public LoCoMo benchmark: a file per session in a folder, searched by Letta's own file search",
  about: {
    label: 'Letta',
    kind: 'service',
    captions: 'with-image',
    start: [
      "started for you: 'rawrag systems install letta' once (letta[server,sqlite] 0.16.8), then a run without -S url= starts `letta server` on SQLite under <cache>/sidecars/letta (integrations/sidecars/letta.py), its OpenAI provider at OPENAI_BASE_URL (else the reader's base URL), and stops it at the end",
      'by hand: <systems dir>/letta/venv/bin/python integrations/sidecars/letta.py --port 8283 --state DIR (or LETTA_DIR=DIR OPENAI_BASE_URL=... letta server --port 8283), then -S url=http://127.0.0.1:8283',
    ],
    env: [
      { name: 'OPENAI_BASE_URL', description: "the started server's OpenAI-compatible endpoint (its embeddings); OPENAI_API_KEY its key" },
    ],
    protocol: LETTA_PROTOCOL,
  },
  schema: LettaSchema as unknown as z.ZodType<LettaConfig>,
  connect: (cfg, key, transport) =>
    new LettaService(
      cfg.url!,
      {
        embeddingModel: cfg.embedding_model,
        embeddingDim: cfg.embedding_dim,
        chunkSize: cfg.chunk_size,
        llmModel: cfg.agent_model,
        agentSystem: promptFile(LETTA_AGENT_PROMPT),
      },
      key,
      transport,
    ),
  install: LETTA_INSTALL,
  checked: {
    kind: 'stand-in',
    why: 'not yet run on its real library here: checked against a loopback server written from its REST API (tests/helpers/fake-letta.ts)',
  },
});
