/**
 * EverMemOS under the same protocol as RAW-RAG (`--system evermemos -S url=URL`): a running
 * EverMemOS (EverCore) server, REST API v1, is fed each conversation as one group stream the way
 * its vendor's evaluation builds it (evaluation/src/core/loaders.py: per-speaker sender ids,
 * captions inlined, timestamps 30 s apart within the session), one message per add as the vendor's
 * HTTP adapter sends them, flushed after the last add, and searched as the vendor's local-API config
 * searches it (agentic retrieval, top_k 10, episodic memories of the group); the episodes it returns
 * are the evidence, each `<subject>: <episode>` as the vendor's in-process adapter shows them.
 */
import { z } from 'zod';
import { serviceSettingsShape, type ServiceSettings } from '../memory-service/config.js';
import { serviceSystem } from '../memory-service/plugin.js';
import { EverMemosService } from './client.js';
import { figureField, points } from '../../benchmarks/paper-figures.js';
import { paperRow } from '../../benchmarks/paper-rows.js';
import { personaMemStanding } from '../../benchmarks/paper-system-figures.js';

/** LongMemEval-S with gpt-4.1-mini: the paper gives EverMemOS's figure as the strongest other of RAW-RAG's Qwen3-retriever row. */
function longMemEvalFigures(): { paper: string; paperValue: number } {
  const qwen3 = figureField(paperRow('longmemeval', 'gpt-4.1-mini', 'qwen3'), 'rows (longmemeval, gpt-4.1-mini, qwen3)');
  const openai = figureField(paperRow('longmemeval', 'gpt-4.1-mini', 'openai'), 'rows (longmemeval, gpt-4.1-mini, openai)');
  const own = figureField(qwen3.strongestOther, 'rows (longmemeval, gpt-4.1-mini, qwen3).strongestOther');
  return {
    paper: `${points(own.accuracy)} (RAW-RAG ${points(qwen3.accuracy)} with the Qwen3 retriever, ${points(openai.accuracy)} with openai)`,
    paperValue: own.accuracy,
  };
}

const KEY_ENV = 'EVERMEMOS_API_KEY';
const REPO = 'EverMind-AI/EverMemOS@e37205f5';
const CORE = `${REPO} methods/EverCore`;

export const EverMemosSchema = z
  .object({
    ...serviceSettingsShape({ keyEnv: KEY_ENV, batch: 1, top_k: 10, owners: 'per-episode' }),
    // SearchMemoriesRequest.top_k: -1 or 1-100.
    top_k: z.number().int().positive().max(100).default(10).describe('memories a search returns (EverMemOS answers at most 100)'),
    method: z
      .enum(['keyword', 'vector', 'hybrid', 'agentic'])
      .default('agentic')
      .describe("search method (the vendor's local-API config: agentic, LLM-guided multi-round; the server's own default is hybrid)"),
    memory_types: z
      .array(z.enum(['episodic_memory', 'profile', 'raw_message', 'agent_memory']))
      .min(1)
      .default(['episodic_memory'])
      .describe('memory types a search asks for (only episodes are read as evidence), e.g. -S memory_types=[episodic_memory]'),
    step: z.number().min(0).default(30).describe("seconds between a session's messages (the vendor loader's default interval)"),
    fit: z
      .number()
      .gt(0)
      .max(1)
      .default(0.9)
      .describe("share of the gap to the next session a session's messages may span (the loader squeezes its 30 s steps into 90 %)"),
  })
  .strict();
export type EverMemosConfig = z.infer<typeof EverMemosSchema> & ServiceSettings;

const NO_COVERAGE =
  'EverMemOS v1 episodes name no source message (SearchEpisodeItem / EpisodeItem carry id, timestamp, participants, subject, episode and a parent MemCell id that no v1 route returns), so a memory cannot be mapped back to its turns';

