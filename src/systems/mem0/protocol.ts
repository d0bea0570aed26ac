/**
 * Mem0's own LoCoMo protocol as rawrag follows it (the descriptor's `about.protocol`: `rawrag
 * systems mem0`, `rawrag protocol --system mem0`, each run's manifest `system_protocol`), read from
 * mem0ai/mem0: the retired evaluation at its last commit (`9315e3036^` = b3ede5b7c), the server and
 * the library at 8d5b7865b, and the library before 2.0 (v1.0.9).
 */
import type { VendorProtocol } from '../../core/system.js';

const EVAL = 'mem0ai/mem0@b3ede5b7c (9315e3036^)';
const NOW = 'mem0ai/mem0@8d5b7865b';

export const MEM0_PROTOCOL: VendorProtocol = {
  summary:
    "two owners per conversation, one per speaker; every message added to both, the owner's own speaker as `user` and the other as `assistant`, content `Name: text` (no image captions), two messages per add within a session, sessions in order, the session's date in metadata (`timestamp`), Mem0's custom instructions for extraction; each question searched verbatim in both owners with top_k 30, and the reader shown both speakers' memories, each list labelled with its speaker and every memory dated (-S owners=per-speaker, top_k=30, batch=2, instructions=mem0-eval, captions=false)",
  sources: [
    `${EVAL} evaluation/src/memzero/add.py L16-42 (custom instructions), L53 (update_project), L80-83 (batches of batch_size with metadata {timestamp: session date}), L85-130 (owners {speaker}_{idx}, mirrored roles, "Name: text"), L46 (batch_size=2)`,
    `${EVAL} evaluation/src/memzero/search.py L37-62 (search per owner, top_k, filter_memories False), L90-110 (both owners searched, memories rendered "timestamp: memory" under each speaker's name)`,
    `${EVAL} evaluation/run_experiments.py L29 (--top_k default 30) and evaluation/Makefile L7 (run-mem0-search --top_k 30)`,
    `${EVAL} evaluation/evals.py L22-24 (category 5 skipped when judging)`,
    `${NOW} server/main.py L180-189 (MemoryCreate: messages, user_id, metadata, prompt), L367-382 (POST /memories), L198-207 + L452-484 (POST /search, filters), L411-440 (GET /memories, top_k <= 1000), L527-544 (DELETE /memories)`,
    `${NOW} mem0/memory/main.py L879-1080 (mem0ai 2.x add: one extraction call, only ADD events, a duplicate text dropped silently L1020-1023; prompt = custom instructions L946)`,
    "mem0ai/mem0@v1.0.9 mem0/memory/main.py L605-681 (before 2.0: ADD / UPDATE / DELETE events; the LLM's NONE only logged, \"NOOP for Memory.\"), L1264-1321 (an UPDATE replaces the memory's metadata with the updating add's)",
    `${NOW} mem0/client/main.py L184-222 (POST /v3/memories/add/), L297-335 (POST /v3/memories/search/, filters), L249-290 (POST /v3/memories/, page / page_size), L414-436 (DELETE /v1/memories/); docs/openapi.json L2718-2724 (the V3 additive pipeline), L712 (GET /v1/event/{event_id}/), "Delete in progress" (a queued delete)`,
  ],
  deviations: [
    'the reader is the benchmark\'s own reader prompt (the paper\'s protocol), not Mem0\'s ANSWER_PROMPT (evaluation/prompts.py): the memories are shown as two labelled lists ("Memories of <speaker> ...", "- [date] memory") where Mem0 renders "Memories for user <name>:" with a JSON list of "timestamp: memory" strings; the judge is the benchmark\'s, run 3 times',
    'owner ids name the run directory (rawrag-<run>-<episode>~<speaker>) instead of <speaker>_<index>, so runs never share a store; rawrag sends no delete_all before adding (add.py L94-95): a new run directory has new owners, and a resumed run must keep what it added',
    "every add carries rawrag's metadata beside Mem0's `timestamp` (rawrag_add, turn_ids, session, date: how coverage maps memories back to turns), and the owners of one conversation are ingested side by side, each in order (add.py: one thread per speaker per session)",
    "the custom instructions travel with each add (the platform's custom_instructions, the open-source server's prompt) instead of being set once on the project; mem0ai < 2.0 reads prompt only for procedural memories, so on such a server they change nothing (-S instructions=none sends none)",
    "the service is today's: the platform's v3 add pipeline and mem0ai >= 2.0 are add-only, where Mem0's published figures (2025) came from the platform's v1 add API with version v2 and v1 search, which could UPDATE and DELETE; a run is comparable with Mem0's published LoCoMo figures in protocol, with the Mem0 version it names",
    'the platform also receives the session date as `timestamp` (Unix seconds, so memories are backdated), which the 2025 v1 add did not take',
  ],
};
