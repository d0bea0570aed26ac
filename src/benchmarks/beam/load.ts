/**
 * Reads BEAM as released on GitHub (`chats/<size>/<n>/`): the chat (`chat_trunecated.json`
 * preferred where present, as the official runner does), the 10M per-plan layout, and
 * `probing_questions/probing_questions.json`. Message ids become turn ids, batches sessions, and
 * each batch's `time_anchor` the date of every message from there on.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import type { Dataset, Episode, LoadWarning, Question, Turn } from '../../core/schema.js';
import { InputError, formatPath } from '../../util/errors.js';
import { readJsonFile, sha256File, sha256Hex } from '../../util/fsx.js';
import {
  ABILITIES,
  ABILITY_FIELDS,
  PLAN_KEY,
  RawChat,
  RawPlanChat,
  RawProbing,
  RawQuestion,
  SIZES,
  type Ability,
  type BeamSize,
  type ChatIds,
  type RawBatchT,
} from './format.js';

export const TRUNCATED_CHAT = 'chat_trunecated.json'; // sic, as released
export const FULL_CHAT = 'chat.json';
export const PROBING = join('probing_questions', 'probing_questions.json');

export interface BeamLoadSettings {
  /** Sizes to load; null = every size found; undefined = not given (the folder's own size, else 100K). */
  sizes: BeamSize[] | null | undefined;
  /** Score with the official code's defects (int() truncation, unfilled `<question>`, NaN tau). */
  officialDefects: boolean;
  /** A conversation folder without its chat or probing file (a partial checkout) is left out, with a warning listing it, instead of stopping the load. */
  skipIncomplete?: boolean;
}

/** A conversation folder and the size it belongs to. */
export interface ConversationDir {
  size: BeamSize;
  id: string;
  dir: string;
}

export const DEFAULT_SIZE: BeamSize = '100K';

export function parseSizes(value: string): BeamSize[] | null {
  const text = value.trim();
  if (text.toLowerCase() === 'all') return null;
  const out: BeamSize[] = [];
  for (const part of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const size = SIZES.find((s) => s.toLowerCase() === part.toLowerCase());
    if (!size) throw new InputError(`unknown BEAM size '${part}' (known: ${SIZES.join(', ')}, all)`, { place: '-B size' });
    if (!out.includes(size)) out.push(size);
  }
  if (out.length === 0) throw new InputError('no size given', { place: '-B size' });
  return out;
}

export function parseFlag(value: string | undefined, place: string): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new InputError(`expected true or false, got '${value}'`, { place });
}

const isSize = (name: string): name is BeamSize => (SIZES as readonly string[]).includes(name);
const isDir = (p: string) => existsSync(p) && statSync(p).isDirectory();

/**
 * Conversation folders under `root`, which may be a BEAM checkout (holding `chats/`), the `chats/`
 * folder, one size folder (`chats/1M`), or one conversation folder.
 */
export function findConversations(root: string, sizes: BeamSize[] | null | undefined): ConversationDir[] {
  if (!isDir(root)) throw new InputError('BEAM data must be a folder (a BEAM checkout, chats/, chats/<size>/ or one conversation)', { file: root });
  if (existsSync(join(root, PROBING))) {
    const parent = basename(dirname(root));
    const size = isSize(parent) ? parent : sizes?.length === 1 ? sizes[0]! : null;
    if (!size) throw new InputError(`cannot tell the size of this conversation (its folder is not under ${SIZES.join('/')}): give -B size`, { file: root });
    if (sizes && !sizes.includes(size)) throw new InputError(`this conversation belongs to size ${size}, not ${sizes.join(',')}`, { file: root, place: '-B size' });
    return [{ size, id: basename(root), dir: root }];
  }
  const name = basename(root);
  if (isSize(name)) {
    if (sizes && !sizes.includes(name)) throw new InputError(`this folder holds size ${name}, not ${sizes.join(',')}`, { file: root, place: '-B size' });
    return conversationsIn(root, name);
  }
  const chats = isDir(join(root, 'chats')) ? join(root, 'chats') : root;
  const wanted = sizes === undefined ? [DEFAULT_SIZE] : (sizes ?? SIZES.filter((s) => isDir(join(chats, s))));
  if (wanted.length === 0) throw new InputError(`no BEAM size folder (${SIZES.join(', ')}) found`, { file: chats });
  const out: ConversationDir[] = [];
  for (const size of wanted) {
    if (!isDir(join(chats, size))) throw new InputError(`size folder ${size} not found`, { file: join(chats, size) });
    out.push(...conversationsIn(join(chats, size), size));
  }
  return out;
}

