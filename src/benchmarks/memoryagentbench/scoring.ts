/**
 * MemoryAgentBench scoring as the official code does it (spec memoryagentbench.md §2-3):
 * - reader: the RAG agent's prompt (utils/templates.py `rag_agent` query per source, system
 *   message, retrieved units as `Memory i:` blocks; agent.py::_handle_bm25_rag);
 * - offline metric per source (`official`): substring EM, EM or recsys recall@5;
 * - LLM judges for longmemeval_s* (yes/no, per question type) and infbench_sum (fluency x F1 of
 *   keypoint recall and sentence precision: three requests per verdict).
 * The retrieval units are RAW-RAG's raw windows/facts, not the official memorize-wrapped chunks.
 */
import type { Question } from '../../core/schema.js';
import { renderEvidence, type ChatMessage, type EvidenceView, type JudgeAsk, type JudgeOutcome, type JudgeProtocol, type Metric, type ReaderProtocol, type Scoring } from '../../core/protocol.js';
import {
  defaultPostProcess,
  eventqaRecall,
  loadMovieCatalogue,
  parsedOnly,
  pyStrip,
  recsysRecall,
  type QaMetrics,
} from './metrics.js';
import { SYSTEM_PROMPT, promptText, pyFormat, queryTemplate } from './prompts.js';
import { pyReprList } from '../../util/python.js';
import { officialMetric, readerBudget, templateFamily } from './sources.js';

const REPO = 'HUST-AI-HYZ/MemoryAgentBench@455306dcabc3842526eb83cd4e225e5d486c5c5d';

export function sourceOf(q: Question): string {
  return typeof q.meta?.source === 'string' ? q.meta.source : q.type;
}

/** The RAG agent's query for a question (template filled with the HF question string). */
export function renderQuery(q: Question): string {
  const family = templateFamily(sourceOf(q));
  if (!family) throw new Error(`no official template for source '${sourceOf(q)}'`);
  return pyFormat(queryTemplate(family), { question: q.text });
}

export const reader: ReaderProtocol = {
  id: 'memoryagentbench-rag-agent-v1',
  source: `${REPO} utils/templates.py (rag_agent query, SYSTEM_MESSAGE); agent.py::_handle_bm25_rag (Memory i: layout)`,
  render(q: Question, evidence: EvidenceView): ChatMessage[] {
    const memories = renderEvidence(evidence, { history: (seg) => seg.blocks.map((b, i) => `Memory ${i + 1}:\n${b.text}`).join('\n') });
    return [
      { role: 'system', content: SYSTEM_PROMPT() },
      { role: 'user', content: `${memories}\n${renderQuery(q)}` },
    ];
  },
  // The data YAML's generation_max_length of the question's source (FC 10 ... DetectiveQA 2000).
  maxTokens: (q) => readerBudget(sourceOf(q)),
};

// ---- offline metrics ----

/** The QA metrics of a source's post-processing (null for recsys, which has its own). */
export function qaMetrics(answer: string, q: Question): QaMetrics | null {
  const source = sourceOf(q);
  if (source.includes('recsys')) return null;
  // post_process: ICL and EventQA score the parsed output only; the rest take max(raw, parsed).
  return source.includes('icl') || source.includes('eventqa') ? parsedOnly(answer, q.acceptable) : defaultPostProcess(answer, q.acceptable);
}

const recallMemo = new Map<string, number | null>();

function recsysAt(answer: string, q: Question, k: number): number | null {
  if (!sourceOf(q).includes('recsys')) return null;
  const path = q.meta?.entity2id;
  if (typeof path !== 'string') return null;
  const key = `${q.id}\u0000${k}\u0000${answer}`;
  if (!recallMemo.has(key)) {
    if (recallMemo.size > 1000) recallMemo.clear();
    recallMemo.set(key, recsysRecall(answer, q.acceptable, loadMovieCatalogue(path), k));
  }
  return recallMemo.get(key)!;
}

/** The number the official code reports for the source (null where an LLM judge decides). */
export function officialScore(answer: string, q: Question): number | null {
  const metric = officialMetric(sourceOf(q));
  if (metric === 'recsys_recall@5') return recsysAt(answer, q, 5);
  if (metric === 'exact_match') return qaMetrics(answer, q)!.exact_match;
  if (metric === 'substring_exact_match') return qaMetrics(answer, q)!.substring_exact_match;
  return null;
}

