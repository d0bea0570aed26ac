/** EMem (KevinSRR/EMem, a library that indexes a whole conversation at once) through its sidecar, integrations/sidecars/emem.py. */
import { sidecarSystem } from '../http/sidecar.js';
import { readProtocol } from '../protocol-file.js';

export const emem = sidecarSystem({
  name: 'emem',
  label: 'EMem',
  // src/emem/utils/conversation_data_utils.py L68-69: a caption ('[Image: caption]') only `if "img_url" in turn and "blip_caption" in turn`.
  captions: 'with-image',
  description:
    'EMem (a Python library, not incremental: a conversation is indexed whole) behind its sidecar, driven as its authors drive LoCoMo',
  script: 'integrations/sidecars/emem.py',
  setup: [
    "rawrag systems install emem --source DIR   (DIR: a checkout of KevinSRR/EMem at f83c0b9a, installed with pip install . as its pyproject declares; PyTorch, several GB; files under the sidecar's state folder: no store to start)",
  ],
  flags: '[--skip-ppr]',
  env: [
    { name: 'OPENAI_API_KEY', description: "the library's LLM and embedding key (read by the sidecar's library, not by rawrag)" },
    {
      name: 'OPENAI_BASE_URL',
      description:
        "default of the sidecar's --llm-base-url and --embedding-base-url (OpenAI-compatible endpoints; the LLM endpoint must honour response_format json_schema)",
    },
    {
      name: 'SUPPORT_JSON_SCHEMA',
      description: "EMem refuses to start without it; the sidecar sets 'true' as the authors' run script does (a value given is kept)",
    },
  ],
  // What the real-library tier ran (tests/real/emem.test.ts), against the loopback OpenAI-compatible API.
  checked: {
    kind: 'real',
    library: 'emem (KevinSRR/EMem checkout)',
    version: 'f83c0b9a',
    date: '2026-12-07',
    how: 'RAWRAG_REAL_HEAVY=1 npm run test:real: SUPPORT_JSON_SCHEMA unset (the sidecar set it), /list and /delete before any retrieval returned and removed the saved EDUs; rawrag run locomo --system emem --reader gpt-4o-mini --limit 20 through its sidecar, 0 errors',
  },
  install: {
    python: '>=3.10',
    source: { repo: 'KevinSRR/EMem', commit: 'f83c0b9a', steps: [['install', '.']] },
    env: { SUPPORT_JSON_SCHEMA: 'true', HF_HUB_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1' },
    library: { name: 'emem', version: 'f83c0b9a' },
    heavy: 'PyTorch (several GB): torch, transformers and gritlm are imported at import time',
  },
  top_k: 10,
  protocol: readProtocol(import.meta.url),
  noCoverage: "EMem's EDUs keep the session they came from but not their turns on LoCoMo",
});
