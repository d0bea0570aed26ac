/**
 * LongMemEval's official protocol as data: the reader prompt of run_generation.py (history as
 * JSON sessions with their dates, then `Current Date:`), the per-type judge prompts of
 * evaluate_qa.py with its decision rule (`'yes' in reply.lower()`), and the reported scores of
 * print_qa_metrics.py (overall, task-averaged, abstention accuracy). Templates: configs/prompts/.
 */
import { promptFile } from '../../scoring/prompts.js';
import { renderEvidence, type ChatMessage, type EvidenceView, type JudgeProtocol, type ReaderProtocol, type Scoring } from '../../core/protocol.js';
import type { Question, Turn } from '../../core/schema.js';
import { isAbstention, type QuestionType } from './format.js';

const SOURCE_GEN = 'xiaowu0162/LongMemEval@9e0b455 src/generation/run_generation.py';
const SOURCE_EVAL = 'xiaowu0162/LongMemEval@9e0b455 src/evaluation/evaluate_qa.py';

/** The official judge model (evaluate_qa.py `model_zoo['gpt-4o']`; print_qa_metrics.py asserts it). */
export const OFFICIAL_JUDGE_MODEL = 'gpt-4o-2024-08-06';

export const READING_METHODS = ['con', 'direct'] as const;
export type ReadingMethod = (typeof READING_METHODS)[number];

/** A template file, checked to hold exactly `slots` positional `{}` placeholders. */
export function loadTemplate(name: string, slots = 3): string {
  const t = promptFile(`longmemeval-${name}`);
  const found = t.split('{}').length - 1;
  if (found !== slots) throw new Error(`configs/prompts/longmemeval-${name}.txt: expected ${slots} '{}' slots, found ${found}`);
  return t;
}

/** Python `'...{}...{}'.format(a, b)` for plain `{}` slots, in one pass (values are never re-scanned). */
export function fillSlots(template: string, values: string[]): string {
  const parts = template.split('{}');
  let out = parts[0]!;
  for (let i = 1; i < parts.length; i++) out += values[i - 1]! + parts[i]!;
  return out;
}

/** Python `json.dumps` string encoding with its defaults (ensure_ascii=True). */
export function pyJsonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += '\\\\';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x08) out += '\\b';
    else if (c === 0x0c) out += '\\f';
    // Python escapes everything outside ' '..'~' (so DEL and non-ASCII too), as UTF-16 units.
    else if (c < 0x20 || c > 0x7e) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += s[i];
  }
  return out + '"';
}

/** `json.dumps([{"role": ..., "content": ...}, ...])` with Python's default separators. */
export function pyJsonSession(turns: Array<{ role: string; content: string }>): string {
  return '[' + turns.map((t) => `{"role": ${pyJsonString(t.role)}, "content": ${pyJsonString(t.content)}}`).join(', ') + ']';
}

/** Turn number within its session (ids are `<session key>:<n>`). */
function turnNumber(t: Turn): number {
  return Number(t.id.slice(t.id.lastIndexOf(':') + 1));
}

/**
 * The history string of run_generation.py (history_format=json): the shown turns grouped by
 * session (each session in turn order), sessions stably sorted by date string, numbered from 1.
 */
export function renderHistory(turns: readonly Turn[]): string {
  const sessions: Array<{ date: string; turns: Turn[] }> = [];
  const byKey = new Map<string, { date: string; turns: Turn[] }>();
  for (const t of turns) {
    let s = byKey.get(t.session);
    if (!s) {
      s = { date: t.date ?? '', turns: [] };
      byKey.set(t.session, s);
      sessions.push(s);
    }
    s.turns.push(t);
  }
  // Array.prototype.sort is stable: equal dates keep presentation (rank) order, like Python's list.sort.
  sessions.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  let history = '';
  sessions.forEach((s, i) => {
    const ordered = [...s.turns].sort((a, b) => turnNumber(a) - turnNumber(b));
    const sess = '\n' + pyJsonSession(ordered.map((t) => ({ role: t.speaker, content: t.text })));
    history += `\n### Session ${i + 1}:\nSession Date: ${s.date}\nSession Content:\n${sess}\n`;
  });
  return history;
}

