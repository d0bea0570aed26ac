/**
 * MEME scoring, as MEME-public code/eval/judge.py does it (spec meme-personamem-beam.md §1.4):
 * - the judge is given `entity_values` (the first entity's value), never `gold_answer`;
 * - before-questions (Cas/Abs/Del) use BEFORE_COMMON_PROMPT; ER before-questions are not judged;
 * - after-questions use the task prompt: Tr MULTIPLE_UPDATE (gold = ", ".join(history)),
 *   Cas CASCADE_D, Abs CASCADE_U, Del DELETION, Agg MULTIHOP (passes only when every value is present);
 * - ER is a whitespace- and case-normalised substring check, no LLM (metric `er_substring`).
 * The before/after pass rule for Del, Cas and Abs crosses items: it is applied in summary.ts.
 */
import { promptFile } from '../../scoring/prompts.js';
import { pyReprList } from '../../util/python.js';
import { renderEvidence, type ChatMessage, type JudgeProtocol, type Metric, type ReaderProtocol, type Scoring } from '../../core/protocol.js';
import type { Question } from '../../core/schema.js';
import type { MemeValue } from './format.js';

const SOURCE = 'luoluow/agent_memory@ab17b22 MEME-public/code/eval/judge.py (verbatim fork of SeokwonJung-Jay/MEME-public)';

export function memePrompt(name: string): string {
  return promptFile(`meme-${name}`);
}

/** Fills `{name}` placeholders in one pass, like Python's str.format (values are never re-scanned). */
export function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{([a-z_]+)\}/g, (whole, name: string) => (name in values ? values[name]! : whole));
}

/** Python `str()` of a value from entity_values: strings as they are, lists as their repr. */
export function pyStr(v: MemeValue): string {
  return Array.isArray(v) ? pyReprList(v) : v;
}


interface MemeMeta {
  phase: 'before' | 'after';
  task: string;
  entity: string;
  entity_values: Record<string, MemeValue>;
}

export function memeMeta(q: Question): MemeMeta {
  const m = q.meta as Partial<MemeMeta> | undefined;
  if (!m || (m.phase !== 'before' && m.phase !== 'after') || typeof m.task !== 'string' || !m.entity_values || typeof m.entity !== 'string') {
    throw new Error(`question ${q.id} has no MEME metadata (phase, task, entity, entity_values)`);
  }
  return m as MemeMeta;
}

/** The judge request for one MEME answer; null for ER (substring check, or not judged before the change). */
export function renderMemeJudge(q: Question, answer: string): ChatMessage[] | null {
  const m = memeMeta(q);
  if (m.task === 'ER') return null;
  const first = m.entity_values[m.entity]!;
  let prompt: string;
  if (m.task === 'Tr') {
    // judge.py checks Tr before the phase switch: the history prompt in either phase.
    const history = Array.isArray(first) ? first : [first];
    prompt = fill(memePrompt('judge-multiple-update'), { question: q.text, gold: history.join(', '), agent_answer: answer });
  } else if (m.task === 'Agg') {
    const values = Object.values(m.entity_values).map((v) => `"${pyStr(v)}"`).join(', ');
    prompt = fill(memePrompt('judge-multihop'), { question: q.text, gold_values: values, agent_answer: answer });
  } else {
    const name = m.phase === 'before' ? 'judge-before-common' : AFTER_PROMPT[m.task];
    if (!name) throw new Error(`question ${q.id}: no MEME judge prompt for task '${m.task}'`);
    prompt = fill(memePrompt(name), { question: q.text, gold: pyStr(first), agent_answer: answer });
  }
  return [{ role: 'user', content: prompt }];
}

const AFTER_PROMPT: Record<string, string> = {
  Cas: 'judge-cascade-d',
  Abs: 'judge-cascade-u',
  Del: 'judge-deletion',
};

/** judge.py `_call`: json.loads, else strip one ``` fence and retry; a non-object reply cannot be read. */
export function parseJudgeJson(reply: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(reply);
  } catch {
    let content = reply.trim();
    if (content.startsWith('```')) {
      const nl = content.indexOf('\n');
      content = nl === -1 ? '' : content.slice(nl + 1);
      if (content.endsWith('```')) content = content.slice(0, -3);
    }
    try {
      value = JSON.parse(content);
    } catch {
      throw new Error(`MEME judge reply is not JSON: ${JSON.stringify(reply.slice(0, 200))}`);
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`MEME judge reply is not a JSON object: ${JSON.stringify(reply.slice(0, 200))}`);
  }
  return value as Record<string, unknown>;
}

