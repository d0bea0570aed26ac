/** A-MEM (agiresearch/A-mem, a library) through its sidecar, integrations/sidecars/a-mem.py. */
import { sidecarSystem } from '../http/sidecar.js';

const LIB = 'agiresearch/A-mem@ceffb860';
const EVAL = 'WujiangXu/AgenticMemory@7f716dc5';

export const aMem = sidecarSystem({
  name: 'a-mem',
  label: 'A-MEM',
  // load_dataset.py L65-66: a caption ('[Image: caption]') only `if "img_url" in turn and "blip_caption" in turn`.
  captions: 'with-image',
  description: "A-MEM (a Python library) behind its sidecar, driven as the paper's LoCoMo script drives it",
  script: 'integrations/sidecars/a-mem.py',
  setup: ['pip install "git+https://github.com/agiresearch/A-mem@ceffb860"   (ChromaDB in memory: no store to start)'],
  env: [
    { name: 'OPENAI_API_KEY', description: "the library's LLM key (read by the sidecar's library, not by rawrag)" },
    {
      name: 'OPENAI_BASE_URL',
      description: "the library's OpenAI-compatible LLM endpoint (unset: OpenAI); embeddings are local (all-MiniLM-L6-v2)",
    },
  ],
  top_k: 20,
  protocol: {
    summary:
      "one AgenticMemorySystem per conversation (all-MiniLM-L6-v2, openai gpt-4o-mini); one add_note per turn in order, content 'Speaker <name>says : <text>' (sic), an image's caption before the text as '[Image: caption]', time = the session's date string; each question turned into keywords by the library's LLM with the script's prompt, then find_related_memories_raw(keywords, k=10): each returned line (hit or linked neighbour) one memory, as the script's reader sees it",
    sources: [
      `${EVAL} test_advanced.py L38-53 (agent), L87-126 (keywords, retrieval), L252-297 (one system per sample, one note per turn)`,
      `${EVAL} load_dataset.py L60-75 (captions)`,
      `${LIB} agentic_memory/memory_system.py L93-157 (system), L233-264 (add_note), L315-344 (find_related_memories_raw)`,
      'configs/prompts/a-mem-keywords.txt (the keyword prompt, verbatim)',
    ],
    deviations: [
      "the library is fed when rawrag says the owner's last add was sent (/ready): the same calls, in the same order, as the script",
      "the paper's script ran its own earlier copy of the library (memory_layer.py); the sidecar runs the maintained package with the same calls",
      "the library's Chroma collection is process-wide: the sidecar holds one conversation's notes in it at a time and reloads another's (consolidate_memories) when a call switches to it",
      'sidecar flags: --query question (no keyword call), --retrieve-k N',
    ],
  },
});
