/**
 * PersonaMem-v2 adapter (Jiang et al., 2025; HF bowen-upenn/PersonaMem-v2, text benchmark split).
 * One CSV row = one four-option multiple-choice question about a persona; its chat history is a
 * separate JSON file the row links to (32k or 128k tokens). Rows sharing a history share one
 * episode, so one index per persona. The history's first system message (the persona profile,
 * preferences included) is not part of what RAW-RAG indexes, as in the official RAG baseline
 * (verl_custom/rag.py removes it before chunking).
 */
import { statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Benchmark, LoadOptions } from '../../core/benchmark.js';
import type { Dataset, Episode, LoadWarning, Question, Turn } from '../../core/schema.js';
import { DEFAULT_POLICY } from '../../core/policy.js';
import { InputError, formatPath } from '../../util/errors.js';
import { readJsonFile, sha256File } from '../../util/fsx.js';
import { readTextFile } from '../../util/text.js';
import { CsvError, parseCsvObjects } from './csv.js';
import { CSV_COLUMNS, CsvRow, HistoryFile, PREF_TYPES, UserQuery, type HistoryMessageT } from './format.js';
import { parsePyLiteral, type PyValue } from './pyliteral.js';
import { buildOptions, DEFAULT_MCQ_PROTOCOL, MCQ_PROTOCOLS, type McqProtocol } from './options.js';
import { personamemScoring } from './scoring.js';
import { summarisePersonamem } from './summary.js';

export const HISTORY_SIZES = ['32k', '128k'] as const;
export const BENCHMARK_CSV = join('benchmark', 'text', 'benchmark.csv');

export const personamem: Benchmark = {
  name: 'personamem',
  title: 'PersonaMem-v2 (text benchmark split: 5,000 four-option questions over 32k-token histories)',
  defaultData: 'datasets/personamem',
  // verl_custom/rag.py puts the retrieved chunks back in chronological order before the reader sees
  // them; the paper names chronological order only for MEME, so its PersonaMem order is unknown
  // (`--order rank` gives the rank order of the other benchmarks).
  policy: { ...DEFAULT_POLICY, order: 'chronological' },
  typeOrder: [...PREF_TYPES],
  options: [
    {
      flags: '--history-size <size>',
      key: 'historySize',
      description: `PersonaMem-v2 chat history per row: ${HISTORY_SIZES.join(' | ')}`,
      defaultValue: '32k',
      definesSetting: true,
    },
    {
      flags: '--mcq-protocol <name>',
      key: 'mcqProtocol',
      description:
        'PersonaMem-v2 multiple-choice protocol: verl (options (a)-(d) shuffled with random.seed(42 + row), \\boxed{x}) | frontier (inference.py: A. B. ..., "Final Answer: X"; seeded 42 + row too, since its hash() seed cannot be reproduced)',
      defaultValue: DEFAULT_MCQ_PROTOCOL,
    },
  ],
  load: loadPersonamem,
  scoring: personamemScoring,
  summarise: summarisePersonamem,
};

function choice<T extends string>(value: string | undefined, allowed: readonly T[], fallback: T, flag: string): T {
  const v = value ?? fallback;
  if (!(allowed as readonly string[]).includes(v)) throw new InputError(`'${v}' is not one of ${allowed.join(', ')}`, { place: flag });
  return v as T;
}

/** --data is the benchmark CSV or the dataset root holding benchmark/text/benchmark.csv. */
export function resolveCsv(path: string): string {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw new InputError('data file not found', { file: path });
  }
  if (!isDir) return path;
  const csv = join(path, BENCHMARK_CSV);
  try {
    statSync(csv);
  } catch {
    throw new InputError(`no ${BENCHMARK_CSV} in this folder (the layout of HF bowen-upenn/PersonaMem-v2)`, { file: path });
  }
  return csv;
}

