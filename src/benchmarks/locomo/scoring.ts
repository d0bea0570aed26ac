/**
 * LoCoMo's scoring protocol: the Mem0 RAG reader prompt (the closest published precedent for a
 * naive-RAG reader; see configs/prompts/locomo-SOURCE.md), the Mem0 ACCURACY_PROMPT judge
 * (json_object, label CORRECT/WRONG; an unreadable reply is an error, never WRONG) and the
 * official token F1 beside it.
 */
import { promptFile } from '../../scoring/prompts.js';
import { renderEvidence, type JudgeProtocol, type ReaderProtocol, type Scoring } from '../../core/protocol.js';
import { locomoF1Metric } from './metrics.js';
import { adversarialAnswer, adversarialOptionsOf } from './adversarial.js';
import type { Question } from '../../core/schema.js';

const LOCOMO = 'snap-research/LoCoMo@3eb6f2c';
const isAdversarial = (q: Question) => q.typeId === 5;

const MEM0 = 'mem0ai/mem0@393a4fd5a';
/** A prompt file from configs/prompts/: its text minus the final newline. */
export function locomoPrompt(name: string): string {
  return promptFile(`locomo-${name}`).replace(/\n$/, '');
}

/** Fills `{{NAME}}` slots in one pass, so a value containing braces is never re-expanded. */
function fillJinja(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (m, k: string) => values[k] ?? m);
}

/** Fills Python `str.format` slots `{name}` in one pass. */
function fillFormat(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (m, k: string) => values[k] ?? m);
}

/** Python `str.format` with positional `{}` slots, in one pass. */
function fillPositional(template: string, values: string[]): string {
  let i = 0;
  return template.replace(/\{\}/g, () => values[i++] ?? '');
}

export const locomoReader: ReaderProtocol = {
  id: 'locomo-mem0-rag-v1',
  source: `${MEM0} evaluation/src/rag.py (system message + PROMPT); category 5: ${LOCOMO} task_eval/gpt_utils.py QA_PROMPT_CAT_5`,
  render(q, evidence) {
    const context = renderEvidence(evidence);
    const options = adversarialOptionsOf(q.meta);
    if (isAdversarial(q) && options) {
      // Upstream: query_conv + '\n\n' + QA_PROMPT_CAT_5.format(question + " Select the correct answer: (a) {} (b) {}. ")
      const question = q.text + fillPositional(locomoPrompt('reader-cat5-options'), [options.a, options.b]);
      return [{ role: 'user', content: `${context}\n\n${fillPositional(locomoPrompt('reader-cat5'), [question])}` }];
    }
    return [
      { role: 'system', content: locomoPrompt('reader-system') },
      { role: 'user', content: fillJinja(locomoPrompt('reader-user'), { QUESTION: q.text, CONTEXT: renderEvidence(evidence) }) },
    ];
  },
  parseAnswer: (reply, q) => {
    const options = adversarialOptionsOf(q.meta);
    return isAdversarial(q) && options ? adversarialAnswer(reply, options) : reply.trim();
  },
  // rag.py sends no max_tokens (temperature 0 only): neither does rawrag. The official category-5 call asks for 32.
  maxTokens: (q) => (isAdversarial(q) ? 32 : null),
};

/**
 * Mem0's extract_json + json.loads(...)["label"]: the first {...} object in the reply, its `label`
 * as sent (a non-string label as its JSON text). Throws when there is no object or no label (Mem0
 * raises there too): an error, never WRONG.
 */
export function judgeLabel(reply: string): string {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(reply);
  const body = fenced ? fenced[1]! : reply;
  const start = body.indexOf('{');
  const end = body.lastIndexOf('}');
  if (start === -1 || end < start) throw new Error(`judge reply has no JSON object: ${JSON.stringify(reply.slice(0, 200))}`);
  let obj: unknown;
  try {
    obj = JSON.parse(body.slice(start, end + 1));
  } catch {
    throw new Error(`judge reply is not valid JSON: ${JSON.stringify(reply.slice(0, 200))}`);
  }
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj) || !('label' in obj)) {
    throw new Error(`judge reply has no "label": ${JSON.stringify(reply.slice(0, 200))}`);
  }
  const label = (obj as { label: unknown }).label;
  return typeof label === 'string' ? label : JSON.stringify(label);
}

/** Mem0's verdict: `1 if label == "CORRECT" else 0` — exact, so "correct" or " CORRECT" count WRONG. */
export function parseLabel(reply: string): 'CORRECT' | 'WRONG' {
  return judgeLabel(reply) === 'CORRECT' ? 'CORRECT' : 'WRONG';
}

export const locomoJudge: JudgeProtocol = {
  id: 'locomo-mem0-accuracy-v1',
  source: `${MEM0} evaluation/metrics/llm_judge.py ACCURACY_PROMPT`,
  jsonMode: true,
  render(q, answer) {
    // Category 5 has no upstream judge: rawrag's own prompt asks whether the answer correctly declines.
    if (isAdversarial(q)) {
      return [{ role: 'user', content: fillFormat(locomoPrompt('judge-adversarial'), { question: q.text, gold_answer: q.gold, generated_answer: answer }) }];
    }
    // The file holds the Python string value (it starts and ends with a newline, like the triple-quoted ACCURACY_PROMPT).
    return [{ role: 'user', content: fillFormat(locomoPrompt('judge'), { question: q.text, gold_answer: q.gold, generated_answer: answer }) }];
  },
  parse: (reply) => (parseLabel(reply) === 'CORRECT' ? 1 : 0),
  customPromptApplies: (q) => !isAdversarial(q),
};

export const locomoScoring: Scoring = {
  reader: locomoReader,
  judge: locomoJudge,
  metrics: [locomoF1Metric],
  card: {
    reader: {
      upstreamModel: 'gpt-4o-mini',
      prompts: ['locomo-reader-system', 'locomo-reader-user', 'locomo-reader-cat5', 'locomo-reader-cat5-options'],
      sourceNote: 'locomo-SOURCE.md',
    },
    judge: { upstreamModel: 'gpt-4o-mini', prompts: ['locomo-judge', 'locomo-judge-adversarial'], sourceNote: 'locomo-SOURCE.md' },
    denominator:
      'every selected question of categories 1-4 (1,540); category 5 (adversarial, 446, -B categories=5) is its own row, never in the headline, scored by the official rule (f1) and by a judge asked whether the answer declines; accuracy is reported over all N (failed items count 0) beside accuracy over scored items, with the failures by stage',
    headline: 'accuracy = mean item score (item = mean of the judge runs), overall and per category; token F1 beside it',
  },
};
