/**
 * MEME adapter (Jung et al., 2026; HF meme-benchmark/MEME; code MEME-public, read at
 * luoluow/agent_memory@ab17b22). Episodes are sessions with timestamps; two question blocks are
 * asked at `position_after_session` (inclusive): before-questions after the fact-introduction
 * sessions, after-questions after the change/delete event. Each question sees only the turns of
 * the sessions fed so far (Question.visibleTurns), so its index holds exactly those.
 */
import { statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Benchmark, LoadOptions } from '../../core/benchmark.js';
import type { Dataset, Episode, LoadWarning, Question, Turn } from '../../core/schema.js';
import { DEFAULT_POLICY } from '../../core/policy.js';
import { InputError, formatPath } from '../../util/errors.js';
import { readJsonFile, sha256File } from '../../util/fsx.js';
import { RawFile, type RawEpisodeT } from './format.js';
import { indexGoldFacts, locate, requiredPairs, resultCoverage, turnId } from './evidence.js';
import { memeScoring } from './scoring.js';
import { summariseMeme } from './summary.js';
import { memeBeforeAfterRule } from './before-after-rule.js';
import { pathFacts, relevantTurns, resultPath } from './path.js';

/** The six after-question tasks that make MEME's headline macro (before-questions are shown apart). */
const HEADLINE_TASKS = new Set(['ER', 'Agg', 'Tr', 'Del', 'Cas', 'Abs']);

export const MEME_VARIANTS = ['filler32k', 'filler128k', 'nofiller'] as const;
export const DEFAULT_VARIANT = 'filler32k';

export const meme: Benchmark = {
  name: 'meme',
  title: 'MEME (100 episodes; 494 before- + 694 after-questions; six-task macro over the after-questions)',
  defaultData: 'datasets/meme',
  // The paper presents MEME evidence in the order it happened (a change must follow what it changes).
  policy: { ...DEFAULT_POLICY, order: 'chronological' },
  aggregation: {
    overall: 'macro',
    inHeadline: (type) => HEADLINE_TASKS.has(type),
    adjust: memeBeforeAfterRule,
    note:
      'overall = unweighted mean of the six after-question task accuracies (MEME); Del/Cas/Abs count only real passes ' +
      '(the before-question on the same entity passed); before-questions are shown but not in the headline',
  },
  typeOrder: ['ER', 'Agg', 'Tr', 'Del', 'Cas', 'Abs', 'ER (before)', 'Del (before)', 'Cas (before)', 'Abs (before)'],
  options: [
    {
      flags: '--variant <name>',
      key: 'variant',
      description: `MEME file when --data is a folder: ${MEME_VARIANTS.join(' | ')} (meme_<variant>.json)`,
      defaultValue: DEFAULT_VARIANT,
      definesSetting: true,
    },
  ],
  load: loadMeme,
  scoring: memeScoring,
  summarise: summariseMeme,
  rankingMetrics: resultCoverage,
  shownDiagnostics: resultPath,
  relevantTurns,
  // No checksums are published for the release files: `rawrag data pull meme --allow-unpinned`.
  downloads: Object.fromEntries(
    MEME_VARIANTS.map((v) => [
      v,
      [{ url: `https://huggingface.co/datasets/meme-benchmark/MEME/resolve/main/meme_${v}.json`, path: `datasets/meme/meme_${v}.json`, sha256: null }],
    ]),
  ),
  // judge.py's default judge model (LLMJudge(model="gpt-4o"); the project page tags runs _gpt-4o).
  defaultJudgeModel: 'gpt-4o',
};

/** --data is the release file, or a folder holding meme_<variant>.json. */
export function resolveMemeFile(path: string, variant: string | undefined): string {
  const v = variant ?? DEFAULT_VARIANT;
  if (!(MEME_VARIANTS as readonly string[]).includes(v)) {
    throw new InputError(`unknown MEME variant '${v}' (known: ${MEME_VARIANTS.join(', ')})`, { place: '-B variant' });
  }
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw new InputError('data file not found', { file: path });
  }
  if (!isDir) return path;
  const file = join(path, `meme_${v}.json`);
  try {
    statSync(file);
  } catch {
    throw new InputError(`no meme_${v}.json in this folder (get it from HF meme-benchmark/MEME)`, { file: path });
  }
  return file;
}

async function loadMeme({ path, options }: LoadOptions): Promise<Dataset> {
  const file = resolveMemeFile(path, options.variant);
  const parsed = RawFile.safeParse(readJsonFile(file));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError(`not a MEME file: ${issue.message}`, { file, place: formatPath(issue.path) });
  }
  const warnings: LoadWarning[] = [];
  const episodes: Episode[] = [];
  const questions: Question[] = [];
  const seen = new Set<string>();
  const unlocated: string[] = [];
  parsed.data.forEach((raw, ei) => {
    if (seen.has(raw.episode_id)) {
      throw new InputError(`episode_id '${raw.episode_id}' appears twice`, { file, place: `[${ei}].episode_id` });
    }
    seen.add(raw.episode_id);
    checkEpisode(raw, ei, file);
    const { episode, turnsThrough } = toEpisode(raw, basename(file));
    episodes.push(episode);
    questions.push(...toQuestions(raw, ei, turnsThrough, unlocated));
  });
  if (unlocated.length) {
    // One line, not one per question: the per-question detail stays in meta.required.
    warnings.push({
      place: `${unlocated.length} of ${questions.length} questions (e.g. ${unlocated.slice(0, 3).join('; ')})`,
      message: 'no visible gold fact states the judged value: no gold evidence, result coverage undecidable',
    });
  }
  return {
    benchmark: 'meme',
    episodes,
    questions,
    source: { path: file, sha256: await sha256File(file), bytes: statSync(file).size, version: `HF meme-benchmark/MEME ${basename(file)}` },
    warnings,
  };
}

