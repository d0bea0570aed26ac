/**
 * The twelve agentic memory systems the paper compares RAW-RAG with, and how each can be run here:
 * `service` (a REST service rawrag drives through its plug-in), `sidecar` (a Python library behind
 * rawrag's memory protocol, integrations/sidecars/), or `import` only (its own harness's result file,
 * `rawrag import`). `rawrag systems` prints this beside the registry, so a system listed with a
 * `system` that is not registered shows as missing rather than silently absent.
 */
export interface PaperOpponent {
  /** As the paper names it. */
  name: string;
  /** The `--system` value that runs it, when rawrag can run it. */
  system: string | null;
  how: 'service' | 'sidecar' | 'import';
  /** Where it comes from, or why it can only be imported. */
  note: string;
}

export const PAPER_OPPONENTS: readonly PaperOpponent[] = [
  { name: 'EverMemOS', system: 'evermemos', how: 'service', note: 'EverMind-AI/EverMemOS (EverCore REST API v1)' },
  { name: 'MemOS', system: 'memos', how: 'service', note: 'MemTensor/MemOS (server_api, /product routes)' },
  { name: 'EMem', system: 'emem', how: 'sidecar', note: 'KevinSRR/EMem (library; indexes a whole conversation at once)' },
  { name: 'SimpleMem', system: 'simplemem', how: 'sidecar', note: 'aiming-lab/SimpleMem (library; all-MiniLM-L6-v2 substitute embedder)' },
  { name: 'MemU', system: 'memu', how: 'service', note: 'NevaMind-AI/memU-server, or memU cloud API v0' },
  { name: 'MemMachine', system: 'memmachine', how: 'service', note: 'MemMachine/MemMachine (REST API v2)' },
  { name: 'Mem0', system: 'mem0', how: 'service', note: 'mem0ai/mem0 (open-source server or platform)' },
  {
    name: 'Memora',
    system: null,
    how: 'import',
    note: 'no public code (arXiv 2602.03315): only its own result files can enter, through rawrag import jsonl',
  },
  { name: 'Nemori', system: 'nemori', how: 'sidecar', note: 'nemori-ai/nemori (library)' },
  { name: 'MemoryOS', system: 'memoryos', how: 'sidecar', note: 'BAI-LAB/MemoryOS (memoryos-pro library, faiss-cpu)' },
  {
    name: 'A-MEM',
    system: 'a-mem',
    how: 'sidecar',
    note: "WujiangXu/AgenticMemory memory_layer.py (the paper's; agiresearch/A-mem with -S library=agiresearch)",
  },
  { name: 'RecMem', system: 'recmem', how: 'sidecar', note: 'CaiusDai/RecMem (library)' },
];

/**
 * Memory systems beyond the paper's twelve that practitioners compare most (issue 45), each a
 * plug-in under its own (or the most cited public) LoCoMo script: `rawrag systems` lists them
 * beside the twelve, with what each was checked against.
 */
export const OTHER_OPPONENTS: readonly PaperOpponent[] = [
  {
    name: 'Zep',
    system: 'zep',
    how: 'service',
    note: "getzep/graphiti (graphiti-core on Kuzu, Zep's open-source engine; -S api=graphiti) or Zep's hosted API (-S api=cloud)",
  },
  { name: 'Supermemory', system: 'supermemory', how: 'service', note: 'supermemoryai/supermemory hosted API (v3 documents, v4 search)' },
  {
    name: 'Cognee',
    system: 'cognee',
    how: 'sidecar',
    note: "topoteretes/cognee (library, cognee 1.6.5 on its embedded SQLite, LanceDB and Ladybug stores; rawrag's own LoCoMo protocol: Cognee publishes none)",
  },
  {
    name: 'LangMem',
    system: 'langmem',
    how: 'sidecar',
    note: "langchain-ai/langmem (library: two ReAct agents per conversation with its memory tools, as Mem0's evaluation ran it)",
  },
  {
    name: 'Letta',
    system: 'letta',
    how: 'service',
    note: "letta-ai/letta V1 server (letta 0.11.7, its last release on SQLite, started for you; a file per session, Letta's file search)",
  },
];
