/**
 * The MemoryAgentBench catalogue as data: every `metadata.source` of HF ai-hyz/MemoryAgentBench @
 * 7ea0669, with its split, competency, paper task, official metric, prompt template family,
 * row/question counts (spec memoryagentbench.md §1.2) and whether the paper's 2,071-question
 * subset uses it (§0). Sources the catalogue does not know are still loaded (warned), classified by
 * the official substring dispatch (utils/eval_other_utils.py::post_process, utils/templates.py).
 */

export const SPLITS = ['Accurate_Retrieval', 'Test_Time_Learning', 'Long_Range_Understanding', 'Conflict_Resolution'] as const;
export type Split = (typeof SPLITS)[number];

export const COMPETENCIES = ['AR', 'TTL', 'LRU', 'CR'] as const;
export type Competency = (typeof COMPETENCIES)[number];

export const COMPETENCY_OF_SPLIT: Record<Split, Competency> = {
  Accurate_Retrieval: 'AR',
  Test_Time_Learning: 'TTL',
  Long_Range_Understanding: 'LRU',
  Conflict_Resolution: 'CR',
};

export const COMPETENCY_NAMES: Record<Competency, string> = {
  AR: 'Accurate Retrieval',
  TTL: 'Test-Time Learning',
  LRU: 'Long-Range Understanding',
  CR: 'Conflict Resolution',
};

/** Official per-source metric (README "Clarification on Evaluation Metrics"). */
export type OfficialMetric = 'substring_exact_match' | 'exact_match' | 'recsys_recall@5' | 'llm_judge_longmemeval' | 'llm_judge_summarization';

/** Template family of utils/templates.py (the key of BASE_TEMPLATES). */
export type TemplateFamily =
  | 'ruler_qa'
  | 'longmemeval'
  | 'eventqa'
  | 'in_context_learning'
  | 'recsys_redial'
  | 'infbench_sum'
  | 'detective_qa'
  | 'factconsolidation';

export interface SourceInfo {
  source: string;
  split: Split;
  /** Paper table column: the five ICL sources form one task (MCC); every other source is its own. */
  task: string;
  rows: number;
  questions: number;
  /** In the paper's main-experiment subset (2,071 questions). */
  paper: boolean;
  /** Data YAML `generation_max_length` (official reader output budget). */
  maxTokens: number;
}

function s(source: string, split: Split, rows: number, questions: number, paper: boolean, maxTokens: number, task = source): SourceInfo {
  return { source, split, task, rows, questions, paper, maxTokens };
}

export const SOURCES: SourceInfo[] = [
  s('ruler_qa1_197K', 'Accurate_Retrieval', 1, 100, true, 50),
  s('ruler_qa2_421K', 'Accurate_Retrieval', 1, 100, true, 50),
  s('longmemeval_s*', 'Accurate_Retrieval', 5, 300, true, 50),
  s('eventqa_full', 'Accurate_Retrieval', 5, 500, true, 40),
  s('eventqa_65536', 'Accurate_Retrieval', 5, 500, false, 40),
  s('eventqa_131072', 'Accurate_Retrieval', 5, 500, false, 40),
  s('icl_banking77_5900shot_balance', 'Test_Time_Learning', 1, 100, true, 20, 'icl'),
  s('icl_clinic150_7050shot_balance', 'Test_Time_Learning', 1, 100, true, 20, 'icl'),
  s('icl_nlu_8296shot_balance', 'Test_Time_Learning', 1, 100, true, 20, 'icl'),
  s('icl_trec_coarse_6600shot_balance', 'Test_Time_Learning', 1, 100, true, 20, 'icl'),
  s('icl_trec_fine_6400shot_balance', 'Test_Time_Learning', 1, 100, true, 20, 'icl'),
  s('recsys_redial_full', 'Test_Time_Learning', 1, 200, true, 300),
  s('infbench_sum_eng_shots2', 'Long_Range_Understanding', 100, 100, true, 1200),
  s('detective_qa', 'Long_Range_Understanding', 10, 71, true, 2000),
  ...['6k', '32k', '64k', '262k'].flatMap((len) => [
    s(`factconsolidation_mh_${len}`, 'Conflict_Resolution', 1, 100, len === '262k', 10),
    s(`factconsolidation_sh_${len}`, 'Conflict_Resolution', 1, 100, len === '262k', 10),
  ]),
];

const BY_NAME = new Map(SOURCES.map((x) => [x.source, x]));

export function sourceInfo(source: string): SourceInfo | undefined {
  return BY_NAME.get(source);
}

/** Split of a source: the catalogue's, else the split the row was read from. */
export function splitOf(source: string, fileSplit: Split | null): Split | null {
  return BY_NAME.get(source)?.split ?? fileSplit;
}

