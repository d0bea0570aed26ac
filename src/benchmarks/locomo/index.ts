/**
 * LoCoMo adapter (Maharana et al., 2024; data/locomo10.json @ 3eb6f2c).
 * Categories carry the names the data actually follows (spec: locomo-and-harness-anchors §1.2),
 * not the order the paper lists them in; the numeric id is kept beside the name.
 */
import { basename } from 'node:path';
import { statSync } from 'node:fs';
import type { Benchmark, LoadOptions } from '../../core/benchmark.js';
import type { Dataset, Episode, LoadWarning, Question, Turn } from '../../core/schema.js';
import { DEFAULT_POLICY } from '../../core/policy.js';
import { InputError, formatPath } from '../../util/errors.js';
import { readJsonFile, sha256File } from '../../util/fsx.js';
import { RawFile, type RawSampleT } from './format.js';
import { parseEvidence } from './evidence.js';
import { locomoScoring } from './scoring.js';
import { summariseLocomo } from './summary.js';
import { applyGold, loadErrata, parseGold } from './gold.js';
import { adversarialOptions } from './adversarial.js';
import { CATEGORY_NAMES } from './categories.js';


export const DEFAULT_CATEGORIES = '1,2,3,4';

/** sha256 of data/locomo10.json at snap-research/LoCoMo @ 3eb6f2c (the bundled copy). */
export const RELEASE_SHA256 = '79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4';

export const locomo: Benchmark = {
  name: 'locomo',
  title: 'LoCoMo (10 conversations; categories 1-4 = 1,540 questions)',
  defaultData: 'datasets/locomo/locomo10.json',
  policy: { ...DEFAULT_POLICY },
  aggregation: {
    overall: 'micro',
    // Category 5 has no answer to find: it is reported as its own row, never in the 1,540-question headline.
    inHeadline: (type) => type !== 'adversarial',
    note: 'overall = micro average over questions of categories 1-4 (LoCoMo official); adversarial (5) is shown apart',
  },
  typeOrder: ['single-hop', 'multi-hop', 'temporal', 'open-domain', 'adversarial'],
  options: [
    {
      flags: '--categories <list>',
      key: 'categories',
      description: 'LoCoMo categories to ask, comma-separated (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial)',
      validate: (v: string) => void parseCategories(v),
      defaultValue: DEFAULT_CATEGORIES,
      definesSetting: true,
    },
    {
      flags: '--gold <version>',
      key: 'gold',
      description:
        'gold answers: original (default; the official protocol) | audited (corrections from a public audit of the ground truth, datasets/locomo/gold-errata.json; docs/judging.md)',
      validate: (v: string) => void parseGold(v),
      defaultValue: 'original',
      // Scores against another gold are never paired with these: part of the setting (`locomo/gold=audited/...`).
      definesSetting: true,
    },
  ],
  load: loadLocomo,
  scoring: locomoScoring,
  summarise: (items, ctx) => summariseLocomo(items, ctx) as unknown as Record<string, unknown>,
};

export function parseCategories(value: string | undefined): number[] {
  const text = value ?? DEFAULT_CATEGORIES;
  const cats = text.split(',').map((s) => s.trim()).filter(Boolean);
  if (cats.length === 0) throw new InputError('no category given', { place: '-B categories' });
  const out: number[] = [];
  for (const c of cats) {
    const n = Number(c);
    if (!Number.isInteger(n) || !(n in CATEGORY_NAMES)) {
      throw new InputError(`unknown LoCoMo category '${c}' (known: 1-5)`, { place: '-B categories' });
    }
    if (!out.includes(n)) out.push(n);
  }
  return out.sort((a, b) => a - b);
}

