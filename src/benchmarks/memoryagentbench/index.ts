/**
 * MemoryAgentBench (Hu, Wang, McAuley; HF ai-hyz/MemoryAgentBench @ 7ea0669): four competencies,
 * per-source official metrics, the RAW-RAG paper's 2,071-question subset by default.
 * RAW-RAG policy: no turn expansion (the selected chunks are the evidence), plain serialisation
 * (the context text itself), windows over the context, except FactConsolidation rows, which carry
 * their own per-episode override: one chunk per numbered fact.
 */
import type { Benchmark, DownloadFile } from '../../core/benchmark.js';
import { DEFAULT_POLICY } from '../../core/policy.js';
import { DEFAULT_DATA_DIR, HF_REVISION, loadMemoryAgentBench, parseSources } from './load.js';
import { scoring } from './scoring.js';
import { answerInEvidence, rankingMetrics } from './evidence.js';
import { summariseMab } from './summarise.js';
import { COMPETENCIES, SHA256, SOURCES, SPLITS, competencyOf, sourceInfo, taskOf } from './sources.js';

const HF = `https://huggingface.co/datasets/ai-hyz/MemoryAgentBench/resolve/${HF_REVISION}`;


export const DOWNLOAD_FILES: DownloadFile[] = [
  ...SPLITS.map((split) => ({
    url: `${HF}/data/${split}-00000-of-00001.parquet`,
    path: `${DEFAULT_DATA_DIR}/${split}-00000-of-00001.parquet`,
    sha256: SHA256[split]!,
  })),
  { url: `${HF}/entity2id.json`, path: `${DEFAULT_DATA_DIR}/entity2id.json`, sha256: SHA256.entity2id! },
];

export const memoryagentbench: Benchmark = {
  name: 'memoryagentbench',
  title: "MemoryAgentBench (4 competencies; the paper's subset = 2,071 questions)",
  defaultData: DEFAULT_DATA_DIR,
  policy: { ...DEFAULT_POLICY, serialisation: 'plain', expandToTurns: false, chunking: 'window' },
  aggregation: {
    overall: 'macro',
    levels: [
      // Types are sources; the five ICL sources form one task (MCC), every other source is its own.
      { name: 'task', groupOf: ([source]) => (taskOf(source!) === 'icl' ? 'MCC' : taskOf(source!)) },
      { name: 'competency', groupOf: ([source]) => competencyOf(source!), order: [...COMPETENCIES] },
    ],
    columnsFor: 'competency',
    note:
      'per source = micro; MCC = mean of the 5 ICL sources; per competency (AR/TTL/LRU/CR) = mean of its tasks; ' +
      'overall = mean of the competencies (MemoryAgentBench four-competency macro)',
  },
  typeOrder: SOURCES.map((s) => s.source),
  options: [
    {
      flags: '--subset <name>',
      key: 'subset',
      description: "paper (the paper's 2,071 questions: 10 tasks, FactConsolidation 262k) | all (every row)",
      defaultValue: 'paper',
      definesSetting: true,
    },
    {
      flags: '--splits <list>',
      key: 'splits',
      description: 'splits to read, comma-separated: AR, TTL, LRU, CR (or Accurate_Retrieval, Test_Time_Learning, ...)',
      defaultValue: 'all four',
      definesSetting: true,
    },
    {
      flags: '--sources <list>',
      key: 'sources',
      description: 'metadata.source values to ask, comma-separated (replaces -B subset), e.g. factconsolidation_sh_6k',
      definesSetting: true,
      // A name the release does not have is a bad flag value (exit 1); a release source missing from the data is bad input (exit 2).
      validate: (v: string) => {
        const unknown = (parseSources(v) ?? []).filter((s) => !sourceInfo(s));
        if (unknown.length) throw new Error(`unknown source(s) ${unknown.join(', ')} (the release's: ${SOURCES.map((s) => s.source).join(', ')})`);
      },
    },
  ],
  load: loadMemoryAgentBench,
  answerSufficiency: answerInEvidence,
  // Official judges: GPT-4o (LongMemEval); ∞Bench-Sum used gpt-4o-2024-05-13 (named in the deviations).
  defaultJudgeModel: 'gpt-4o',
  scoring,
  summarise: summariseMab,
  rankingMetrics,
  downloads: { default: DOWNLOAD_FILES },
};
