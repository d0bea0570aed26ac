/**
 * MemMachine under the same protocol as RAW-RAG (`--system memmachine -S url=URL`): a running
 * MemMachine server (REST API v2) is fed each conversation as its vendor's own LoCoMo evaluation
 * feeds it (evaluation/episodic_memory/restapiv2_locomo_ingest.py: batches of 10 episodic messages
 * per session, the speaker as producer, timestamps one second apart), one project per conversation,
 * and searched as restapiv2_locomo_search.py searches it (top_k 50, no context expansion); the
 * episodes it returns, long-term and short-term, and its working-memory summary are the evidence.
 */
import { z } from 'zod';
import { serviceSettingsShape, type ServiceSettings } from '../memory-service/config.js';
import { serviceSystem } from '../memory-service/plugin.js';
import { MemMachineService } from './client.js';
import { PAPER_ROWS } from '../../benchmarks/paper-rows.js';

const KEY_ENV = 'MEMMACHINE_API_KEY';
const REPO = 'MemMachine/MemMachine@18f12112';

export const MemMachineSchema = z
  .object({
    ...serviceSettingsShape({ keyEnv: KEY_ENV, batch: 10, top_k: 50, owners: 'per-episode' }),
    org: z
      .string()
      .regex(/^[\p{L}\p{N}_:-]+$/u, 'letters, digits, _, : and - only (MemMachine ids)')
      .default('universal')
      .describe("the org_id every project is created in (the server's default org is 'universal')"),
    expand_context: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe(
        'episodes around each long-term match returned with it (0: the REST search script; its in-process script uses 3, with top_k=30)',
      ),
  })
  .strict();
export type MemMachineConfig = z.infer<typeof MemMachineSchema> & ServiceSettings;

