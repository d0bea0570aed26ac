/**
 * MemOS under the same protocol as RAW-RAG (`--system memos -S url=URL`): a running MemOS server
 * (server_api, `/product` routes) is fed each conversation twice, once per speaker, as its vendor's
 * own LoCoMo evaluation feeds it (evaluation/scripts/locomo/locomo_ingestion.py, utils/client.py:
 * mirrored roles, "Speaker: text", the session date on every message, two messages per call), and
 * both speakers' stores are searched with top_k 20 (locomo_search.py). Unlike the vendor's script,
 * no search is sent before an owner's memories are written: adds are synchronous by default.
 */
import { z } from 'zod';
import { serviceSettingsShape, type ServiceSettings } from '../memory-service/config.js';
import { serviceSystem } from '../memory-service/plugin.js';
import type { InstallSpec } from '../../core/install-spec.js';
import { MemosService } from './client.js';
import { personaMemStanding } from '../../benchmarks/paper-system-figures.js';
import { readProtocol } from '../protocol-file.js';

const KEY_ENV = 'MEMOS_KEY';
const MEMOS_VERSION = '2.0.32';

/**
 * MemOS's own library and API server, `MemoryOS` from the package index with the extras its server
 * imports (tree-mem, mem-reader, mem-scheduler; jieba, which its internet retriever requires even when
 * off), pgserver (PostgreSQL with pgvector in a wheel) and psycopg2 for its postgres graph store, and
 * tiktoken at the version of MemOS's lock file. integrations/sidecars/memos.py configures and starts
 * it (its docstring says how); nothing is downloaded at run time.
 */
export const MEMOS_INSTALL: InstallSpec = {
  python: '>=3.10',
  packages: [
    `MemoryOS[tree-mem,mem-reader,mem-scheduler]==${MEMOS_VERSION}`,
    'pgserver==0.1.4',
    'psycopg2-binary==2.9.13',
    'jieba==0.42',
    'tiktoken==0.12.0',
  ],
  library: { name: 'MemoryOS', version: MEMOS_VERSION },
  script: 'integrations/sidecars/memos.py',
  // MemOS counts tokens with tiktoken (o200k_base for gpt-4o-mini, cl100k_base otherwise); r50k_base = GPT-2's ranks for its chunker.
  tiktoken: ['o200k_base', 'cl100k_base', 'r50k_base'],
  notes: [
    'MemoryOS 2.0.32: the index has 2.0.30, 2.0.32 and 2.0.33, not the 2.0.31 the protocol was read from (MemTensor/MemOS@be68e2fb)',
    "graph store: GRAPH_DB_BACKEND=postgres (PostgreSQL + pgvector, from pgserver) instead of the vendor compose file's Neo4j + Qdrant, which cannot run here",
    "pgvector's vector type is read back as a list of floats (the adapter pgvector's own package registers): without it MemOS's postgres backend hands its fast search a text embedding and every search answers no memories",
    "the chunker's \"gpt2\" tokenizer is tiktoken's GPT-2 byte-pair encoding built from the r50k_base ranks rawrag seeds (the same ranks), not chonkie's hub download; it chunks documents only, never chat turns",
    "no Redis (the vendor env's default), no internet search, preference memory off (it needs Milvus): searches return no pref_string",
  ],
};

export const MemosSchema = z
  .object({
    ...serviceSettingsShape({ keyEnv: KEY_ENV, batch: 2, top_k: 20, owners: 'per-speaker' }),
    ready: z
      .enum(['sync', 'wait'])
      .default('sync')
      .describe(
        'sync: adds with async_mode "sync" (memories extracted and written before the reply); wait: the vendor\'s asynchronous adds, then POST /product/scheduler/wait per owner before any search (its task tracker needs Redis: MEMSCHEDULER_USE_REDIS_QUEUE=true)',
      ),
    mode: z.enum(['fast', 'fine', 'mixture']).default('fast').describe("search mode (the vendor's SEARCH_MODE, default fast)"),
    include_preference: z
      .boolean()
      .default(true)
      .describe("search preference memories too (their pref_string follows the memories, as the vendor's script shows it)"),
    pref_top_k: z.number().int().min(0).default(6).describe('preference memories a search returns'),
    relativity: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe(
        "the search's relativity threshold, sent only when set (the vendor's script sends none: the server keeps memories scoring 0.45 or more)",
      ),
  })
  .strict();
export type MemosConfig = z.infer<typeof MemosSchema> & ServiceSettings;

export const memos = serviceSystem<MemosConfig>({
  name: 'memos',
  description: "a running MemOS server (server_api, /product routes): each conversation once per speaker, both speakers' stores searched",
  about: {
    label: 'MemOS',
    kind: 'service',
    start: [
      "started for you: 'rawrag systems install memos' once, then a run without -S url= starts MemOS's own API server (memos.api.server_api:app) through integrations/sidecars/memos.py (PostgreSQL+pgvector from pgserver, users in SQLite, under rawrag's cache) and stops it at the end",
      'by hand: <systems dir>/memos/venv/bin/python integrations/sidecars/memos.py --port 8000 --state DIR (OPENAI_API_BASE = your endpoint), then -S url=http://127.0.0.1:8000',
      "MemOS's own compose file: git clone https://github.com/MemTensor/MemOS.git && cd MemOS && cp docker/.env.example .env (fill in the keys and base URLs) && cd docker && docker compose up -d   (API :8000, Neo4j, Qdrant)",
      'rawrag run locomo --system memos -S url=http://localhost:8000 --reader gpt-4o-mini',
    ],
    protocol: readProtocol(import.meta.url),
  },
  schema: MemosSchema as unknown as z.ZodType<MemosConfig>,
  // What `npm run test:real` ran (tests/real/memos.test.ts), against the loopback OpenAI-compatible API.
  checked: {
    kind: 'real',
    library: 'MemoryOS',
    version: MEMOS_VERSION,
    date: '2026-12-07',
    how: "npm run test:real: rawrag run locomo --system memos --reader gpt-4o-mini --limit 20 against MemOS's own API server (memos.api.server_api, postgres graph store on pgserver), 0 errors, then purged",
  },
  install: MEMOS_INSTALL,
  connect: (cfg, key, transport) =>
    new MemosService(cfg.url!, key, transport, {
      ready: cfg.ready,
      mode: cfg.mode,
      includePreference: cfg.include_preference,
      prefTopK: cfg.pref_top_k,
      relativity: cfg.relativity ?? null,
    }),
  // The paper's PersonaMem-v2 check, where MemOS is second (the paper names no reader: any reader's complete run shows).
  paperRows: [
    {
      kind: 'leaderboard',
      benchmark: 'personamem',
      reader: 'gpt-4o-mini',
      title: 'MemOS on PersonaMem-v2 (multiple-choice accuracy; the paper names no reader)',
      ...personaMemStanding('MemOS', false),
      flags: '-S url=URL',
      needs: 'a running MemOS server (-S url=URL)',
    },
  ],
});
