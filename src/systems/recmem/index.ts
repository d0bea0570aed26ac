/** RecMem (CaiusDai/RecMem, a library) through its sidecar, integrations/sidecars/recmem.py. */
import { sidecarSystem } from '../http/sidecar.js';
import { readProtocol } from '../protocol-file.js';

export const recmem = sidecarSystem({
  name: 'recmem',
  label: 'RecMem',
  description: 'RecMem (a Python library) behind its sidecar, driven as its authors drive LoCoMo',
  script: 'integrations/sidecars/recmem.py',
  setup: [
    'git clone https://github.com/CaiusDai/RecMem && git -C RecMem checkout a84252f6',
    "rawrag systems install recmem --source RecMem   (as its authors install it: pip install -r requirements.txt, run from the checkout; Qdrant is embedded under the sidecar's state folder)",
  ],
  checked: {
    kind: 'real',
    library: 'RecMem (CaiusDai/RecMem checkout)',
    version: 'a84252f6',
    date: '2026-12-07',
    how: "tests/real/recmem.test.ts: rawrag run locomo --system recmem --limit 20 against the loopback API answering RecMem's own prompts; 0 errors; raw, episodic and semantic memories stored, searched and purged",
  },
  install: {
    // .python-version says 3.9; its code and requirements ran here on 3.11.7.
    python: '>=3.9',
    source: {
      repo: 'CaiusDai/RecMem',
      commit: 'a84252f6e5587fd4a8caac03ec9f6c732b7a7f35',
      // Not a package (no [build-system], two top-level folders): `pip install git+...` cannot build it.
      // The sidecar imports `recmem` from the checkout, as the authors' scripts run from it.
      steps: [['install', '-r', 'requirements.txt']],
    },
    library: { name: 'RecMem', version: 'a84252f6' },
    // recmem/embedding/openai.py truncates what it embeds with tiktoken's cl100k_base.
    tiktoken: ['cl100k_base'],
  },
  env: [
    { name: 'OPENAI_API_KEY', description: "the library's LLM and embedding key (read by the sidecar's library, not by rawrag)" },
    {
      name: 'OPENAI_BASE_URL',
      description: "the library's OpenAI-compatible endpoint for the LLM and text-embedding-3-small (or OPENAI_API_BASE)",
    },
  ],
  top_k: 25,
  protocol: readProtocol(import.meta.url),
});