/** Numbered conversation folders of one size, in numeric order (as the official runner lists them). */
function conversationsIn(sizeDir: string, size: BeamSize): ConversationDir[] {
  const ids = readdirSync(sizeDir)
    .filter((n) => /^\d+$/.test(n) && isDir(join(sizeDir, n)))
    .sort((a, b) => Number(a) - Number(b));
  if (ids.length === 0) throw new InputError('no numbered conversation folders', { file: sizeDir });
  return ids.map((id) => ({ size, id, dir: join(sizeDir, id) }));
}

/** What a conversation folder lacks to be read (no chat file, no probing questions), null when complete. */
function missingFiles(dir: string): string | null {
  const lacks: string[] = [];
  try {
    chatFiles(dir);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    // The reason without its file prefix (the folder is named by the caller; a plan folder by its name).
    const where = e.file && e.file !== dir ? `${basename(e.file)}: ` : '';
    lacks.push(where + (e.file ? e.message.slice(e.file.length + 2) : e.message));
  }
  if (!existsSync(join(dir, PROBING))) lacks.push(`no ${PROBING}`);
  return lacks.length ? lacks.join('; ') : null;
}

/** The chat file(s) the official runner reads for a conversation, with the plan each belongs to. */
export function chatFiles(dir: string): Array<{ plan: string | null; file: string }> {
  for (const name of [TRUNCATED_CHAT, FULL_CHAT]) {
    if (existsSync(join(dir, name))) return [{ plan: null, file: join(dir, name) }];
  }
  const plans = readdirSync(dir)
    .map((n) => PLAN_KEY.exec(n))
    .filter((m): m is RegExpExecArray => m !== null && isDir(join(dir, m[0])))
    .sort((a, b) => Number(a[1]) - Number(b[1]));
  if (plans.length === 0) throw new InputError(`no ${TRUNCATED_CHAT}, ${FULL_CHAT} or plan-<k>/ folders`, { file: dir });
  return plans.map((m) => {
    const planDir = join(dir, m[0]);
    const name = [TRUNCATED_CHAT, FULL_CHAT].find((n) => existsSync(join(planDir, n)));
    if (!name) throw new InputError(`no ${TRUNCATED_CHAT} or ${FULL_CHAT}`, { file: planDir });
    return { plan: m[0], file: join(planDir, name) };
  });
}

function zodFail(file: string, what: string, error: { issues: Array<{ message: string; path: ReadonlyArray<PropertyKey> }> }, prefix: ReadonlyArray<PropertyKey> = []): never {
  const issue = error.issues[0]!;
  throw new InputError(`not a BEAM ${what}: ${issue.message}`, { file, place: formatPath([...prefix, ...issue.path]) });
}

/** Batches of a chat file, grouped by plan (null = not a plan layout). */
function readChat(file: string, plan: string | null): Array<{ plan: string | null; batches: RawBatchT[] }> {
  const raw = readJsonFile(file);
  const looksPlain = Array.isArray(raw) && (raw.length === 0 || (typeof raw[0] === 'object' && raw[0] !== null && 'turns' in raw[0]));
  if (looksPlain || plan !== null) {
    const parsed = RawChat.safeParse(raw);
    if (!parsed.success) zodFail(file, 'chat file', parsed.error);
    return [{ plan, batches: parsed.data }];
  }
  const parsed = RawPlanChat.safeParse(raw);
  if (!parsed.success) zodFail(file, 'chat file (a list of batches, or of {"plan-<k>": batches})', parsed.error);
  const entries = Array.isArray(parsed.data) ? parsed.data.flatMap((o) => Object.entries(o)) : Object.entries(parsed.data);
  return entries
    .map(([key, batches]) => ({ plan: key, batches, n: Number(PLAN_KEY.exec(key)![1]) }))
    .sort((a, b) => a.n - b.n)
    .map(({ plan: p, batches }) => ({ plan: p, batches }));
}