export const metrics: Metric[] = [
  { name: 'official', score: officialScore },
  { name: 'exact_match', score: (a, q) => qaMetrics(a, q)?.exact_match ?? null },
  { name: 'substring_exact_match', score: (a, q) => qaMetrics(a, q)?.substring_exact_match ?? null },
  { name: 'f1', score: (a, q) => qaMetrics(a, q)?.f1 ?? null },
  { name: 'eventqa_recall', score: (a, q) => (sourceOf(q).includes('eventqa') ? eventqaRecall(a, q.acceptable) : null) },
  { name: 'recsys_recall@1', score: (a, q) => recsysAt(a, q, 1) },
  { name: 'recsys_recall@5', score: (a, q) => recsysAt(a, q, 5) },
  { name: 'recsys_recall@10', score: (a, q) => recsysAt(a, q, 10) },
];

// ---- LLM judges ----

/** longmem_qa_evaluate.py prompt choice: abstention first (`_abs` in the question id), then the type. */
export function longmemevalPromptName(q: Question): string {
  if (q.meta?.abstention === true || String(q.meta?.question_id ?? '').includes('_abs')) return 'abstention';
  const type = String(q.meta?.question_type ?? '');
  if (['single-session-user', 'single-session-assistant', 'multi-session'].includes(type)) return 'default';
  if (type === 'temporal-reasoning') return 'temporal';
  if (type === 'knowledge-update') return 'knowledge-update';
  if (type === 'single-session-preference') return 'preference';
  throw new Error(`LongMemEval question type '${type}' has no official judge prompt (question ${q.id})`);
}

function goldList(q: Question): unknown {
  return q.meta?.gold_list ?? q.acceptable;
}

/** The official judge request: question, the answer list as a Python list, the model response. */
export function renderLongmemevalJudge(q: Question, answer: string): ChatMessage[] {
  const text = pyFormat(promptText(`judge-longmemeval-${longmemevalPromptName(q)}`), [q.text, pyReprList(goldList(q)), answer]);
  return [{ role: 'user', content: text }];
}

export function parseYesNo(reply: string): number {
  return reply.toLowerCase().includes('yes') ? 1 : 0;
}

function keypointsOf(q: Question): string[] {
  const k = q.meta?.keypoints;
  return Array.isArray(k) ? k.map(String) : [];
}

/** The three ∞Bench-Sum requests (summarization_evaluate.py, HELMET book prompts). */
export function renderSummaryJudge(q: Question, answer: string): { fluency: ChatMessage[]; recall: ChatMessage[]; precision: ChatMessage[] } {
  const summary = pyStrip(answer);
  const keypoints = keypointsOf(q).map((kp, i) => `${i + 1}. ${kp}`).join('\n');
  // Official quirk kept: the expert summary is d["answer"][0], a one-element list, rendered as a Python list.
  const expert = pyReprList(goldList(q));
  const user = (content: string): ChatMessage[] => [{ role: 'user', content }];
  return {
    fluency: user(pyFormat(promptText('judge-sum-fluency'), { text: summary })),
    recall: user(pyFormat(promptText('judge-sum-recall'), { keypoints, summary })),
    precision: user(pyFormat(promptText('judge-sum-precision'), { expert_summary: expert, summary })),
  };
}

/** JSON from a judge reply: the last `{...}`, else a fenced json block; throws when neither parses. */
export function parseJudgeJson(reply: string): Record<string, unknown> {
  const objects = reply.match(/\{[\s\S]*?\}/g);
  const candidates = [objects?.[objects.length - 1], /```json\s*([\s\S]*?)```/.exec(reply)?.[1]];
  for (const c of candidates) {
    if (!c) continue;
    try {
      const v = JSON.parse(c);
      if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch {
      /* try the next form */
    }
  }
  throw new Error(`judge reply has no readable JSON object: ${reply.slice(0, 120)}`);
}

function numberField(obj: Record<string, unknown>, field: string): number {
  const v = obj[field];
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`judge JSON has no numeric '${field}'`);
  return v;
}

