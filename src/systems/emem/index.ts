/** EMem (KevinSRR/EMem, a library that indexes a whole conversation at once) through its sidecar, integrations/sidecars/emem.py. */
import { sidecarSystem } from '../http/sidecar.js';

const REPO = 'KevinSRR/EMem@f83c0b9a';

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
  protocol: {
    summary:
      "one EMem per conversation with the script's BaseConfig (edu_based_contextual_ee_online, linking_top_k 30, qa_top_k 10, synonymy 0.9, seed 42, temperature 0, EMem-G with PPR); the whole conversation as one LoCoMoSample (sessions with their date strings, one Turn per turn, '[Image: caption] text') indexed in one pass by index_conversation() once the owner's last add was sent (EMem is not incremental); each question retrieve_structuring_conversation_enhanced_v2([question]), the first 10 EDUs as the library's QA prompt shows them ('[Source conversation date: ... - Source speakers: ...] \"edu\"')",
    sources: [
      `${REPO} run_emem_locomo_cached.py L428-450 (EMem per sample, index_conversation, rag_qa_conversation), L691-740 (models, BaseConfig)`,
      `${REPO} src/emem/EMem.py L228-312 (index_conversation), L1791-1860 (the retrieval rag_qa_conversation runs), L1952 (retrieve_structuring_conversation_enhanced_v2)`,
      `${REPO} src/emem/utils/conversation_data_utils.py L9-99 (LoCoMoSample, captions), src/emem/utils/misc_utils.py L111-160 (to_context_string)`,
    ],
    deviations: [
      "indexing at the end of the owner's history is EMem's own way (not incremental), not a deviation; a history extended later is indexed again from scratch",
      "rawrag asks for retrieval only: the library's own QA step (qa_conversation) is replaced by the benchmark's reader",
      'no coverage: EDUs keep their session, not their turns, on LoCoMo',
      "SUPPORT_JSON_SCHEMA=true and --embedding_model text-embedding-3-small, as the authors' run script sets them (run_emem_locomo.sh; the Python script's own default names no model)",
      'sidecar flags: --skip-ppr (EMem instead of EMem-G), --llm-model, --embedding-model, --llm-base-url, --embedding-base-url',
    ],
  },
  noCoverage: "EMem's EDUs keep the session they came from but not their turns on LoCoMo",
});
