/**
 * BEAM's official scoring (spec §3.3-3.4), as a ReaderProtocol and a multi-request JudgeProtocol.
 *
 * Nine abilities: every rubric item is judged 0 / 0.5 / 1 with `unified_llm_judge_base_prompt`,
 * and the question scores the mean over its items. Event ordering: tau_norm from the aligned
 * answer lines (ordering.ts). The official code has three defects, kept by default (the official
 * rubric, the number published BEAM figures use) and fixed by `-B beam-rubric=corrected` (carried in
 * each question's meta as `official_defects`; a run's details name them 'official-defects' / 'fixed'):
 *   1. `int(response['score'])` truncates 0.5 to 0 (and raises on a string such as "0.5");
 *   2. the `<question>` placeholder is never filled, so the judge reads the literal `<question>`;
 *   3. (spec §3.4 item 3) tau-b can be NaN; corrected mode guards it, official mode fails the item.
 * Both the float and the int() variants are recorded in every judge run's details, so the summary
 * prints the corrected rubric beside the official headline.
 */
import { promptFile } from '../../scoring/prompts.js';
import type { Question } from '../../core/schema.js';
import { renderEvidence, type ChatMessage, type JudgeAsk, type JudgeOutcome, type JudgeProtocol, type ReaderProtocol, type Scoring } from '../../core/protocol.js';
import { alignWithReference, answerLines, guardedTauNorm, orderingScore } from './ordering.js';

export const SOURCE = 'mohammadtavakoli78/BEAM@b2a3ee8';

/** A prompt file from configs/prompts/, read once, byte for byte. */
export function beamPrompt(name: 'judge' | 'rag-reader' | 'equivalence-system' | 'equivalence-user'): string {
  return promptFile(`beam-${name}`);
}

/** Python `str.replace` (every occurrence). */
const replaceAll = (s: string, from: string, to: string) => s.split(from).join(to);

/** Fills `<name>` placeholders in one pass, so text put in never gets rewritten by a later fill. */
function fill(template: string, values: Record<string, string>): string {
  return template.replace(/<(question|rubric_item|llm_response|context)>/g, (m, k: string) => values[k] ?? m);
}

export interface BeamQuestionMeta {
  ability: string;
  rubric: string[];
  official_defects: boolean;
}

export function metaOf(q: Question): BeamQuestionMeta {
  const m = q.meta as Partial<BeamQuestionMeta> | undefined;
  if (!m || !Array.isArray(m.rubric) || typeof m.ability !== 'string') {
    throw new Error(`question ${q.id} carries no BEAM rubric (meta.rubric / meta.ability)`);
  }
  return { ability: m.ability, rubric: m.rubric, official_defects: m.official_defects === true };
}

/** The judge prompt for one rubric item. Official: the `<question>` slot stays literal. */
export function renderJudgePrompt(question: string, rubricItem: string, answer: string, officialDefects: boolean): string {
  const t = beamPrompt('judge');
  if (officialDefects) return replaceAll(replaceAll(t, '<rubric_item>', rubricItem), '<llm_response>', answer);
  return fill(t, { question, rubric_item: rubricItem, llm_response: answer });
}

export function renderEquivalence(reference: string, system: string): ChatMessage[] {
  const user = beamPrompt('equivalence-user');
  return [
    { role: 'system', content: beamPrompt('equivalence-system') },
    // One pass, so an answer line holding "{second_paragraph}" stays as written.
    { role: 'user', content: user.replace(/\{(first|second)_paragraph\}/g, (_m, k: string) => (k === 'first' ? reference : system)) },
  ];
}

/** The official decision: "yes" anywhere in the lower-cased reply. */
export function parseEquivalence(reply: string): boolean {
  return reply.toLowerCase().includes('yes');
}

export interface RubricVerdict {
  /** The score as the judge wrote it. */
  raw: unknown;
  /** As a number in [0, 1] (the documented 0 / 0.5 / 1 scale). */
  score: number;
  /** What Python's int() makes of it; null where int() raises (e.g. the string "0.5"). */
  official_int: number | null;
  reason: string | null;
}

