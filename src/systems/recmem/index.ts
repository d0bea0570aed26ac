/** RecMem (CaiusDai/RecMem, a library) through its sidecar, integrations/sidecars/recmem.py. */
import { sidecarSystem } from '../http/sidecar.js';

const REPO = 'CaiusDai/RecMem@a84252f6';

export const recmem = sidecarSystem({
  name: 'recmem',
  label: 'RecMem',
  description: 'RecMem (a Python library) behind its sidecar, driven as its authors drive LoCoMo',
  script: 'integrations/sidecars/recmem.py',
  setup: ['pip install "git+https://github.com/CaiusDai/RecMem@a84252f6"   (Qdrant is embedded, under the sidecar\'s --state folder)'],
  env: [
    { name: 'OPENAI_API_KEY', description: "the library's LLM and embedding key (read by the sidecar's library, not by rawrag)" },
    {
      name: 'OPENAI_BASE_URL',
      description: "the library's OpenAI-compatible endpoint for the LLM and text-embedding-3-small (or OPENAI_API_BASE)",
    },
  ],
  top_k: 25,
  protocol: {
    summary:
      "one RecMem built as the script builds it (RecMemConfig defaults: consolidation count 6, relevance 0.7, merge 0.75, top-k raw 10 / episodic 5 / semantic 10; embedded Qdrant, dim 1536; MODEL gpt-4.1-mini); per conversation reset(conv_id), then each session's turns in pairs by position, '[A]: text\\n[B]: text' (an image as ' [Showing Image]: caption'), timestamp = the session's ISO time, add_memory() in order; each question search_memories(question, conv_id): episodic, raw and semantic memories in the answer prompt's order",
    sources: [
      `${REPO} evaluation/run_experiments.py L25-37 (Qdrant factory), L53-152 (defaults), L409-474 (pairs, reset, add_memory), L735-769 (RecMem)`,
      `${REPO} evaluation/conv_loader.py L16-20 (a turn as text), L229-260 (session time)`,
      `${REPO} recmem/rec_mem.py L157-230 (search_memories, answer_question), recmem/prompt.py L47-49 (order shown)`,
    ],
    deviations: [
      "the library is fed when rawrag says the owner's last add was sent (/ready): the same calls, in the same order, as the script",
      "stores under the sidecar's --state folder; conv_id = the owner id made file-safe; the script's settings are sidecar flags",
      'coverage from raw memories only: episodic and semantic memories are LLM consolidations without turns',
    ],
  },
});