export function toEpisode(conv: ConversationDir, files: Array<{ plan: string | null; file: string }>): Episode {
  const episodeId = `${conv.size}/${conv.id}`;
  const turns: Turn[] = [];
  const seen = new Set<string>();
  let date: string | null = null;
  let batchCount = 0;
  for (const { plan, file } of files) {
    for (const part of readChat(file, plan)) {
      part.batches.forEach((batch, bi) => {
        batchCount++;
        const session = `${part.plan ? `${part.plan}/` : ''}batch-${batch.batch_number}`;
        if (batch.time_anchor) date = batch.time_anchor;
        batch.turns.forEach((group, gi) => {
          group.forEach((m, mi) => {
            const place = `${part.plan && plan === null ? `${part.plan}` : ''}[${bi}].turns[${gi}][${mi}]`;
            const id = String(m.id);
            if (seen.has(id)) throw new InputError(`message id ${id} appears twice in the conversation`, { file, place: `${place}.id` });
            seen.add(id);
            if (m.time_anchor) date = m.time_anchor;
            turns.push({ id, session, date, speaker: m.role, text: m.content, captions: [] });
          });
        });
      });
    }
  }
  if (turns.length === 0) throw new InputError('the conversation has no messages', { file: files[0]!.file, place: '(top level)' });
  return {
    id: episodeId,
    turns,
    meta: {
      size: conv.size,
      conversation: conv.id,
      chat_files: files.map((f) => relative(conv.dir, f.file)),
      batches: batchCount,
      messages: turns.length,
      characters: turns.reduce((s, t) => s + t.text.length, 0),
    },
  };
}

/** Message ids named by `source_chat_ids`, whatever its nesting, in order of first mention. */
export function flattenChatIds(value: ChatIds | undefined): { ids: string[]; odd: string[] } {
  const ids: string[] = [];
  const odd: string[] = [];
  const walk = (v: ChatIds) => {
    if (typeof v === 'number') ids.push(String(v));
    else if (typeof v === 'string') {
      if (/^\d+$/.test(v.trim())) ids.push(String(Number(v.trim())));
      else odd.push(v);
    } else if (Array.isArray(v)) v.forEach(walk);
    else Object.values(v).forEach(walk);
  };
  if (value !== undefined) walk(value);
  return { ids: [...new Set(ids)], odd };
}

export function toQuestions(
  conv: ConversationDir,
  episode: Episode,
  file: string,
  settings: BeamLoadSettings,
  warnings: LoadWarning[],
): Question[] {
  const raw = readJsonFile(file);
  const parsed = RawProbing.safeParse(raw);
  if (!parsed.success) zodFail(file, 'probing_questions.json (an object of ability -> question list)', parsed.error);
  for (const key of Object.keys(parsed.data)) {
    if (!(ABILITIES as readonly string[]).includes(key)) {
      throw new InputError(`unknown ability '${key}' (known: ${ABILITIES.join(', ')})`, { file, place: key });
    }
  }
  const known = new Set(episode.turns.map((t) => t.id));
  const questions: Question[] = [];
  for (const ability of ABILITIES) {
    const list = parsed.data[ability];
    if (!list) {
      warnings.push({ place: `${episode.id} (${file})`, message: `no ${ability} questions` });
      continue;
    }
    if (list.length !== 2) warnings.push({ place: `${episode.id} (${file}: ${ability})`, message: `${list.length} questions, the release has 2 per ability` });
    list.forEach((item, i) => questions.push(toQuestion(ability, item, i, conv, episode, file, known, settings, warnings)));
  }
  // Nothing to ask would make an empty run that looks complete.
  if (questions.length === 0) throw new InputError(`no probing questions (the release has 2 per ability: ${ABILITIES.join(', ')})`, { file, place: '(top level)' });
  return questions;
}