/** Consistency the official runner relies on; a file breaking it is not the released format. */
function checkEpisode(raw: RawEpisodeT, ei: number, file: string): void {
  const place = (p: string) => `[${ei}].${p}`;
  const n = raw.sessions.length;
  if (raw.total_sessions !== n) {
    throw new InputError(`total_sessions is ${raw.total_sessions} but there are ${n} sessions`, { file, place: place('total_sessions') });
  }
  const evidence = raw.sessions.flatMap((s, i) => (s.type === 'evidence' ? [i] : []));
  if (JSON.stringify(evidence) !== JSON.stringify(raw.evidence_session_indices)) {
    throw new InputError(`evidence_session_indices ${JSON.stringify(raw.evidence_session_indices)} do not match the evidence sessions ${JSON.stringify(evidence)}`, {
      file,
      place: place('evidence_session_indices'),
    });
  }
  const b = raw.before_questions.position_after_session;
  const a = raw.after_questions.position_after_session;
  if (b >= n) throw new InputError(`position ${b} is past the last session (${n - 1})`, { file, place: place('before_questions.position_after_session') });
  if (a >= n) throw new InputError(`position ${a} is past the last session (${n - 1})`, { file, place: place('after_questions.position_after_session') });
  if (a < b) throw new InputError(`after-questions (position ${a}) come before the before-questions (position ${b})`, { file, place: place('after_questions.position_after_session') });
  raw.sessions.forEach((s, si) =>
    (s.gold_facts ?? []).forEach((f, fi) => {
      if (f.conveyed_in_turn !== null && f.conveyed_in_turn >= s.conversation.length) {
        throw new InputError(`conveyed_in_turn ${f.conveyed_in_turn} is past the session's ${s.conversation.length} messages`, {
          file,
          place: place(`sessions[${si}].gold_facts[${fi}].conveyed_in_turn`),
        });
      }
    }),
  );
  for (const [block, qs] of [['before_questions', raw.before_questions.questions], ['after_questions', raw.after_questions.questions]] as const) {
    qs.forEach((q, qi) => {
      for (const e of q.entity) {
        if (!(e in q.entity_values)) {
          throw new InputError(`entity '${e}' has no entry in entity_values`, { file, place: place(`${block}.questions[${qi}].entity_values`) });
        }
      }
    });
  }
}

/** Turns in session order; `turnsThrough[i]` = turns in sessions 0..i (the visible prefix). */
function toEpisode(raw: RawEpisodeT, fileName: string): { episode: Episode; turnsThrough: number[] } {
  const turns: Turn[] = [];
  const turnsThrough: number[] = [];
  raw.sessions.forEach((s, si) => {
    s.conversation.forEach((m, ti) => {
      turns.push({ id: turnId(si, ti), session: s.session_id, date: s.timestamp, speaker: m.role, text: m.content, captions: [] });
    });
    turnsThrough.push(turns.length);
  });
  return {
    episode: {
      id: raw.episode_id,
      turns,
      meta: { domain: raw.domain, root: raw.root, sessions: raw.sessions.length, file: fileName },
    },
    turnsThrough,
  };
}

function toQuestions(raw: RawEpisodeT, ei: number, turnsThrough: number[], unlocated: string[]): Question[] {
  const out: Question[] = [];
  const blocks = [
    { phase: 'before' as const, block: raw.before_questions },
    { phase: 'after' as const, block: raw.after_questions },
  ];
  for (const { phase, block } of blocks) {
    const pos = block.position_after_session;
    const facts = indexGoldFacts(raw.sessions, pos);
    block.questions.forEach((q, qi) => {
      const id = `${raw.episode_id}:${phase}:${qi}`;
      const required = locate(facts, requiredPairs(q.task_type, q.entity_values));
      const missing = required.filter((r) => r.turns.length === 0);
      const path = phase === 'after' ? pathFacts(raw, q.task_type, required, facts) : null;
      if (missing.length) unlocated.push(`${id} ([${ei}].${phase}_questions.questions[${qi}]: ${missing.map((m) => `${m.entity}='${m.value}'`).join(', ')})`);
      const g = String(phase === 'before' ? (q as { expected_answer: string }).expected_answer : (q as { gold_answer: string }).gold_answer);
      out.push({
        id,
        episode: raw.episode_id,
        type: phase === 'after' ? q.task_type : `${q.task_type} (before)`,
        typeId: q.task_type,
        text: q.question,
        gold: g,
        acceptable: [g],
        questionDate: block.timestamp,
        evidence: [...new Set(required.flatMap((r) => r.turns))],
        options: null,
        visibleTurns: turnsThrough[pos]!,
        meta: {
          phase,
          task: q.task_type,
          ...(q.hop !== undefined ? { hop: q.hop } : {}),
          // judge.py keys the before/after pairing and the judged gold by the first entity_values key.
          entity: Object.keys(q.entity_values)[0]!,
          entity_values: q.entity_values,
          position_after_session: pos,
          required,
          ...(phase === 'after' && path ? { path } : {}),
        },
      });
    });
  }
  return out;
}
