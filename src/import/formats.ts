/**
 * Other harnesses' result files, read into one neutral record per question: which conversation
 * (by its position in the benchmark file, or an episode id), the question's text, the system's
 * answer and, where the file has them, the judge's votes. Read from their source code:
 * - `evermemos`: EverMemOS's evaluation framework, `eval_results.json`
 *   (`detailed_results` grouped per conversation `<dataset>_exp_user_<i>`, each with `question_id`
 *   `<dataset>_<i>_qa<j>`, `question`, `golden_answer`, `generated_answer`, `llm_judgments`
 *   {judgment_1: bool, ...}; multiple-choice runs: a flat list with `is_correct`);
 * - `memos`: MemOS's evaluation, `<frame>_locomo_judged.json` (`locomo_exp_user_<i>`: [{question,
 *   answer, golden_answer, category, llm_judgments}]);
 * - `mem0-eval`: mem0's evaluation/, the JSON of evals.py (`"<i>"`: [{question, answer, response,
 *   category, llm_score}]) or of its search step (the same without `llm_score`: no votes, and the
 *   category-5 rows evals.py skips, evaluation/evals.py@9315e3036^ L22-24: dropped here too unless
 *   asked to keep them);
 * - `jsonl`: one object a line, {conversation | episode, question, answer, votes?}.
 */
import { readFileSync } from 'node:fs';
import { InputError } from '../util/errors.js';
import { parseJsonText, sha256Hex } from '../util/fsx.js';