/** f1 = fluency x 2PR/(P+R), R = recall / |keypoints|, P = precision / sentence_count (0 on empty denominators). */
export function summaryScore(fluency: number, recall: number, keypoints: number, precision: number, sentences: number): { rec: number; prec: number; f1: number } {
  const rec = keypoints > 0 ? recall / keypoints : 0;
  const prec = sentences > 0 ? precision / sentences : 0;
  const f1 = rec + prec > 0 ? (fluency * 2 * (rec * prec)) / (rec + prec) : 0;
  return { rec, prec, f1 };
}

function isSummary(q: Question): boolean {
  return officialMetric(sourceOf(q)) === 'llm_judge_summarization';
}

function isLongmemeval(q: Question): boolean {
  return officialMetric(sourceOf(q)) === 'llm_judge_longmemeval';
}

export const judge: JudgeProtocol = {
  id: 'memoryagentbench-official-judges-v1',
  source: `${REPO} llm_based_eval/longmem_qa_evaluate.py (yes/no per type); llm_based_eval/summarization_evaluate.py (HELMET book prompts)`,
  render(q, answer) {
    if (isLongmemeval(q)) return renderLongmemevalJudge(q, answer);
    if (isSummary(q)) return renderSummaryJudge(q, answer).fluency;
    return null;
  },
  parse(reply, q) {
    if (isSummary(q)) throw new Error('∞Bench-Sum needs three judge replies (JudgeProtocol.judge)');
    return parseYesNo(reply);
  },
  // ∞Bench-Sum asks fluency, recall and precision: three requests per run.
  requestsPerRun(q: Question): number {
    return isSummary(q) ? 3 : 1;
  },
  async judge(q: Question, answer: string, ask: JudgeAsk): Promise<JudgeOutcome> {
    if (!isSummary(q)) {
      // longmem_qa_evaluate.py: temperature 0, max_tokens 10.
      const reply = await ask(renderLongmemevalJudge(q, answer), { maxTokens: 10 });
      return { verdict: parseYesNo(reply), details: { reply } };
    }
    const prompts = renderSummaryJudge(q, answer);
    // One after the other, so the kept replies are always in fluency, recall, precision order.
    const f = await ask(prompts.fluency);
    const r = await ask(prompts.recall);
    const p = await ask(prompts.precision);
    const fj = parseJudgeJson(f);
    const rj = parseJudgeJson(r);
    const pj = parseJudgeJson(p);
    const fluency = numberField(fj, 'fluency');
    const recall = numberField(rj, 'recall');
    const precision = numberField(pj, 'precision');
    const sentences = numberField(pj, 'sentence_count');
    const keypoints = keypointsOf(q).length;
    const s = summaryScore(fluency, recall, keypoints, precision, sentences);
    return {
      verdict: s.f1,
      details: { fluency, recall, keypoints, precision, sentence_count: sentences, ...s, replies: { fluency: f, recall: r, precision: p } },
    };
  },
};

export const scoring: Scoring = {
  reader,
  judge,
  metrics,
  fallbackMetric: 'official',
  card: {
    reader: {
      upstreamModel: null,
      maxTokensRule: 'per source, the data YAML generation_max_length: FactConsolidation 10, ICL 20, EventQA 40, RULER-QA and LongMemEval 50, recsys 300, ∞Bench-Sum 1200, DetectiveQA 2000',
      prompts: ['memoryagentbench-system', 'memoryagentbench-query-<family> (one per source family)'],
      sourceNote: 'memoryagentbench-SOURCE.md',
    },
    judge: {
      upstreamModel: 'gpt-4o',
      maxTokensRule: 'LongMemEval yes/no: 10; ∞Bench-Sum: none sent (official gpt-4o-2024-05-13, temperature 0.1, 4096)',
      prompts: ['memoryagentbench-judge-longmemeval-*', 'memoryagentbench-judge-sum-fluency', 'memoryagentbench-judge-sum-recall', 'memoryagentbench-judge-sum-precision'],
      sourceNote: 'memoryagentbench-SOURCE.md',
    },
    denominator:
      'official: per source, the mean over its questions (∞Bench-Sum skips unparsable judge replies); rawrag prints the macro over all N (failed items count 0) beside the macro over scored items, with the failures by stage',
    headline: 'four-competency macro: source means -> task means (ICL = MCC) -> competency means -> mean of AR, TTL, LRU, CR',
  },
};
