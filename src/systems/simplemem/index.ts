/** SimpleMem (aiming-lab/SimpleMem, a library) through its sidecar, integrations/sidecars/simplemem.py. */
import { sidecarSystem } from '../http/sidecar.js';

const REPO = 'aiming-lab/SimpleMem@db80b6a7';

export const simplemem = sidecarSystem({
  name: 'simplemem',
  label: 'SimpleMem',
  // test_locomo10.py L106-107: a caption ('[Image: caption]') only `if "img_url" in turn and "blip_caption" in turn`.
  captions: 'with-image',
  description: 'SimpleMem (a Python library) behind its sidecar, driven as its authors drive LoCoMo',
  script: 'integrations/sidecars/simplemem.py',
  setup: ['pip install "git+https://github.com/aiming-lab/SimpleMem@db80b6a7"   (LanceDB is embedded: no store to start)'],
  env: [
    { name: 'OPENAI_API_KEY', description: "the library's LLM key (read by the sidecar's library, not by rawrag)" },
    { name: 'OPENAI_BASE_URL', description: "the library's OpenAI-compatible LLM endpoint (unset: OpenAI)" },
    { name: 'LLM_MODEL', description: "the library's LLM (default gpt-4.1-mini); EMBEDDING_MODEL: its local sentence-transformers model" },
  ],
  top_k: 100,
  protocol: {
    summary:
      "one SimpleMemSystem per conversation; one Dialogue per turn (numbered from 1, content '[Image: caption] text', timestamp = the session's date string), the whole conversation in one add_dialogues() then finalize() before any question; each question hybrid_retriever.retrieve(question) (planning and reflection per the library's settings), every entry returned (the library decides how many; top_k only caps it), shown as the script's reader sees it (restatement, time, location, persons, entities, topic)",
    sources: [
      `${REPO} test_locomo10.py L100-118 (captions), L742-775 (dialogues, add_dialogues, finalize), L875-879 (retrieve), L958-960 (cleared per sample)`,
      `${REPO} main.py L16-145 = simplemem/text/system.py (SimpleMemSystem)`,
      `${REPO} simplemem/core/answer_generator.py L85-111 (how entries are shown)`,
    ],
    deviations: [
      "the library is fed when rawrag says the owner's last add was sent (/ready): the same calls, in the same order, as the script",
      'each conversation has its own LanceDB folder instead of one table cleared before each sample',
      'the script turns reflection off for category-5 questions only; the sidecar is not told a category: --reflection on|off|library applies to all',
      'no coverage: SimpleMem entries keep no link to the dialogues they came from',
    ],
  },
  noCoverage: "SimpleMem's memory entries keep no link to the dialogues they were extracted from (MemoryEntry has no dialogue ids)",
});