export const evermemos = serviceSystem<EverMemosConfig>({
  name: 'evermemos',
  description: 'a running EverMemOS (EverCore) server (REST API v1): each conversation one group stream, flushed, searched agentically',
  about: {
    label: 'EverMemOS',
    kind: 'service',
    // evaluation/src/core/loaders.py inlines a caption only for a turn with img_url.
    captions: 'with-image',
    start: [
      'git clone https://github.com/EverMind-AI/EverMemOS && cd EverMemOS/methods/EverCore',
      'cp env.template .env   (LLM_BASE_URL and key; VECTORIZE_BASE_URL (Qwen3-Embedding-4B) and RERANK_BASE_URL (Qwen3-Reranker-4B), OpenAI-compatible)',
      'docker compose up -d   (MongoDB, Elasticsearch, Milvus with etcd and MinIO, Redis)',
      'uv sync && uv run python src/run.py   (the API on :1995)',
      'rawrag run locomo --system evermemos -S url=http://localhost:1995 --reader gpt-4o-mini',
    ],
    protocol: {
      summary:
        'One group per conversation (group_id = rawrag\'s owner <run>-<conversation>). Every turn is added in order with POST /api/v1/memories/group, one message per call: message_id = the turn id, sender_id = "<speaker lower, spaces as _>_<conversation>", sender_name = the speaker, role "user" (a user/assistant history keeps its roles, each speaker named "<role>_<conversation>" as the LongMemEval converter of the vendor names it, text cut at 8,000 characters), content = "[<speaker> shared an image: <caption>] " before the text of an image turn, timestamp (unix ms) = the session time + 30 s per position, squeezed into 90 % of the gap to the next session (an undated session: 2024-01-01 + its index in hours). After the last add, POST /group/flush extracts what is still accumulated; no question is searched before it answered. Each question is searched verbatim with POST /search {method "agentic", memory_types ["episodic_memory"], top_k 10, filters {group_id}}; the evidence is the episodes, each "<subject>: <episode>" dated by its timestamp.',
      sources: [
        `${CORE}/evaluation/src/core/loaders.py L127-265 (one stream per conversation, sender ids, captions, 30 s spacing within 90 % of the gap, the 2024-01-01 base of undated sessions)`,
        `${CORE}/evaluation/src/converters/longmemeval_converter.py L84-97; evaluation/config/datasets/longmemeval.yaml L20 (a user/assistant history: speakers <role>_<question id>, max_content_length 8000)`,
        `${CORE}/evaluation/src/adapters/evermemos_api_adapter.py L126-205, L207-280 (the HTTP adapter: one group, dia_id as message_id, one message per request, group-scoped search)`,
        `${CORE}/evaluation/config/systems/evermemos_local_api.yaml L23-30 (search scope group, top_k 10, retrieve_method agentic, memory_types [episodic_memory])`,
        `${CORE}/evaluation/src/adapters/evermemos_adapter.py L532-575; evaluation/src/adapters/evermemos/config.py L31-34, L75-76 (agentic retrieval, response_top_k 10, "<subject>: <episode>" lines)`,
        `${CORE}/src/infra_layer/adapters/input/api/memory/memory_controller.py L72-87, L235-338, L438-488, L999-1020 (prefix /api/v1/memories, group add, group flush, delete 204)`,
        `${CORE}/src/api_specs/dtos/memory.py L359-418, L511-568, L1006-1103, L1267-1398, L1443-1476, L1670-1694 (MessageItem, GroupAddRequest 1-500 messages, flush, GetMemRequest, SearchMemoriesRequest, episodes)`,
        `${CORE}/src/api_specs/request_converter.py L346-436 (group add: timestamp, sender_id and role user|assistant required, ids without the gen_ prefix)`,
        `${CORE}/src/infra_layer/adapters/input/api/memory/memory_search_controller.py L158-229; src/agentic_layer/search_mem_service.py L316-582, L926-977 (search, raw messages pending in the group)`,
        `${CORE}/src/biz_layer/mem_memorize.py L1676-1860 (boundary detection and extraction within the request; the flush consumes everything accumulated)`,
        `${CORE}/src/service/memcell_delete_service.py L145-262 (delete by filters: episodes, atomic facts, foresights; raw messages and MemCells kept)`,
      ],
      deviations: [
        "the vendor's published figures come from its in-process pipeline (evermemos_adapter.py), not the server: rawrag drives the v1 REST API, as the vendor's evermemos_api_adapter.py does against the older API. That adapter's protocol mapped to v1: POST /api/v0/memories with one message {group_id, message_id, create_time (ISO), sender, sender_name, content, refer_list} -> POST /api/v1/memories/group {group_id, messages: [{message_id, sender_id, sender_name, role, timestamp (unix ms), content}]}; ?sync_mode=true (wait for boundary detection) -> the v1 add always runs boundary detection in the request, and POST /group/flush after the last add; GET /search?query&retrieve_method&group_id&top_k&memory_types -> POST /search {query, method, memory_types, top_k, filters {group_id}}; result.memories[{group: [...]}] with parallel scores -> data.episodes[] with their score",
        "one owner (group) per conversation and visibility horizon: group_id is rawrag's owner id rather than the loader's \"locomo_<i>\", so runs never share memories; sender ids keep the loader's shape with the conversation's own id",
        'role "user" for both named speakers: v1 requires a role of user or assistant on every message (request_converter.py L407-413) and the loader sets none; both LoCoMo speakers are people of one group',
        "message_id = the turn id (the HTTP adapter sends LoCoMo's dia_id): a lost reply is looked for among the group's pending raw messages by these ids, else among episodes stamped within the call's span",
        "search with top_k 10 and agentic retrieval as the vendor's local-API config does; the in-process pipeline's agentic retrieval also keeps response_top_k 10. -S method=hybrid (the server's default) or keyword / vector, -S top_k=N (at most 100)",
        'the evidence is shown in the benchmark\'s own reader prompt (not the vendor\'s CoT ANSWER_PROMPT), each episode as "<subject>: <episode>" with its timestamp as the date',
        'purge flushes the group first, then soft-deletes it: the v1 delete by filters keeps raw messages, so anything a killed ingest left accumulated would otherwise surface in a later extraction',
        "coverage is absent: v1 episodes carry no source message ids (the episode's MemCell holds them, and no v1 route returns MemCells)",
      ],
    },
  },
  schema: EverMemosSchema as unknown as z.ZodType<EverMemosConfig>,
  // GroupAddRequest.messages: 1-500 per call.
  refuse: (cfg) => (typeof cfg.batch === 'number' && cfg.batch > 500 ? '-S batch: EverMemOS takes at most 500 messages per add' : null),
  noCoverage: () => NO_COVERAGE,
  checked: {
    kind: 'stand-in',
    why: 'EverMemOS needs Python 3.12 and MongoDB, Elasticsearch and Milvus: only the loopback EverMemOS server (tests/helpers/fake-evermemos.ts) ran',
  },
  install: {
    python: '>=3.12,<3.13',
    library: { name: 'EverMemOS (EverCore)', version: 'e37205f5' },
    unavailable:
      'not on the package index; its pyproject requires Python >=3.12,<3.13 (this machine: 3.11; the Debian 13 root tried on 2026-12-07 has 3.13, and no 3.12 is obtainable here), and its service needs MongoDB, Elasticsearch and Milvus (none obtainable offline here). Not tried beyond that; not run on its real library',
  },
  connect: (cfg, key, transport) =>
    new EverMemosService(cfg.url!, key, transport, {
      method: cfg.method,
      memoryTypes: cfg.memory_types,
      stepSeconds: cfg.step,
      fitToGap: cfg.fit,
    }),
  // The paper's own EverMemOS figures: LongMemEval (the Qwen3-retriever line, read by gpt-4.1-mini) and PersonaMem-v2 (no reader named).
  paperRows: [
    {
      kind: 'leaderboard',
      benchmark: 'longmemeval',
      reader: 'gpt-4.1-mini',
      title: "EverMemOS on LongMemEval-S, read by gpt-4.1-mini (the paper's figure beside RAW-RAG's Qwen3-retriever row)",
      ...longMemEvalFigures(),
      flags: '-S url=URL',
      needs: 'a running EverMemOS server (-S url=URL)',
    },
    {
      kind: 'leaderboard',
      benchmark: 'personamem',
      reader: 'gpt-4o-mini',
      title: 'EverMemOS on PersonaMem-v2 (multiple-choice accuracy; the paper names no reader)',
      ...personaMemStanding('EverMemOS', true),
      flags: '-S url=URL',
      needs: 'a running EverMemOS server (-S url=URL)',
    },
  ],
});
