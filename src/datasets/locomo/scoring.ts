/**
 * LoCoMo's scoring protocol: the Mem0 RAG reader prompt (the closest published precedent for a
 * naive-RAG reader; see configs/prompts/locomo-SOURCE.md), the Mem0 ACCURACY_PROMPT judge
 * (json_object, label CORRECT/WRONG; an unreadable reply is an error, never WRONG) and the
 * official token F1 beside it.
 */
import { promptFile } from '../../eval/prompts.js';
import type { JudgeProtocol, ReaderProtocol, Scoring } from '../../eval/protocol.js';
import { locomoF1Metric } from './metrics.js';

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

export const locomoReader: ReaderProtocol = {
  id: 'locomo-mem0-rag-v1',
  source: `${MEM0} evaluation/src/rag.py (system message + PROMPT)`,
  render(q, evidence) {
    return [
      { role: 'system', content: locomoPrompt('reader-system') },
      { role: 'user', content: fillJinja(locomoPrompt('reader-user'), { QUESTION: q.text, CONTEXT: evidence.recalled ?? evidence.blocks.join('\n') }) },
    ];
  },
  parseAnswer: (reply) => reply.trim(),
};

/** Mem0's extract_json + json.loads(...)["label"]: the first {...} object in the reply. */
export function parseLabel(reply: string): 'CORRECT' | 'WRONG' {
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
  const label = (obj as { label?: unknown })?.label;
  const norm = typeof label === 'string' ? label.trim().toUpperCase() : '';
  if (norm !== 'CORRECT' && norm !== 'WRONG') throw new Error(`judge label is neither CORRECT nor WRONG: ${JSON.stringify(label)}`);
  return norm;
}

export const locomoJudge: JudgeProtocol = {
  id: 'locomo-mem0-accuracy-v1',
  source: `${MEM0} evaluation/metrics/llm_judge.py ACCURACY_PROMPT`,
  jsonMode: true,
  render(q, answer) {
    return [{ role: 'user', content: fillFormat(locomoPrompt('judge'), { question: q.text, gold_answer: q.gold, generated_answer: answer }) }];
  },
  parse: (reply) => (parseLabel(reply) === 'CORRECT' ? 1 : 0),
};

export const locomoScoring: Scoring = {
  reader: locomoReader,
  judge: locomoJudge,
  metrics: [locomoF1Metric],
};