function readingOf(q: Question): ReadingMethod {
  const r = q.meta?.reading;
  return r === 'direct' ? 'direct' : 'con';
}

export const longMemEvalReader: ReaderProtocol = {
  id: 'longmemeval-official-json-v1',
  source: `${SOURCE_GEN} (answer templates l.47-69, history layout l.224-260; con = cot template unless -B reading=direct)`,
  render(q: Question, evidence: EvidenceView): ChatMessage[] {
    const template = loadTemplate(`reader-${readingOf(q)}`);
    return [{ role: 'user', content: fillSlots(template, [renderEvidence(evidence, { history: (seg) => renderHistory(seg.turns) }), q.questionDate ?? '', q.text]) }];
  },
  // The official hypothesis is the whole completion, stripped (the judge reads any reasoning too).
  parseAnswer: (reply: string) => reply.trim(),
  maxTokens: (q) => READER_MAX_TOKENS[readingOf(q)],
};

/** run_generation.py: max_tokens 800 for the step-by-step (con) template, 500 for direct. */
export const READER_MAX_TOKENS: Record<ReadingMethod, number> = { con: 800, direct: 500 };

const JUDGE_TEMPLATE: Record<QuestionType, string> = {
  'single-session-user': 'judge-default',
  'single-session-assistant': 'judge-default',
  'multi-session': 'judge-default',
  'temporal-reasoning': 'judge-temporal',
  'knowledge-update': 'judge-knowledge-update',
  'single-session-preference': 'judge-preference',
};

/** get_anscheck_prompt: the abstention template for any `_abs` id, else the type's template. */
export function judgeTemplateName(q: Question): string {
  if (isAbstention(q.id)) return 'judge-abstention';
  const name = JUDGE_TEMPLATE[q.type as QuestionType];
  if (!name) throw new Error(`LongMemEval has no judge prompt for question type '${q.type}' (${q.id})`);
  return name;
}

export const longMemEvalJudge: JudgeProtocol = {
  id: 'longmemeval-anscheck-v1',
  source: `${SOURCE_EVAL} (get_anscheck_prompt l.24-46; label = 'yes' in reply.lower())`,
  render(q: Question, answer: string): ChatMessage[] {
    return [{ role: 'user', content: fillSlots(loadTemplate(judgeTemplateName(q)), [q.text, q.gold, answer]) }];
  },
  // evaluate_qa.py: temperature 0, max_tokens 10 (a yes/no verdict).
  maxTokens: 10,
  // Official rule, substring test included (a reply such as "eyes" also counts).
  parse: (reply: string) => (reply.trim().toLowerCase().includes('yes') ? 1 : 0),
};

export const longMemEvalScoring: Scoring = {
  reader: longMemEvalReader,
  judge: longMemEvalJudge,
  metrics: [],
  card: {
    reader: {
      upstreamModel: null,
      maxTokensRule: '800 for -B reading=con (chain-of-note, the default), 500 for -B reading=direct',
      prompts: ['longmemeval-reader-con', 'longmemeval-reader-direct'],
      sourceNote: 'longmemeval-SOURCE.md',
    },
    judge: {
      upstreamModel: OFFICIAL_JUDGE_MODEL,
      prompts: ['longmemeval-judge-default', 'longmemeval-judge-temporal', 'longmemeval-judge-knowledge-update', 'longmemeval-judge-preference', 'longmemeval-judge-abstention'],
      sourceNote: 'longmemeval-SOURCE.md',
    },
    denominator:
      'official: questions with a judged answer (print_qa_metrics.py averages the labels it has); rawrag prints accuracy over all N (failed items count 0) beside it, with the failures by stage',
    headline: 'overall accuracy (micro over the 500), task-averaged accuracy and abstention accuracy',
  },
};