export const IMPORT_FORMATS = ['mem0-eval', 'evermemos', 'memos', 'jsonl'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export interface ImportedRecord {
  /** The conversation: its 0-based position in the benchmark's file, or an episode id. */
  conversation: { index: number } | { episode: string };
  question: string;
  answer: string;
  gold: string | null;
  /** Judge verdicts in [0, 1], one per run, in run order; null when the file has none. */
  votes: number[] | null;
  /** Where in the file, for messages (`detailed_results.locomo_exp_user_3[12]`, `line 7`). */
  place: string;
  /** The benchmark's category as the file gives it, where it does. */
  category?: string | null;
}

export interface ImportedFile {
  format: ImportFormat;
  file: string;
  sha256: string;
  records: ImportedRecord[];
  /** The judge model the file names, when it does. */
  judge: string | null;
  /** The model that wrote the answers, when the file names it (EverMemOS `metadata.answer_model`). */
  answerModel: string | null;
  /** What reading the file left out or assumed, said with the import. */
  notes: string[];
  /** The file's own headline accuracy, when it states one (EverMemOS `accuracy`), to compare with. */
  claimed: number | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);

/** `judgment_1`, `judgment_2`, ... in run order, as 1 / 0. */
function judgmentVotes(j: unknown, place: string, file: string): number[] | null {
  if (j === undefined || j === null) return null;
  if (typeof j !== 'object' || Array.isArray(j))
    throw new InputError('llm_judgments must be an object {judgment_1: true, ...}', { file, place });
  const entries = Object.entries(j as Record<string, unknown>)
    .map(([k, v]) => ({ n: Number(/(\d+)$/.exec(k)?.[1] ?? NaN), v }))
    .sort((a, b) => a.n - b.n);
  return entries.map(({ v, n }) => {
    if (typeof v === 'boolean') return v ? 1 : 0;
    if (typeof v === 'number' && v >= 0 && v <= 1) return v;
    throw new InputError(`judgment_${n} is not true/false`, { file, place: `${place}.llm_judgments` });
  });
}

function need(o: Record<string, unknown>, key: string, file: string, place: string): string {
  const v = str(o[key]);
  if (v === null) throw new InputError(`"${key}" missing or not a string`, { file, place });
  return v;
}

/** `locomo_exp_user_3` / `locomo_3_qa12` / `"3"`: the conversation's position. */
function conversationIndex(text: string): number | null {
  const m = /(?:^|_)(?:exp_user_)?(\d+)(?:_qa\d+)?$/.exec(text) ?? /^(\d+)$/.exec(text);
  return m ? Number(m[1]) : null;
}

function grouped(
  data: unknown,
  file: string,
  read: (o: Record<string, unknown>, place: string, group: string) => ImportedRecord,
): ImportedRecord[] {
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new InputError('expected an object of conversations', { file });
  const out: ImportedRecord[] = [];
  for (const [group, list] of Object.entries(data as Record<string, unknown>)) {
    if (!Array.isArray(list)) throw new InputError('expected a list of questions', { file, place: group });
    list.forEach((o, i) => {
      const place = `${group}[${i}]`;
      if (!o || typeof o !== 'object') throw new InputError('expected an object', { file, place });
      out.push(read(o as Record<string, unknown>, place, group));
    });
  }
  return out;
}

function groupConversation(group: string, file: string, place: string): { index: number } {
  const index = conversationIndex(group);
  if (index === null)
    throw new InputError(`cannot tell which conversation '${group}' is (expected <name>_exp_user_<i> or <i>)`, { file, place });
  return { index };
}

type Body = Omit<ImportedFile, 'format' | 'file' | 'sha256'>;

export interface ReadOptions {
  /** Keep the records the format's own scorer skips (mem0-eval: category 5). */
  keepSkipped?: boolean;
}

function readEverMemOS(data: unknown, file: string): Body {
  const top = (data ?? {}) as {
    detailed_results?: unknown;
    metadata?: { model?: unknown; judge_model?: unknown; answer_model?: unknown };
    accuracy?: unknown;
    overall_accuracy?: unknown;
  };
  if (top.detailed_results === undefined) throw new InputError('no "detailed_results": not an EverMemOS eval_results.json', { file });
  const read = (o: Record<string, unknown>, place: string, group: string | null): ImportedRecord => {
    const qid = str(o.question_id);
    // The question id names the conversation and the question's position (`locomo_3_qa12`); the group key names the conversation.
    const index =
      (qid !== null ? conversationIndex(qid.replace(/_qa\d+$/, '')) : null) ?? (group !== null ? conversationIndex(group) : null);
    if (index === null) throw new InputError(`cannot tell the conversation of question_id '${qid}'`, { file, place });
    const votes =
      o.llm_judgments !== undefined
        ? judgmentVotes(o.llm_judgments, place, file)
        : typeof o.is_correct === 'boolean'
          ? [o.is_correct ? 1 : 0]
          : null;
    return {
      conversation: { index },
      question: need(o, 'question', file, place),
      answer: need(o, 'generated_answer', file, place),
      gold: str(o.golden_answer),
      votes,
      place: `detailed_results.${place}`,
    };
  };
  const d = top.detailed_results;
  const records = Array.isArray(d)
    ? d.map((o, i) => read((o ?? {}) as Record<string, unknown>, `[${i}]`, null))
    : grouped(d, file, (o, place, group) => read(o, place, group));
  const claimed = typeof top.accuracy === 'number' ? top.accuracy : typeof top.overall_accuracy === 'number' ? top.overall_accuracy : null;
  // EverMemOS's judge writes `metadata.model`; the published result files name `judge_model` and `answer_model`.
  const judge = str(top.metadata?.judge_model) ?? str(top.metadata?.model);
  return { records, judge, answerModel: str(top.metadata?.answer_model), claimed, notes: [] };
}

function readMemOS(data: unknown, file: string): Body {
  const records = grouped(data, file, (o, place, group) => ({
    conversation: groupConversation(group, file, place),
    question: need(o, 'question', file, place),
    answer: need(o, 'answer', file, place),
    gold: str(o.golden_answer),
    votes: judgmentVotes(o.llm_judgments, place, file),
    place,
  }));
  return { records, judge: null, answerModel: null, claimed: null, notes: [] };
}

function readMem0(data: unknown, file: string, opts: ReadOptions): Body {
  let skipped = 0;
  const all = grouped(data, file, (o, place, group) => {
    const score = o.llm_score;
    if (score !== undefined && !(typeof score === 'number' && score >= 0 && score <= 1))
      throw new InputError('"llm_score" must be 0 or 1', { file, place: `${place}.llm_score` });
    return {
      conversation: groupConversation(group, file, place),
      question: need(o, 'question', file, place),
      answer: need(o, 'response', file, place),
      gold: str(o.answer),
      votes: typeof score === 'number' ? [score] : null,
      place,
      category: str(o.category),
    };
  });
  // Mem0's evals.py skips category 5 (adversarial) before judging; its search step still holds those rows.
  const records = all.filter((r) => {
    const skip = !opts.keepSkipped && r.category === '5';
    if (skip) skipped++;
    return !skip;
  });
  const notes = skipped
    ? [
        `${skipped} category-5 rows left out, as Mem0's evals.py skips them (evaluation/evals.py L22-24); --keep-skipped keeps them (then give the benchmark's categories to match them, e.g. -B categories=1,2,3,4,5)`,
      ]
    : [];
  return { records, judge: null, answerModel: null, claimed: null, notes };
}

function readJsonl(text: string, file: string): Body {
  const records: ImportedRecord[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    if (raw.trim() === '') return;
    const place = `line ${i + 1}`;
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(raw) as Record<string, unknown>;
    } catch (e) {
      throw new InputError(`not JSON (${(e as Error).message})`, { file, place });
    }
    if (!o || typeof o !== 'object' || Array.isArray(o)) throw new InputError('each line must be an object', { file, place });
    const conversation =
      typeof o.episode === 'string'
        ? { episode: o.episode }
        : typeof o.conversation === 'number' && Number.isInteger(o.conversation) && o.conversation >= 0
          ? { index: o.conversation }
          : null;
    if (!conversation)
      throw new InputError('give "episode" (an episode id) or "conversation" (its 0-based position in the benchmark file)', {
        file,
        place,
      });
    let votes: number[] | null = null;
    if (o.votes !== undefined) {
      if (!Array.isArray(o.votes) || o.votes.some((v) => typeof v !== 'number' && typeof v !== 'boolean'))
        throw new InputError('"votes" must be a list of judge verdicts (0/1 or true/false)', { file, place });
      votes = (o.votes as Array<number | boolean>).map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v));
      if (votes.some((v) => v < 0 || v > 1)) throw new InputError('"votes" must lie in [0, 1]', { file, place });
    }
    records.push({
      conversation,
      question: need(o, 'question', file, place),
      answer: need(o, 'answer', file, place),
      gold: str(o.gold),
      votes,
      place,
    });
  });
  return { records, judge: null, answerModel: null, claimed: null, notes: [] };
}

export function readImportFile(format: ImportFormat, file: string, opts: ReadOptions = {}): ImportedFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read the results file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file });
  }
  const body =
    format === 'jsonl'
      ? readJsonl(text, file)
      : format === 'evermemos'
        ? readEverMemOS(parseJsonText(text, file), file)
        : format === 'memos'
          ? readMemOS(parseJsonText(text, file), file)
          : readMem0(parseJsonText(text, file), file, opts);
  if (body.records.length === 0) throw new InputError('no questions in the file', { file });
  return { format, file, sha256: sha256Hex(text), ...body };
}