async function loadPersonamem({ path, options }: LoadOptions): Promise<Dataset> {
  const size = choice(options.historySize, HISTORY_SIZES, '32k', '-B history-size');
  const protocol = choice<McqProtocol>(options.mcqProtocol, MCQ_PROTOCOLS, DEFAULT_MCQ_PROTOCOL, '-B mcq-protocol');
  const file = resolveCsv(path);
  let table: ReturnType<typeof parseCsvObjects>;
  try {
    table = parseCsvObjects(readTextFile(file));
  } catch (e) {
    if (e instanceof InputError) throw e;
    if (e instanceof CsvError) throw new InputError(`not a valid CSV: ${e.message}`, { file });
    throw new InputError(`cannot read file (${(e as Error).message})`, { file });
  }
  const missing = CSV_COLUMNS.filter((c) => !table.header.includes(c));
  if (missing.length) throw new InputError(`missing column(s) ${missing.join(', ')}`, { file, place: 'header' });

  const warnings: LoadWarning[] = [];
  const episodes = new Map<string, { episode: Episode; byRoleText: Map<string, string[]> }>();
  const questions: Question[] = [];
  const unlocated: string[] = [];
  const linkColumn = `chat_history_${size}_link` as const;
  table.rows.forEach(({ values, line }, idx) => {
    const where = (field?: string) => `row ${idx} (line ${line})${field ? `.${field}` : ''}`;
    const parsed = CsvRow.safeParse(values);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new InputError(issue.message, { file, place: where(formatPath(issue.path)) });
    }
    const row = parsed.data;
    const query = readUserQuery(row.user_query, file, where('user_query'));
    const incorrect = readStringList(row.incorrect_answers, file, where('incorrect_answers'));
    const link = row[linkColumn];
    if (!link) throw new InputError('no chat history link', { file, place: where(linkColumn) });
    const historyPath = resolveLink(file, link, where(linkColumn));
    let ep = episodes.get(historyPath);
    if (!ep) {
      ep = loadHistory(historyPath);
      episodes.set(historyPath, ep);
    }
    const mcq = buildOptions(protocol, row.correct_answer, incorrect, idx);
    if (!mcq) throw new InputError(`protocol ${protocol} needs 4 options; the row has ${1 + incorrect.length}`, { file, place: where('incorrect_answers') });
    const id = `row${idx}`;
    const evidence = locateSnippet(row.related_conversation_snippet, ep.byRoleText);
    if (evidence.length === 0) unlocated.push(id);
    questions.push({
      id,
      episode: ep.episode.id,
      type: row.pref_type,
      typeId: null,
      text: query,
      gold: row.correct_answer,
      acceptable: [row.correct_answer],
      questionDate: null,
      evidence,
      options: mcq.options,
      visibleTurns: null,
      meta: {
        row: idx,
        persona_id: Number(row.persona_id),
        protocol,
        seed: mcq.seed,
        letters: mcq.letters,
        correct_letters: mcq.correctLetters,
        pref_type: row.pref_type,
        who: row.who,
        updated: row.updated,
        conversation_scenario: row.conversation_scenario,
      },
    });
  });
  if (unlocated.length) {
    warnings.push({
      place: `${unlocated.length} of ${questions.length} rows (e.g. ${unlocated.slice(0, 5).join(', ')})`,
      message: 'related_conversation_snippet names no message of the chat history: no gold evidence, left out of coverage',
    });
  }
  return {
    benchmark: 'personamem',
    episodes: [...episodes.values()].map((e) => e.episode),
    questions,
    source: {
      path: file,
      sha256: await sha256File(file),
      bytes: statSync(file).size,
      version: `HF bowen-upenn/PersonaMem-v2 ${BENCHMARK_CSV}; ${size} histories; mcq protocol ${protocol}`,
    },
    warnings,
  };
}

/** `{'role': 'user', 'content': '...'}` (Python str of a dict): JSON first, then a Python literal, as inference.py. */
function readUserQuery(text: string, file: string, place: string): string {
  const value = readLiteral(text, file, place);
  const q = UserQuery.safeParse(value);
  if (!q.success) throw new InputError(`not a {'role', 'content'} message: ${q.error.issues[0]!.message}`, { file, place });
  return q.data.content;
}