/** Python truthiness, which judge.py applies to `result.get("correct", False)` and `present`. */
export function truthy(v: unknown): boolean {
  if (v === undefined || v === null || v === false) return false;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'string') return v.length > 0;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return Boolean(v);
}

export function parseMemeJudge(reply: string, q: Question): number {
  const m = memeMeta(q);
  const result = parseJudgeJson(reply);
  if (m.task !== 'Agg') return truthy(result.correct) ? 1 : 0;
  // u_check_multi: results[i] is the i-th entity of entity_values; a missing entry is absent; pass needs all.
  const list = result.results ?? [];
  if (!Array.isArray(list)) throw new Error(`MEME Agg judge reply: "results" is not a list: ${JSON.stringify(reply.slice(0, 200))}`);
  const n = Object.keys(m.entity_values).length;
  for (let i = 0; i < n; i++) {
    if (i >= list.length) return 0;
    const entry = list[i] as unknown;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw new Error(`MEME Agg judge reply: results[${i}] is not an object`);
    }
    if (!truthy((entry as Record<string, unknown>).present)) return 0;
  }
  return 1;
}

export const memeJudge: JudgeProtocol = {
  id: 'meme-judge-v1',
  source: SOURCE,
  jsonMode: true,
  render: renderMemeJudge,
  parse: parseMemeJudge,
};

/** judge.py ER check: `' '.join(gold.lower().split()) in ' '.join(answer.lower().split())`. */
export function erSubstring(gold: string, answer: string): boolean {
  const norm = (s: string) => s.toLowerCase().split(/\s+/).filter(Boolean).join(' ');
  return norm(answer).includes(norm(gold));
}

export const erMetric: Metric = {
  name: 'er_substring',
  score(answer, q) {
    const m = memeMeta(q);
    // ER before-questions are "skipped (ER)" by judge.py: not scored.
    if (m.task !== 'ER' || m.phase !== 'after') return null;
    return erSubstring(pyStr(m.entity_values[m.entity]!), answer) ? 1 : 0;
  },
};

/**
 * judge.py's Tr side figure (`u_pass_count / u_pass_total`): how many history values appear in
 * order, by first occurrence. Reported beside the judge, never instead of it.
 */
export const trOrderMetric: Metric = {
  name: 'tr_in_order',
  score(answer, q) {
    const m = memeMeta(q);
    if (m.task !== 'Tr') return null;
    const first = m.entity_values[m.entity]!;
    const history = Array.isArray(first) ? first : [first];
    const lower = answer.toLowerCase();
    let count = 0;
    let last = -1;
    for (const v of history) {
      const pos = lower.indexOf(v.toLowerCase());
      if (pos > last) {
        count++;
        last = pos;
      }
    }
    return history.length ? count / history.length : null;
  },
};

export const memeReader: ReaderProtocol = {
  id: 'meme-unified-answer-v1',
  source: 'luoluow/agent_memory@ab17b22 MEME-public/code/agents/base.py UNIFIED_ANSWER_PROMPT',
  render(q, evidence) {
    // Evidence arrives in chronological order (policy); one serialised turn per line.
    return [{ role: 'user', content: fill(memePrompt('reader'), { context: renderEvidence(evidence), question: q.text }) }];
  },
  // code/agents/base.py: temperature 0, max_tokens 500.
  maxTokens: () => 500,
};

export const memeScoring: Scoring = {
  reader: memeReader,
  judge: memeJudge,
  metrics: [erMetric, trOrderMetric],
  fallbackMetric: 'er_substring',
  card: {
    reader: { upstreamModel: 'gpt-4.1-mini', prompts: ['meme-reader'], sourceNote: 'meme-SOURCE.md' },
    judge: {
      upstreamModel: 'gpt-4o',
      prompts: ['meme-judge-before-common', 'meme-judge-cascade-d', 'meme-judge-cascade-u', 'meme-judge-deletion', 'meme-judge-multihop', 'meme-judge-multiple-update'],
      sourceNote: 'meme-SOURCE.md',
    },
    denominator: 'official: every question (a failed answer is a failed pass); rawrag prints accuracy over scored items beside it, with the failures by stage',
    headline: 'six-task macro of the after-question pass rates (ER, Agg, Tr raw; Del, Cas, Abs only real passes: the before-question on the same entity passed too)',
  },
};
