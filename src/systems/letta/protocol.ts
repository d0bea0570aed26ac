/**
 * Letta's LoCoMo protocol as rawrag follows it (the descriptor's `about.protocol`: `rawrag systems
 * letta`, each run's manifest `system_protocol`): the file-based LoCoMo benchmark of Letta's public
 * leaderboard (letta-ai/letta-leaderboard@802a7942 leaderboard/locomo/locomo_benchmark.py,
 * `LoCoMoQAFileBenchmark`, chunking "session"), on the Letta (MemGPT) V1 server (letta 0.16.8,
 * branch `archive` of letta-ai/letta) through its REST API (client.ts).
 */
import type { VendorProtocol } from '../../core/system.js';

const SCRIPT = 'letta-ai/letta-leaderboard@802a7942 leaderboard/locomo/locomo_benchmark.py';
const SERVER = 'letta 0.16.8 (letta-ai/letta archive branch, the V1 server)';

export const LETTA_PROTOCOL: VendorProtocol = {
  summary:
    "one folder (the script's source) per conversation, its embedding config the script's (text-embedding-3-large, 1536 dimensions, chunk size 100000: one passage per file); one text file per session, `Timestamp: <session date>` on line 1, then one `Speaker: text` line per turn (` [Image: caption]` after a turn with an image), named after the session's date (`/` and `:` made `-`, `.txt`), uploaded to the folder; every file of the conversation waited on until Letta reports it `completed` before its first question; then an agent with the folder attached (which gives it Letta's file tools); each question run verbatim through that agent's own `semantic_search_files` tool (the search the script's agent is made to call first), the -S top_k passages it finds shown to rawrag's common reader (-S mode=search, the only mode)",
  sources: [
    `${SCRIPT} L110-115 (category 5 skipped), L146-172 (the history: sessions by sorted key, each turn with its session's date), L544-640 (one file per session: the file named after the timestamp with / and : replaced by -, L577; "Timestamp: {timestamp}" on line 1, then the content, L616-626), L713-758 (chunking "session": a turn is "{speaker}: {text}" + " [Image: {blip_caption}]" when it has an image, turns joined by newlines), L799-805 (EmbeddingConfig: text-embedding-3-large, endpoint https://api.openai.com/v1, dim 1536, chunk size 100000), L810-845 (per sample once: sources.create, files.upload per file, jobs polled every 1 s until completed or failed), L849-873 (per question: an agent, agent_type "locomo_agent", include_base_tools False, tools search_files + answer_question, InitToolRule search_files, TerminalToolRule answer_question, system prompt locomo_agent.txt; the source attached)`,
    'letta-ai/letta-leaderboard@802a7942 leaderboard/locomo/locomo_agent.txt (the agent\'s system prompt: "You can use search_files tools to gather information from the conversation context ... The timestamp of a conversation is in the file name")',
    `${SERVER}: letta/server/rest_api/routers/v1/folders.py (POST /v1/folders/, GET /v1/folders/?name=, POST /v1/folders/{id}/upload (multipart file), GET /v1/folders/{id}/files, GET /v1/folders/{id}/passages, DELETE /v1/folders/{id}); agents.py (POST /v1/agents/, GET /v1/agents/?name=, PATCH /v1/agents/{id}/folders/attach/{folder_id}: attaches the file tools, POST /v1/agents/{id}/tools/{tool_name}/run, DELETE /v1/agents/{id}); models (GET /v1/models/embedding: the server's OpenAI embedding configs, at its OPENAI_BASE_URL); health.py (GET /v1/health/: version)`,
    `${SERVER}: letta/schemas/enums.py (FileProcessingStatus pending, parsing, embedding, completed, error; AgentType), letta/services/file_processor/file_processor.py (LlamaIndexChunker with chunk_size = the folder's embedding_chunk_size), letta/services/tool_executor/files_tool_executor.py semantic_search_files / _search_files_native (query_source_passages_async over the agent's attached folders, then "=== <file> (passage #n) ===" blocks of at most 20 lines each)`,
  ],
  deviations: [
    "the reader is the benchmark's own reader prompt (rawrag's common reader, -S mode=search) given the passages Letta's semantic_search_files finds for the question verbatim, not the script's Letta agent answering through its answer_question tool: rawrag runs Letta's search tool itself (POST /v1/agents/{id}/tools/semantic_search_files/run, -S top_k passages, the tool's default 5); the agent's own loop (mode=agent) is not implemented",
    "each passage reaches the reader whole (its text from the folder's passages, the session's date shown as its date, the Timestamp line dropped), where Letta's tool output, which its agent reads, cuts a passage after 20 lines",
    "the embedding endpoint: the script hard-codes https://api.openai.com/v1 in its EmbeddingConfig; here the folder's config is the server's own OpenAI embedding config for the script's model (GET /v1/models/embedding: the server's OPENAI_BASE_URL, the configured OpenAI-compatible endpoint) with the script's dimension (1536) and chunk size (100000)",
    "the agent type: the script asks for agent_type \"locomo_agent\", which no Letta V1 server accepts (letta 0.16.8 schemas/enums.py AgentType has no such value); the agent that carries the folder and runs the search is a react_agent without base tools, the script's system prompt, its LLM the reader model's name on the same endpoint (it is never called in mode=search)",
    "one folder and one agent per conversation, both named after rawrag's owner id (rawrag-<run>-<episode>), the folder described as the script describes its source; the script creates one agent per question on one source per sample (the same files, searched the same way)",
    "upload and wait through the current routes (POST /v1/folders/{id}/upload; the file's processing_status until completed or error) where the script's mid-2025 letta_client used the deprecated sources routes and polled upload jobs; a file Letta reports `error` is an error for its conversation (the script moves on when a job fails)",
  ],
};
