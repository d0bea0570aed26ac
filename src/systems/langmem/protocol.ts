/**
 * LangMem's LoCoMo protocol as rawrag follows it (`rawrag systems langmem`, each run's manifest
 * `system_protocol`): the one Mem0's evaluation ran for the LangMem row of Mem0's paper
 * (mem0ai/mem0@b3ede5b7 evaluation/src/langmem.py), on langmem 0.0.30 behind
 * integrations/sidecars/langmem.py.
 */
import type { VendorProtocol } from '../../core/system.js';

const SCRIPT = 'mem0ai/mem0@b3ede5b7 evaluation/src/langmem.py';

export const LANGMEM_PROTOCOL: VendorProtocol = {
  summary:
    'two langgraph ReAct agents per conversation, one per speaker (create_react_agent("openai:gpt-4o-mini"), tools: LangMem\'s manage_memory and search_memory on namespace ("memories",), its own InMemoryStore with 1536-d openai:text-embedding-3-small embeddings and a MemorySaver, thread "thread-<conversation>", a system prompt holding store.search(("memories",), <last message>)); every turn, in order, sent as one user message "{date} | {speaker}: {text}" to its speaker\'s agent, which decides what to create, update or delete; -S mode=agent (default, the script\'s): each question sent to both agents on the same thread, each agent\'s final message is that speaker\'s memories (two per question); -S mode=store: each speaker\'s store searched directly, top_k shared by the two',
  sources: [
    `${SCRIPT} L41-56 (prompt: the system message with the store's search; configs/prompts/langmem-agent-system.txt, verbatim), L59-80 (LangMem: InMemoryStore dims 1536 + openai:EMBEDDING_MODEL, MemorySaver, create_react_agent with create_manage_memory_tool and create_search_memory_tool on ("memories",))`,
    `${SCRIPT} L82-93 (add_memory: one user message per invoke; search_memory: the final message's content), L108-135 (two agents per conversation, thread-{key}, "{timestamp} | {speaker}: {text}" to the speaker's agent), L137-160 (both agents asked each question, category 5 skipped), L24-38 + prompts.py ANSWER_PROMPT (the answer prompt over both speakers' memories)`,
    'mem0ai/mem0@b3ede5b7 evaluation/run_experiments.py L54-57 (LangMem on locomo10_rag.json), evaluation/README (MODEL gpt-4o-mini, EMBEDDING_MODEL text-embedding-3-small)',
    'langchain-ai/langmem@b5dbe4aa (0.0.30) src/langmem/knowledge/tools.py: create_manage_memory_tool (create / update / delete, value {"content": ...}, a uuid key), create_search_memory_tool (store.search, limit 10)',
  ],
  deviations: [
    "the reader is the benchmark's own reader prompt (the paper's protocol), not Mem0's ANSWER_PROMPT; in mode agent it sees two memories per question, 'Memories for <speaker>: <the agent's final message>', as the answer prompt labels them",
    'mode store (not the script\'s) shows the reader the memories the agents stored, each "<speaker>: <content>", dated by the benchmark date of the last turn that wrote it, 10 per speaker by default (store.search\'s default limit, what the agents\' search tool gets)',
    "the library is fed when rawrag says the owner's last add was sent (/ready): the same agent calls, in the same order, as the script's loop; the script ran ten conversations in parallel processes, the sidecar feeds each conversation on its own thread",
    "the two speakers are the benchmark's speaker_a and speaker_b, in that order (the script took them from a set, in no fixed order: only which agent is asked first differs); the timestamp is the session's date as LoCoMo writes it (Mem0's locomo10_rag.json carries the same string)",
    "InMemoryStore and MemorySaver are in memory in the script; the sidecar pickles both agents' stores (items and vectors) and threads (the messages as they stand, not every checkpoint) under its state folder after each conversation's feed, so a resumed run does not feed it again; the questions a mode-agent search adds to the threads are not pickled (a sidecar started again answers from the threads as the feed left them)",
    'coverage: a stored memory carries the turns whose agent call created or updated it; a mode-agent answer the turns of the memories its prompt and its search_memory calls returned',
    'category 5 (adversarial) questions are not skipped: rawrag asks every selected question, as for every system',
  ],
};