/**
 * Reads the judge's JSON reply like the official `parse_json_response` (fenced block, then the
 * first {...}) with a lenient fallback for near-JSON; throws when no score can be read.
 */
export function parseRubricReply(reply: string): RubricVerdict {
  const obj = readJsonObject(reply);
  const raw = obj?.score;
  const score = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw.trim()) : Number.NaN;
  if (!Number.isFinite(score) || score < 0 || score > 1) {
    throw new Error(`BEAM judge reply has no score in [0, 1]: ${JSON.stringify(reply.slice(0, 200))}`);
  }
  return { raw, score, official_int: pythonInt(raw), reason: typeof obj?.reason === 'string' ? obj.reason : null };
}

/** Python int(x) for a JSON value: truncates numbers; parses only integer strings; else raises (null). */
export function pythonInt(raw: unknown): number | null {
  if (typeof raw === 'number' && Number.isFinite(raw)) return Math.trunc(raw);
  if (typeof raw === 'boolean') return raw ? 1 : 0;
  if (typeof raw === 'string' && /^\s*[+-]?\d+(_\d+)*\s*$/.test(raw)) return Number(raw.trim().replace(/_/g, ''));
  return null;
}

function readJsonObject(reply: string): Record<string, unknown> | null {
  let text = reply.trim();
  const fenced = /^```(?:json)?\s*(\{[\s\S]*\}|\[[\s\S]*\])\s*```/.exec(text);
  if (fenced) text = fenced[1]!.trim();
  const attempts = [text, /\{[\s\S]*?\}/.exec(text)?.[0], /\{[\s\S]*\}/.exec(text)?.[0]];
  for (const a of attempts) {
    if (!a) continue;
    try {
      const v = JSON.parse(a) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch {
      /* next attempt */
    }
  }
  // json_repair-like last resort: a bare `"score": <number>` anywhere in the reply.
  const m = /"?score"?\s*:\s*"?([0-9.]+)"?/i.exec(reply);
  return m ? { score: Number(m[1]) } : null;
}

/** Question score from its rubric verdicts, in the selected variant. */
export function rubricScore(verdicts: RubricVerdict[], officialDefects: boolean): number {
  if (verdicts.length === 0) throw new Error('no rubric verdicts');
  if (!officialDefects) return verdicts.reduce((s, v) => s + v.score, 0) / verdicts.length;
  let sum = 0;
  for (const v of verdicts) {
    if (v.official_int === null) {
      throw new Error(`the official int() raises on the score ${JSON.stringify(v.raw)} (the official run loses this conversation's evaluation)`);
    }
    sum += v.official_int;
  }
  return sum / verdicts.length;
}

/** Means of both variants, for the record (int variant null where int() raises). */
function variants(verdicts: RubricVerdict[]): { score_float: number; score_official_int: number | null } {
  const n = verdicts.length;
  const ints = verdicts.map((v) => v.official_int);
  return {
    score_float: verdicts.reduce((s, v) => s + v.score, 0) / n,
    score_official_int: ints.some((x) => x === null) ? null : (ints as number[]).reduce((s, x) => s + x, 0) / n,
  };
}

async function judgeRubric(q: Question, answer: string, ask: JudgeAsk): Promise<JudgeOutcome> {
  const meta = metaOf(q);
  // Rubric items are judged independently, so their requests may run side by side.
  const replies = await Promise.all(
    meta.rubric.map((item) => ask([{ role: 'user', content: renderJudgePrompt(q.text, item, answer, meta.official_defects) }])),
  );
  const verdicts = replies.map(parseRubricReply);
  return {
    verdict: rubricScore(verdicts, meta.official_defects),
    details: {
      variant: meta.official_defects ? 'official-defects' : 'fixed',
      ...variants(verdicts),
      items: meta.rubric.map((rubric, i) => ({ rubric, ...verdicts[i]!, reply: replies[i] })),
    },
  };
}

async function judgeOrdering(q: Question, answer: string, ask: JudgeAsk): Promise<JudgeOutcome> {
  const meta = metaOf(q);
  const lines = answerLines(answer);
  const checks: Array<{ reference: number; line: number; reply: string }> = [];
  const alignment = await alignWithReference(meta.rubric, lines, async (reference, system, ref, line) => {
    const reply = await ask(renderEquivalence(reference, system));
    checks.push({ reference: ref, line, reply });
    return parseEquivalence(reply);
  });
  const score = orderingScore(meta.rubric, alignment.canonical);
  const guarded = guardedTauNorm(meta.rubric, alignment.canonical, score);
  if (meta.official_defects && Number.isNaN(score.tau_norm)) {
    throw new Error('Kendall tau-b is undefined (NaN) for this answer; the official report would show NaN for the ability');
  }
  return {
    verdict: meta.official_defects ? score.tau_norm : guarded,
    details: {
      variant: meta.official_defects ? 'official-defects' : 'fixed',
      ...score,
      tau_b: Number.isNaN(score.tau_b) ? null : score.tau_b,
      tau_norm: Number.isNaN(score.tau_norm) ? null : score.tau_norm,
      tau_norm_guarded: guarded,
      matched_to: alignment.matchedTo,
      checks,
    },
  };
}

export const beamJudge: JudgeProtocol = {
  id: 'beam-rubric-v1',
  source: `${SOURCE} src/evaluation/compute_metrics.py (unified_llm_judge_base_prompt, event_ordering_score)`,
  render(q, answer) {
    const meta = metaOf(q);
    if (meta.ability === 'event_ordering') return renderEquivalence(meta.rubric[0]!, answerLines(answer)[0]!);
    return [{ role: 'user', content: renderJudgePrompt(q.text, meta.rubric[0]!, answer, meta.official_defects) }];
  },
  parse(reply, q) {
    const meta = metaOf(q);
    if (meta.ability === 'event_ordering') return parseEquivalence(reply) ? 1 : 0;
    return rubricScore([parseRubricReply(reply)], meta.official_defects);
  },
  judge(q, answer, ask) {
    return metaOf(q).ability === 'event_ordering' ? judgeOrdering(q, answer, ask) : judgeRubric(q, answer, ask);
  },
  // One request per rubric item; event ordering's equivalence checks depend on the replies, so
  // the rubric length is the estimate there too.
  requestsPerRun(q) {
    return Math.max(1, metaOf(q).rubric.length);
  },
};

/** `answer_generation_for_rag`, the official RAG prompt, with the assembled evidence as the context. */
export const beamReader: ReaderProtocol = {
  id: 'beam-rag-v1',
  source: `${SOURCE} src/prompts.py answer_generation_for_rag`,
  render(q, evidence) {
    return [{ role: 'user', content: fill(beamPrompt('rag-reader'), { context: renderEvidence(evidence), question: q.text }) }];
  },
  // answer_generation.py sends no max_tokens (summaries and event orderings can be long).
  maxTokens: () => null,
};

export const beamScoring: Scoring = {
  reader: beamReader,
  judge: beamJudge,
  metrics: [],
  card: {
    reader: { upstreamModel: null, prompts: ['beam-rag-reader'], sourceNote: 'beam-SOURCE.md' },
    judge: { upstreamModel: 'gpt-4.1-mini', prompts: ['beam-judge', 'beam-equivalence-system', 'beam-equivalence-user'], sourceNote: 'beam-SOURCE.md' },
    denominator:
      'official: per conversation the mean over its judged questions, then over conversations; rawrag prints the headline over all N (failed items count 0) beside it, with the failures by stage',
    headline:
      'per size, the mean of the ten ability scores with the official rubric (int() truncates 0.5 to 0; -B beam-rubric=official, the default); the corrected rubric (0.5 kept) is printed beside it, labelled',
  },
};