export const memmachine = serviceSystem<MemMachineConfig>({
  name: 'memmachine',
  description: 'a running MemMachine server (REST API v2): episodic memory, one project per conversation',
  about: {
    label: 'MemMachine',
    kind: 'service',
    start: [
      'git clone https://github.com/MemMachine/MemMachine && cd MemMachine',
      'cp sample_configs/env.dockercompose .env && cp sample_configs/episodic_memory_config.sample configuration.yml   (set OPENAI_API_KEY, the Neo4j password, host neo4j)',
      'docker compose up -d   (or ./memmachine-compose.sh; PostgreSQL/pgvector, Neo4j, MemMachine on :8080)',
      'rawrag run locomo --system memmachine -S url=http://localhost:8080 --reader gpt-4o-mini',
    ],
    protocol: {
      summary:
        'One project per conversation (org universal), created first. Each session is added in POST /api/v2/memories calls of 10 messages with types ["episodic"]: producer = the speaker, timestamp = the session time + i seconds (i: position in the session), content = the text + " [Attached <caption>]", metadata {locomo_session_id, source_timestamp, source_speaker} as strings (plus rawrag_add, turn_ids as JSON text, session, date). Episodic writes complete before the reply: no wait. Each question is searched verbatim with top_k 50, expand_context 0, types ["episodic"]; the evidence is the long-term episodes, then the short-term ones, each "[<Weekday, Month DD, YYYY at HH:MM AM>] <speaker>: <content>", then the working-memory summary.',
      sources: [
        `${REPO} evaluation/episodic_memory/restapiv2_locomo_ingest.py L21-108 (batches, producer, timestamps, content, metadata)`,
        `${REPO} evaluation/episodic_memory/restapiv2_locomo_search.py L51-103, L182-184 (top_k 50, episodic search, context)`,
        `${REPO} evaluation/utils/memmachine_helper_restapiv2.py L368-608, L869-954; memmachine_helper_base.py L74-243 (add, search, long-term + short-term episodes + summary, timestamp format)`,
        `${REPO} packages/server/src/memmachine_server/server/api_v2/router.py L155-337 (projects, memories, search, list, delete)`,
        `${REPO} packages/common/src/memmachine_common/api/spec.py L176-196, L453-530, L557-622, L647-689 (SafeId, MemoryMessage, AddMemoriesSpec, SearchMemoriesSpec, ListMemoriesSpec)`,
        `${REPO} packages/server/src/memmachine_server/main/memmachine.py L580-606, L680-740 (queued project delete; episodic add awaited, semantic in the background)`,
        `${REPO} evaluation/episodic_memory/locomo_search.py L62-105 (the in-process search: limit 30, expand_context 3: -S top_k=30 -S expand_context=3)`,
      ],
      deviations: [
        'one project per conversation (and per visibility horizon), created with POST /api/v2/projects and deleted with /projects/delete: the script writes every conversation into the one default project, which mixes conversations in every search',
        'memory types ["episodic"] only: the scripts leave --mem-type unset (episodic and semantic); semantic memory ingests in the background with no completion API (the vendor helper guesses from Prometheus metrics), so searches could not be made to wait for it. The episodic variant is the one the search script reads with build_episodic_ctx',
        'search depth of the REST search script (top_k 50, no context expansion); its in-process locomo_search.py uses limit 30 with expand_context 3: -S top_k=30 -S expand_context=3',
        "timestamps carry the session wall clock with a +00:00 offset: the script interprets the naive LoCoMo time in the machine's local zone (astimezone()), so its instants shift with the machine; the wall clock (and the date shown to the reader) is the same",
        "image captions as ' [Attached <blip_caption>]': rawrag's LoCoMo turns keep the caption but not the image's search query, which the script appends as ' [Attached <caption>: <query>]' (888 of LoCoMo's 1,226 image turns)",
        'a session without a readable date is sent without timestamp or source_timestamp (the server stamps its own time); the script sends its own now()',
        "rawrag's own metadata (rawrag_add, turn_ids, session, date) travels beside the script's, so a lost reply is found on the service and each episode maps back to its turn (coverage)",
        "the evidence is shown in the benchmark's own reader prompt, not the script's ANSWER_PROMPT; memories as \"- [date] speaker: content\" lines, the summary in the script's <WORKING MEMORY SUMMARY> tags",
      ],
    },
  },
  schema: MemMachineSchema as unknown as z.ZodType<MemMachineConfig>,
  checked: {
    kind: 'stand-in',
    why: 'memmachine-server needs Python >= 3.12 (installed only inside a Debian 13 root, not started): only the loopback MemMachine server (tests/helpers/fake-memmachine.ts) ran',
  },
  install: {
    python: '>=3.12',
    packages: ['memmachine-server==0.4.0'],
    library: { name: 'memmachine-server', version: '0.4.0' },
    unavailable:
      "memmachine-server 0.4.0 requires Python >= 3.12 (this machine: 3.11). Tried once (2026-12-07): a Debian 13 root (debootstrap --variant=minbase trixie from the Debian mirror, 6.6 min) gives Python 3.13.5 there; in a venv there memmachine-server 0.4.0 installed (7 min) and imports (its retrieval agent's multi-hop decomposer prints 'No module named spacy' and is skipped), but only inside that root (its python3.13 needs glibc 2.38; this machine has 2.36). Its vendor configs want Neo4j for long-term memory: the replacement would be its SQLite `event` backend with sqlite_vector_store (a labelled deviation) and NLTK's punkt/stopwords provisioned; the server was not started (time-box). Not run on its real library",
  },
  connect: (cfg, key, transport) =>
    new MemMachineService(cfg.url!, key, transport, {
      org: cfg.org,
      expandContext: cfg.expand_context,
      deleteTimeoutMs: cfg.deleteTimeout * 1000,
    }),
  // The paper's main table: MemMachine is the strongest rival on LoCoMo and MEME. Its figures are the
  // main table's own (src/benchmarks/paper-rows.ts `strongestOther`), never a second copy.
  paperRows: PAPER_ROWS.filter((r) => r.retriever === 'openai' && r.strongestOther?.system === 'MemMachine').map((r) => ({
    kind: 'leaderboard' as const,
    benchmark: r.benchmark,
    reader: r.reader,
    title: `MemMachine on ${r.benchmark === 'locomo' ? 'LoCoMo' : 'MEME'}, read by ${r.reader} (its own row of the paper's main table)`,
    paper: `${r.strongestOther!.accuracy.toFixed(2)}${r.benchmark === 'meme' ? ', six-task macro' : ''} (RAW-RAG ${r.accuracy.toFixed(2)})`,
    paperValue: r.strongestOther!.accuracy,
    flags: '-S url=URL',
    needs: 'a running MemMachine server (-S url=URL)',
  })),
});
