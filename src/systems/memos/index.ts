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
import { MemosService } from './client.js';

const KEY_ENV = 'MEMOS_KEY';
const REPO = 'MemTensor/MemOS@be68e2fb';

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
      'git clone https://github.com/MemTensor/MemOS.git && cd MemOS',
      'cp docker/.env.example .env   (fill in the LLM and embedder keys and base URLs)',
      'cd docker && docker compose up -d   (MemOS API :8000, Neo4j, Qdrant)',
      'rawrag run locomo --system memos -S url=http://localhost:8000 --reader gpt-4o-mini',
    ],
    protocol: {
      summary:
        'Each conversation is ingested twice, once per speaker (owner <run>-<conversation>~<speaker>, user_id = mem_cube_id = the owner): in a speaker\'s store its own turns are "user", the other\'s "assistant"; content "Speaker: text" (no image caption); chat_time = the session date read as UTC in ISO form on every message; each session in POST /product/add calls of 2 messages (conversation_id <conversation>_<session>, which the server ignores). Each question is searched verbatim in both stores with top_k 20, mode fast, include_preference true, pref_top_k 6; the evidence per store is its memories, then its pref_string.',
      sources: [
        `${REPO} evaluation/scripts/locomo/locomo_ingestion.py L22-63, L91-147 (owners per speaker, mirrored roles, content, chat_time, batch 2)`,
        `${REPO} evaluation/scripts/utils/client.py L145-195 (MemosApiClient: add and search bodies, the bare Authorization header)`,
        `${REPO} evaluation/scripts/locomo/locomo_search.py L99-125, L186 (both owners searched, top_k 20, memories then pref_string)`,
        `${REPO} evaluation/scripts/longmemeval/lme_ingestion.py L32-42 (a user/assistant history: its roles, text cut at 8,000 characters)`,
        `${REPO} src/memos/api/product_models.py L366-605, L608-831, L943-1008 (APISearchRequest, APIADDRequest, GetMemoryRequest, DeleteMemoryRequest)`,
        `${REPO} src/memos/multi_mem_cube/single_cube.py L59-87, L502-561, L662-845 (sync: fine extraction before the reply; async: fast memories now, MEM_READ later)`,
        `${REPO} src/memos/api/handlers/scheduler_handler.py L222-278, L375-445; src/memos/mem_scheduler/utils/status_tracker.py (the wait's Redis-backed tracker); src/memos/api/handlers/component_init.py L133-149 (Redis only with MEMSCHEDULER_USE_REDIS_QUEUE=true)`,
      ],
      deviations: [
        'adds are synchronous (async_mode "sync": the memories are extracted and written before the reply), so no search comes before an owner\'s memories exist; the script adds asynchronously and never waits, so its searches may have run against raw memories the background extraction had not replaced yet. -S ready=wait keeps the asynchronous adds and waits on /product/scheduler/wait per owner instead, which is reliable only with Redis (MEMSCHEDULER_USE_REDIS_QUEUE=true): without it the server answers "idle" at once',
        "each add carries rawrag's metadata in info {rawrag_add, turn_ids, session, date} (the script sends none): MemOS keeps it on every memory's metadata.info (it enters no prompt), so a lost reply is found on the service and each memory maps back to its turns (coverage)",
        "owner ids are rawrag's (<run>-<conversation>~<speaker>) rather than locomo_exp_user_<i>_speaker_a_<version>, so runs never share memories",
        "the evidence is shown in the benchmark's own reader prompt (not the script's TEMPLATE_MEMOS), one block per speaker's store, each memory dated by its session (the script shows the memory text alone)",
        "a session date that cannot be read is sent as chat_time as given (the script's strptime would stop); a history without dates has no chat_time",
      ],
    },
  },
  schema: MemosSchema as unknown as z.ZodType<MemosConfig>,
  checked: {
    kind: 'stand-in',
    why: 'MemoryOS installs here (2.0.30, Python 3.11) but its API server was not configured and started: only the loopback MemOS server (tests/helpers/fake-memos.ts) ran',
  },
  install: {
    python: '>=3.10',
    packages: ['MemoryOS[tree-mem,mem-reader]==2.0.30', 'qdrant-client', 'pgserver==0.1.4'],
    library: { name: 'MemoryOS', version: '2.0.30' },
    unavailable:
      'tried 2026-12-07: MemoryOS[tree-mem,mem-reader]==2.0.30 (the index has 2.0.30, 2.0.32, 2.0.33, not the 2.0.31 of the source read) with qdrant-client and pgserver 0.1.4 installs on Python 3.11, and pgserver starts PostgreSQL with pgvector (CREATE EXTENSION vector works); but importing its API server (memos.api.server_api) without its configuration fails (pydantic: reader.llm.model_name_or_path and api_base required; MEMRADER_* / MOS_EMBEDDER_* / GRAPH_DB_BACKEND=postgres / POSTGRES_* must be set), its chunker wants the gpt2 tokenizer (a download), and rawrag has no start script for it yet: not run on its real library',
  },
  connect: (cfg, key, transport) =>
    new MemosService(cfg.url!, key, transport, {
      ready: cfg.ready,
      mode: cfg.mode,
      includePreference: cfg.include_preference,
      prefTopK: cfg.pref_top_k,
    }),
  // The paper's PersonaMem-v2 check, where MemOS is second (the paper names no reader: any reader's complete run shows).
  paperRows: [
    {
      kind: 'leaderboard',
      benchmark: 'personamem',
      reader: 'gpt-4o-mini',
      title: 'MemOS on PersonaMem-v2 (multiple-choice accuracy; the paper names no reader)',
      paper: '50.72 (RAW-RAG 49.62, EverMemOS 53.25)',
      paperValue: 50.72,
      flags: '-S url=URL',
      needs: 'a running MemOS server (-S url=URL)',
    },
  ],
});