function toQuestion(
  ability: Ability,
  item: unknown,
  index: number,
  conv: ConversationDir,
  episode: Episode,
  file: string,
  known: Set<string>,
  settings: BeamLoadSettings,
  warnings: LoadWarning[],
): Question {
  const place = `${ability}[${index}]`;
  const parsed = RawQuestion.safeParse(item);
  if (!parsed.success) zodFail(file, 'probing question', parsed.error, [ability, index]);
  const q = parsed.data as Record<string, unknown> & typeof parsed.data;
  const fields = ABILITY_FIELDS[ability];
  const gold = q[fields.gold];
  if (typeof gold !== 'string') {
    throw new InputError(`${ability} question has no '${fields.gold}' string`, { file, place: `${place}.${fields.gold}` });
  }
  const subtype = q[fields.subtype];
  if (subtype !== undefined && typeof subtype !== 'string') {
    throw new InputError(`'${fields.subtype}' is not a string`, { file, place: `${place}.${fields.subtype}` });
  }
  const id = `${episode.id}:${ability}:${index}`;
  const { ids, odd } = flattenChatIds(q.source_chat_ids);
  for (const o of odd) warnings.push({ place: `${id} (${place}.source_chat_ids)`, message: `'${o}' is not a message id` });
  const missing = ids.filter((x) => !known.has(x));
  if (missing.length) {
    warnings.push({ place: `${id} (${place}.source_chat_ids)`, message: `message ids not in the chat read (truncated away?): ${missing.join(', ')}` });
  }
  return {
    id,
    episode: episode.id,
    type: ability,
    typeId: null,
    text: q.question,
    gold,
    acceptable: [gold],
    questionDate: null,
    evidence: ids.filter((x) => known.has(x)),
    options: null,
    visibleTurns: null,
    meta: {
      size: conv.size,
      conversation: conv.id,
      ability,
      index,
      rubric: q.rubric,
      difficulty: q.difficulty ?? null,
      subtype: subtype ?? null,
      plan_reference: q.plan_reference ?? null,
      official_defects: settings.officialDefects,
    },
  };
}

export async function loadBeam(root: string, settings: BeamLoadSettings): Promise<Dataset> {
  const convs = findConversations(root, settings.sizes);
  const episodes: Episode[] = [];
  const questions: Question[] = [];
  const warnings: LoadWarning[] = [];
  const read: string[] = [];
  const skipped: string[] = [];
  for (const conv of convs) {
    const missing = missingFiles(conv.dir);
    if (missing) {
      if (settings.skipIncomplete) {
        skipped.push(`${conv.size}/${conv.id} (${missing})`);
        continue;
      }
      throw new InputError(`${missing} (a partial checkout? -B skip-incomplete=true leaves such conversations out, listing them)`, { file: conv.dir });
    }
    const files = chatFiles(conv.dir);
    const probing = join(conv.dir, PROBING);
    const episode = toEpisode(conv, files);
    episodes.push(episode);
    questions.push(...toQuestions(conv, episode, probing, settings, warnings));
    read.push(...files.map((f) => f.file), probing);
  }
  if (skipped.length > 0) {
    if (episodes.length === 0) throw new InputError(`every conversation folder is incomplete (${skipped.join(', ')})`, { file: root });
    warnings.unshift({
      place: '-B skip-incomplete',
      important: true,
      message: `${skipped.length} of ${convs.length} conversation folders skipped as incomplete: ${skipped.join(', ')}`,
    });
  }
  // One fingerprint for the many files read: sha256 over "<relative path> <sha256>" lines.
  const lines: string[] = [];
  let bytes = 0;
  for (const f of read) {
    lines.push(`${relative(root, f) || basename(f)} ${await sha256File(f)}`);
    bytes += statSync(f).size;
  }
  const sizes = [...new Set(convs.map((c) => c.size))];
  return {
    benchmark: 'beam',
    episodes,
    questions,
    source: {
      path: root,
      sha256: sha256Hex(lines.join('\n') + '\n'),
      bytes,
      version: `mohammadtavakoli78/BEAM chats/{${sizes.join(',')}}: ${convs.length} conversation(s), ${read.length} files (${TRUNCATED_CHAT} preferred)`,
    },
    warnings,
    // The sizes read (also when the folder said which): each is its own benchmark-setting.
    variant: { size: SIZES.filter((s) => sizes.includes(s)).join(',') },
  };
}
