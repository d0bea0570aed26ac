/** RecMem (CaiusDai/RecMem, a library) through its sidecar, integrations/sidecars/recmem.py. */
import { sidecarSystem } from '../http/sidecar.js';

const REPO = 'CaiusDai/RecMem@a84252f6';

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
