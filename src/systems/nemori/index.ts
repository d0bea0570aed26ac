/** Nemori (nemori-ai/nemori, a library) through its sidecar, integrations/sidecars/nemori.py. */
import { sidecarSystem } from '../http/sidecar.js';
import { readProtocol } from '../protocol-file.js';

export const nemori = sidecarSystem({
  name: 'nemori',
  label: 'Nemori',
  description:
    'Nemori (a Python library on PostgreSQL and Qdrant, both run by its sidecar) behind its sidecar, driven as its authors drive LoCoMo',
  script: 'integrations/sidecars/nemori.py',
  setup: [
    'git clone https://github.com/nemori-ai/nemori && git -C nemori checkout d2a6dff6',
    'apt-get install postgresql-15   (or any PostgreSQL >= 15 with initdb/pg_ctl; the sidecar runs its own cluster under its state folder unless DATABASE_URL is set)',
    'rawrag systems install nemori --source nemori   (pip install -e ., as its README says)',
  ],
  checked: {
    kind: 'real',
    library: 'nemori (nemori-ai/nemori checkout)',
    version: '0.2.0 (d2a6dff6)',
    date: '2026-12-07',
    how: "tests/real/nemori.test.ts: rawrag run locomo --system nemori --limit 20 on a private PostgreSQL 15 and Qdrant local mode, against the loopback API answering Nemori's own prompts; 0 errors; episodes and semantic memories stored, searched and purged",
  },
  install: {
    python: '>=3.10',
    source: {
      repo: 'nemori-ai/nemori',
      commit: 'd2a6dff6e5481214a0be6a2d10147feccfc16244',
      steps: [['install', '-e', '.']],
    },
    library: { name: 'nemori', version: '0.2.0 (d2a6dff6)' },
    // nemori/utils/token_counter.py: tiktoken.encoding_for_model (gpt-4.1-mini: o200k_base), cl100k_base otherwise.
    tiktoken: ['cl100k_base', 'o200k_base'],
  },
  flags: '[--config evaluation/locomo/config.json]',
  env: [
    {
      name: 'LLM_BASE_URL',
      description:
        "the library's OpenAI-compatible LLM endpoint (the script's config names OpenRouter models); LLM_API_KEY or OPENAI_API_KEY its key",
    },
    {
      name: 'EMBEDDING_BASE_URL',
      description: "the library's OpenAI-compatible embedding endpoint; EMBEDDING_API_KEY or OPENAI_API_KEY its key",
    },
    {
      name: 'DATABASE_URL',
      description:
        "PostgreSQL of your own; unset: the sidecar's private cluster (the machine's initdb / pg_ctl, under its state folder, 127.0.0.1, a free port). QDRANT_URL / QDRANT_PORT only with the sidecar's --qdrant server",
    },
  ],
  top_k: 30,
  protocol: readProtocol(import.meta.url),
});