function readStringList(text: string, file: string, place: string): string[] {
  const value = readLiteral(text, file, place);
  if (!Array.isArray(value)) throw new InputError('not a list', { file, place });
  // safe_eval_list keeps every item as str(item).
  return value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
}

function readLiteral(text: string, file: string, place: string): PyValue {
  try {
    return JSON.parse(text) as PyValue;
  } catch {
    try {
      return parsePyLiteral(text);
    } catch (e) {
      throw new InputError(`neither JSON nor a Python literal (${(e as Error).message})`, { file, place });
    }
  }
}

/**
 * Links are relative to the dataset root (`data/chat_history_32k/...`); the CSV sits at
 * <root>/benchmark/text/benchmark.csv. The CSV's folder and its ancestors are tried, nearest first.
 */
function resolveLink(csv: string, link: string, place: string): string {
  const tried: string[] = [];
  let dir = dirname(resolve(csv));
  for (let up = 0; up < 4; up++) {
    const candidate = resolve(dir, link);
    tried.push(candidate);
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      /* next */
    }
    dir = dirname(dir);
  }
  throw new InputError(`chat history '${link}' not found (tried ${tried.join(', ')})`, { file: csv, place });
}

function textOf(m: HistoryMessageT): string {
  if (typeof m.content === 'string') return m.content;
  // rag.py chunk_chat_history: the text parts joined by a space; images and other parts are dropped.
  return m.content
    .filter((p) => p.type === 'text')
    .map((p) => (typeof p.text === 'string' ? p.text : ''))
    .join(' ');
}

function normalise(s: string): string {
  return s.split(/\s+/).filter(Boolean).join(' ');
}

function loadHistory(path: string): { episode: Episode; byRoleText: Map<string, string[]> } {
  const parsed = HistoryFile.safeParse(readJsonFile(path));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError(`not a PersonaMem-v2 chat history: ${issue.message}`, { file: path, place: formatPath(issue.path) });
  }
  const messages = Array.isArray(parsed.data) ? parsed.data : parsed.data.chat_history;
  const turns: Turn[] = [];
  const byRoleText = new Map<string, string[]>();
  let droppedSystem = false;
  messages.forEach((m, i) => {
    if (m.role === 'system' && !droppedSystem) {
      droppedSystem = true;
      return;
    }
    const id = `m${i}`;
    const text = textOf(m);
    turns.push({ id, session: 'chat', date: null, speaker: m.role, text, captions: [] });
    const k = `${m.role}\u0000${normalise(text)}`;
    byRoleText.set(k, [...(byRoleText.get(k) ?? []), id]);
  });
  const metadata = Array.isArray(parsed.data) ? {} : (parsed.data.metadata ?? {});
  return {
    episode: {
      id: basename(path).replace(/\.json$/, ''),
      turns,
      meta: { file: basename(path), messages: messages.length, persona_profile_dropped: droppedSystem, persona_id: metadata.persona_id ?? null },
    },
    byRoleText,
  };
}

/** The gold evidence: history turns equal (role and whitespace-normalised text) to a snippet message. */
function locateSnippet(snippet: string, byRoleText: Map<string, string[]>): string[] {
  let value: unknown;
  try {
    value = JSON.parse(snippet);
  } catch {
    try {
      value = parsePyLiteral(snippet);
    } catch {
      return [];
    }
  }
  const list = Array.isArray(value) ? value : [value];
  const ids: string[] = [];
  for (const m of list) {
    const msg = HistoryFile.safeParse([m]);
    if (!msg.success || !Array.isArray(msg.data)) continue;
    const one = msg.data[0]!;
    for (const id of byRoleText.get(`${one.role}\u0000${normalise(textOf(one))}`) ?? []) if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}