export function taskOf(source: string): string {
  return BY_NAME.get(source)?.task ?? (source.includes('icl_') ? 'icl' : source);
}

/**
 * Competency of a source: the catalogue's split, else the official template family (sources the
 * catalogue does not know are classified as upstream dispatches them).
 */
export function competencyOf(source: string): string {
  const split = BY_NAME.get(source)?.split;
  if (split) return COMPETENCY_OF_SPLIT[split];
  const family = templateFamily(source);
  switch (family) {
    case 'ruler_qa':
    case 'eventqa':
    case 'longmemeval':
      return 'AR';
    case 'in_context_learning':
    case 'recsys_redial':
      return 'TTL';
    case 'infbench_sum':
    case 'detective_qa':
      return 'LRU';
    case 'factconsolidation':
      return 'CR';
    default:
      return source;
  }
}

/** Human name of a task column (the ICL sources are reported together as MCC, as in the paper). */
export function taskLabel(task: string): string {
  return task === 'icl' ? 'icl (MCC: mean of the 5 ICL sources)' : task;
}

/** generation_max_length of each template family's data YAML (the official reader budget). */
const FAMILY_BUDGET: Record<TemplateFamily, number> = {
  factconsolidation: 10,
  in_context_learning: 20,
  eventqa: 40,
  ruler_qa: 50,
  longmemeval: 50,
  recsys_redial: 300,
  infbench_sum: 1200,
  detective_qa: 2000,
};

/** The official reader max_tokens for a source: the catalogue's, else its template family's; null = unknown family (none sent). */
export function readerBudget(source: string): number | null {
  const family = templateFamily(source);
  return sourceInfo(source)?.maxTokens ?? (family ? FAMILY_BUDGET[family] : null);
}

/** Official metric dispatch (post_process checks substrings in this order). */
export function officialMetric(source: string): OfficialMetric {
  if (source.includes('icl')) return 'exact_match';
  if (source.includes('eventqa')) return 'substring_exact_match';
  if (source.includes('longmemeval')) return 'llm_judge_longmemeval';
  if (source.includes('infbench')) return 'llm_judge_summarization';
  if (source.includes('ruler')) return 'substring_exact_match';
  if (source.includes('recsys')) return 'recsys_recall@5';
  if (source.includes('detective')) return 'exact_match';
  return 'substring_exact_match';
}

/** Template family, by the patterns of utils/templates.py (all must be substrings of the source). */
export function templateFamily(source: string): TemplateFamily | null {
  if (source.includes('ruler_') && source.includes('qa')) return 'ruler_qa';
  if (source.includes('icl_')) return 'in_context_learning';
  if (source.includes('infbench_') && source.includes('sum')) return 'infbench_sum';
  if (source.includes('eventqa_')) return 'eventqa';
  if (source.includes('recsys_') && source.includes('redial')) return 'recsys_redial';
  if (source.includes('longmemeval_')) return 'longmemeval';
  if (source.includes('factconsolidation_')) return 'factconsolidation';
  if (source.includes('detective_') && source.includes('qa')) return 'detective_qa';
  return null;
}

/** `AR`, `accurate_retrieval`, `Accurate_Retrieval` -> the split; null when unknown. */
export function parseSplitName(name: string): Split | null {
  const n = name.trim().toLowerCase();
  for (const sp of SPLITS) {
    if (sp.toLowerCase() === n || COMPETENCY_OF_SPLIT[sp].toLowerCase() === n) return sp;
  }
  return null;
}

/** The split a file holds, from its name (`Accurate_Retrieval-00000-of-00001.parquet`). */
export function splitFromFileName(fileName: string): Split | null {
  const lower = fileName.toLowerCase();
  return SPLITS.find((sp) => lower.startsWith(sp.toLowerCase())) ?? null;
}

/**
 * Checksums: not published by the dataset host. These are the values pinned by third-party
 * harnesses (ScopeGraph's artifact fetcher for all five files; the CR and TTL values also pinned at
 * this exact revision by a second, independent harness). See docs/memoryagentbench.md.
 */
export const SHA256: Record<string, string> = {
  Accurate_Retrieval: '56c3cd80fb6731a3e53cd1a6be3148f54df60ff2d290ee50e28f8acebf9655c1',
  Test_Time_Learning: '5338753be48f925d03318eed66117286e3489025fabe050a547bd086cd7d79c0',
  Long_Range_Understanding: '5ab175461954db67770d4a4cb69e569b513ebb96aceb9ee79b57f67488bcd539',
  Conflict_Resolution: '24d5c3f09ce0ce15625cb9f8a98f44f0d864ca6c94d7b4ad04eb697ca3a5ff45',
  entity2id: '63353aca481bc9558b502f91cb98f6fa26438796fdd7e0bc06b5a1532126e8b5',
};