async function loadLocomo({ path, options }: LoadOptions): Promise<Dataset> {
  const categories = new Set(parseCategories(options.categories));
  const goldVersion = parseGold(options.gold);
  const raw = readJsonFile(path);
  const parsed = RawFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError(`not a LoCoMo file: ${issue.message}`, { file: path, place: formatPath(issue.path) });
  }
  const warnings: LoadWarning[] = [];
  const episodes: Episode[] = [];
  const questions: Question[] = [];
  const seen = new Set<string>();
  const leftOut = new Map<string, string>();
  const chosen = [...categories].sort((a, b) => a - b).join(',');
  parsed.data.forEach((sample, si) => {
    if (seen.has(sample.sample_id)) {
      throw new InputError(`sample_id '${sample.sample_id}' appears twice`, { file: path, place: `[${si}].sample_id` });
    }
    seen.add(sample.sample_id);
    const episode = toEpisode(sample, si, path);
    episodes.push(episode);
    const known = new Set(episode.turns.map((t) => t.id));
    sample.qa.forEach((qa, qi) => {
      const place = `[${si}].qa[${qi}]`;
      if (!(qa.category in CATEGORY_NAMES)) {
        throw new InputError(`unknown category ${qa.category}`, { file: path, place: `${place}.category` });
      }
      if (!categories.has(qa.category)) {
        leftOut.set(`${sample.sample_id}:q${qi}`, `category ${qa.category} (${CATEGORY_NAMES[qa.category]}), outside -B categories=${chosen}`);
        return;
      }
      const answer = qa.category === 5 ? (qa.adversarial_answer ?? qa.answer) : qa.answer;
      if (answer === undefined) {
        throw new InputError('question has no answer', { file: path, place: `${place}.answer` });
      }
      const id = `${sample.sample_id}:q${qi}`;
      const ev = parseEvidence(qa.evidence, known);
      for (const p of ev.problems) warnings.push({ place: `${id} (${place}.evidence)`, message: p });
      if (qa.evidence.length === 0) warnings.push({ place: `${id} (${place}.evidence)`, message: 'no gold evidence given' });
      const gold = String(answer);
      questions.push({
        id,
        episode: sample.sample_id,
        type: CATEGORY_NAMES[qa.category]!,
        typeId: qa.category,
        text: qa.question,
        gold,
        acceptable: [gold],
        questionDate: null,
        evidence: ev.ids,
        options: null,
        visibleTurns: null,
        // The official category-5 prompt offers two options in random order: seeded by the question id here.
        ...(qa.category === 5 ? { meta: { adversarial: adversarialOptions(id, gold) } } : {}),
      });
    });
  });
  const sha256 = await sha256File(path);
  let version = 'snap-research/LoCoMo data/locomo10.json';
  if (sha256 === RELEASE_SHA256) version += ' @ 3eb6f2c, sha256 matches the release';
  else if (basename(path) === 'locomo10.json') {
    warnings.unshift({
      place: 'file',
      important: true,
      message: `named like the release but its sha256 ${sha256.slice(0, 12)}... differs from the release's ${RELEASE_SHA256.slice(0, 12)}... (modified copy?)`,
    });
  }
  const turnsOf = new Map(episodes.map((e) => [e.id, new Set(e.turns.map((t) => t.id))]));
  applyGold(questions, loadErrata(), goldVersion, (ep) => turnsOf.get(ep) ?? new Set(), warnings);
  return {
    benchmark: 'locomo',
    episodes,
    questions,
    source: { path, sha256, bytes: statSync(path).size, version: `${version}${goldVersion === 'audited' ? ' + gold errata (audited)' : ''}` },
    warnings,
    // Normalised (sorted, deduplicated): `-B categories=4,3,2,1` is the default setting.
    variant: { categories: chosen },
    leftOut,
  };
}

/** Sessions are the `session_<n>` lists in numeric order (conv-26 has date keys with no list). */
function toEpisode(sample: RawSampleT, si: number, file: string): Episode {
  const conv = sample.conversation;
  const sessionNumbers = Object.keys(conv)
    .map((k) => /^session_(\d+)$/.exec(k))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  if (sessionNumbers.length === 0) {
    throw new InputError('conversation has no session_<n> lists', { file, place: `[${si}].conversation` });
  }
  const turns: Turn[] = [];
  const ids = new Set<string>();
  for (const n of sessionNumbers) {
    const list = conv[`session_${n}`];
    const place = `[${si}].conversation.session_${n}`;
    if (!Array.isArray(list)) throw new InputError('session is not a list of turns', { file, place });
    const dateValue = conv[`session_${n}_date_time`];
    // The release writes every date as text ("1:56 pm on 8 May, 2023") and upstream pastes it into
    // prompts as is; a number (an epoch? a year?) has no reading we could stand behind, so it is
    // refused rather than shown as `unknown`. An absent or empty date is shown as `unknown`.
    if (dateValue !== undefined && dateValue !== null && typeof dateValue !== 'string') {
      throw new InputError(`session date must be text like "1:56 pm on 8 May, 2023", got ${typeof dateValue} ${JSON.stringify(dateValue)?.slice(0, 40)}`, {
        file,
        place: `[${si}].conversation.session_${n}_date_time`,
      });
    }
    const date = typeof dateValue === 'string' && dateValue.trim() ? dateValue : null;
    list.forEach((t: unknown, ti: number) => {
      const turn = t as Record<string, unknown>;
      for (const field of ['speaker', 'dia_id', 'text'] as const) {
        if (typeof turn?.[field] !== 'string') {
          throw new InputError(`turn field '${field}' missing or not a string`, { file, place: `${place}[${ti}].${field}` });
        }
      }
      const id = turn.dia_id as string;
      if (ids.has(id)) throw new InputError(`dia_id '${id}' appears twice`, { file, place: `${place}[${ti}].dia_id` });
      ids.add(id);
      const caption = typeof turn.blip_caption === 'string' && turn.blip_caption.trim() ? [turn.blip_caption] : [];
      // A caption without `img_url` (316 turns): kept, and marked for systems whose loaders skip it.
      const withoutImage = caption.length > 0 && !('img_url' in turn);
      turns.push({
        id,
        session: `session_${n}`,
        date,
        speaker: turn.speaker as string,
        text: turn.text as string,
        captions: caption,
        ...(withoutImage ? { captionWithoutImage: true } : {}),
      });
    });
  }
  const speakers = [conv.speaker_a, conv.speaker_b].filter((s): s is string => typeof s === 'string');
  return { id: sample.sample_id, turns, meta: { speakers } };
}
