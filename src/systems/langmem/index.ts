/**
 * LangMem (langchain-ai/langmem, a Python library) through its sidecar, integrations/sidecars/langmem.py,
 * driven as Mem0's evaluation drives it (the LangMem numbers in Mem0's paper): two ReAct agents per
 * conversation, one per speaker, each with LangMem's manage_memory and search_memory tools over its own
 * langgraph InMemoryStore. `-S mode=` says what a search returns: `agent` (default) = each speaker's
 * agent answers the question and its final message is that speaker's memories, as the script does;
 * `store` = each speaker's store searched directly, so rawrag's common reader sees the stored memories.
 */
import { z } from 'zod';
import { sidecarSystem, type SidecarConfig } from '../http/sidecar.js';
import { readProtocol } from '../protocol-file.js';

export const langmem = sidecarSystem({
  name: 'langmem',
  label: 'LangMem',
  description: "LangMem (a Python library) behind its sidecar, driven as Mem0's LoCoMo evaluation drives it (two ReAct agents per conversation)",
  script: 'integrations/sidecars/langmem.py',
  setup: [
    "rawrag systems install langmem   (langmem 0.0.30 with langgraph and langchain-openai from the package index, pure Python; the stores are in memory, pickled under the sidecar's state folder)",
  ],
  flags: '--mode agent',
  env: [
    { name: 'OPENAI_API_KEY', description: "the library's LLM and embedding key (read by the sidecar's library, not by rawrag)" },
    {
      name: 'OPENAI_BASE_URL',
      description:
        "the library's OpenAI-compatible endpoint (or OPENAI_API_BASE): the agents' chat model with tool calls, and the stores' embeddings",
    },
    { name: 'LANGMEM_MODEL', description: "the agents' chat model (default gpt-4o-mini, the script's MODEL); -S model= too" },
    {
      name: 'LANGMEM_EMBEDDING_MODEL',
      description: "the stores' embedding model (default text-embedding-3-small, the script's EMBEDDING_MODEL); -S embedding_model= too",
    },
  ],
  // Mode store: 10 memories per speaker (store.search's default limit, which the script's agents get); mode agent returns two answers.
  top_k: 20,
  options: {
    mode: z
      .enum(['agent', 'store'])
      .default('agent')
      .describe(
        "agent (default, Mem0's script): each speaker's agent is asked the question, its final message is that speaker's memories (two per question; the agents' LLM runs at search time); store: each speaker's InMemoryStore searched directly for the question (top_k shared by the two), the memories as the agents wrote them, for rawrag's common reader",
      ),
    model: z.string().min(1).optional().describe("the agents' chat model (default: LANGMEM_MODEL, else gpt-4o-mini as in Mem0's evaluation)"),
    embedding_model: z
      .string()
      .min(1)
      .optional()
      .describe("the stores' embedding model (default: LANGMEM_EMBEDDING_MODEL, else text-embedding-3-small); 1536 dimensions"),
  },
  flagsOf: (cfg: SidecarConfig) => [
    '--mode',
    String(cfg.mode ?? 'agent'),
    ...(cfg.model ? ['--model', String(cfg.model)] : []),
    ...(cfg.embedding_model ? ['--embedding-model', String(cfg.embedding_model)] : []),
  ],
  labelOf: (cfg: SidecarConfig) => (cfg.mode === 'store' ? 'LangMem (store search)' : 'LangMem'),
  install: {
    python: '>=3.10',
    // langmem 0.0.30 (the last release) with what the package index served for its dependencies on 2026-12-07, pinned.
    packages: [
      'langmem==0.0.30',
      'langgraph==1.2.24',
      'langgraph-prebuilt==1.1.3',
      'langgraph-checkpoint==4.3.2',
      'langchain==1.5.2',
      'langchain-core==1.8.3',
      'langchain-openai==1.8.1',
    ],
    library: { name: 'langmem', version: '0.0.30' },
    env: { LANGSMITH_TRACING: 'false', LANGCHAIN_TRACING_V2: 'false' },
    // langchain-openai's OpenAIEmbeddings counts tokens with tiktoken (text-embedding-3-small: cl100k_base); the chat model may too.
    tiktoken: ['cl100k_base', 'o200k_base'],
    heavy:
      "slow, not large: each turn is a ReAct agent call over the whole thread so far (the script's one thread per conversation, kept by MemorySaver), so a conversation's feed grows quadratically: conv-26 (419 turns) took 8 to 33 minutes on a shared two-core machine",
    notes: [
      "InMemoryStore and MemorySaver hold the memories in memory: the sidecar pickles them under its state folder after each conversation's feed, so a resumed run does not feed them again",
    ],
  },
  // What was run here against the loopback OpenAI-compatible API (tests/real/langmem.test.ts runs the same).
  checked: {
    kind: 'real',
    library: 'langmem (langgraph 1.2.24, langchain-openai 1.8.1)',
    version: '0.0.30',
    date: '2026-12-07',
    how: "tests/real/langmem.test.ts (the real-library tier; RAWRAG_REAL_HEAVY=1, as it is slow): rawrag run locomo --system langmem --reader gpt-4o-mini --limit 20, started for you, against the loopback API answering the agents with LangMem's tool calls: 0 errors, 419 turns to two agents, 419 memories stored through manage_memory (each mapped to its turn), searched (mode agent), then purged to 0; by hand the same run, rawrag stats against RAW-RAG/local and rawrag memory purge (verified, 0 left); mode store: stand-in only (tests/slow/langmem-modes.test.ts)",
  },
  protocol: readProtocol(import.meta.url),
});
