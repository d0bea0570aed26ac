/**
 * LongMemEval loader. The file is streamed element by element (M is ~2.7 GB): each instance is
 * parsed, validated and mapped, then its turns are dropped and only its byte range is kept.
 * An episode's turns are re-read from the file when a stage asks for them, and the few most
 * recently used are cached, so a run holds about one haystack in memory at a time.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { LoadOptions } from '../../core/benchmark.js';
import type { Dataset, Episode, LoadWarning, Question, Turn } from '../../core/schema.js';
import { decodeUtf8 } from '../../util/text.js';
import { InputError } from '../../util/errors.js';
import { fromRoot } from '../../util/paths.js';
import { convertInstance } from './convert.js';
import { FULL_RELEASE, QUESTION_TYPES } from './format.js';
import { parseElement, streamJsonArray, type JsonElement } from './json-stream.js';
import { READING_METHODS, type ReadingMethod } from './scoring.js';
import { DATA_DIR, DEFAULT_VARIANT, VARIANT_FILES, parseVariant, type Variant } from './variants.js';

/** Episodes whose turns stay parsed at once (a run works through one episode at a time). */
const TURN_CACHE_SIZE = 4;

export async function loadLongMemEval({ path, options }: LoadOptions, chunkBytes?: number): Promise<Dataset> {
  const given = options.variant === undefined ? null : parseVariant(options.variant);
  const reading = parseReading(options.reading);
  const file = resolveFile(path, given ?? DEFAULT_VARIANT);
  const stat = statOrFail(file);
  const hash = createHash('sha256');
  const store = new EpisodeStore(file, stat);
  const episodes: Episode[] = [];
  const questions: Question[] = [];
  const warnings: LoadWarning[] = [];
  const ids = new Set<string>();
  let sessions = 0;
  for await (const el of streamJsonArray(file, chunkBytes, (chunk) => hash.update(chunk))) {
    const { episode, question, warnings: w } = convertInstance(parseElement(el, file), el.index, file);
    if (ids.has(question.id)) throw new InputError(`question_id '${question.id}' appears twice`, { file, place: `[${el.index}]` });
    ids.add(question.id);
    warnings.push(...w);
    // The reader template is chosen per question from here (the protocol object itself is static).
    question.meta = { ...question.meta, reading };
    questions.push(question);
    sessions += Number(episode.meta?.sessions ?? 0);
    episodes.push(store.lazy(episode, el));
  }
  if (questions.length === 0) throw new InputError('the file holds no LongMemEval instance', { file, place: '(top level)' });
  warnings.push(...checkCounts(questions));
  const sha256 = hash.digest('hex');
  const variant = settleVariant(file, given, sessions / questions.length, warnings);
  const pinned = VARIANT_FILES[variant];
  let version = `LongMemEval ${variant} (${basename(file)})`;
  if (pinned.sha256 && basename(file) === basename(pinned.file)) {
    if (sha256 === pinned.sha256) version += ', sha256 matches the pinned release';
    else warnings.push({ place: 'file', important: true, message: `named like the ${variant} release but its sha256 ${sha256.slice(0, 12)}... differs from the pinned ${pinned.sha256.slice(0, 12)}... (modified or partial copy?)` });
  }
  return {
    benchmark: 'longmemeval',
    episodes,
    questions,
    source: { path: file, sha256, bytes: stat.size, version },
    warnings,
    variant: { variant },
  };
}

/** The release a file name says (`longmemeval_oracle.json`, `longmemeval_s_cleaned.dev100.json`), null when it says none. */
export function variantFromName(file: string): Variant | null {
  const m = /^longmemeval_(s|m|oracle)(_cleaned)?(?=[._-]|$)/i.exec(basename(file));
  if (!m) return null;
  const size = m[1]!.toLowerCase();
  if (size === 'oracle') return /[\\/]original[\\/]/.test(file) ? 'oracle_original' : 'oracle';
  return (m[2] ? `${size}_cleaned` : size) as Variant;
}

/** The size class the haystacks say: oracle holds only the evidence sessions (~2), S ~50, M ~500. */
export function variantClassFromSessions(meanSessions: number): 'oracle' | 's' | 'm' {
  return meanSessions < 15 ? 'oracle' : meanSessions < 200 ? 's' : 'm';
}

const CLASS_OF: Record<Variant, 'oracle' | 's' | 'm'> = { s_cleaned: 's', s: 's', m_cleaned: 'm', m: 'm', oracle: 'oracle', oracle_original: 'oracle' };

/**
 * Which release a run measures: -B variant when given, else the file's name, else its haystacks'
 * size (cleaned assumed). A variant is part of the benchmark-setting, so a wrong guess would pair
 * an oracle run with an S run: a file whose haystacks contradict its name or flag says so, always.
 */
function settleVariant(file: string, given: Variant | null, meanSessions: number, warnings: LoadWarning[]): Variant {
  const named = variantFromName(file);
  const seen = variantClassFromSessions(meanSessions);
  const variant = given ?? named ?? (seen === 'oracle' ? 'oracle' : (`${seen}_cleaned` as Variant));
  if (given && named && given !== named) {
    warnings.push({ place: '-B variant', important: true, message: `-B variant=${given} given for a file named like the ${named} release; recorded as ${given}` });
  }
  if (CLASS_OF[variant] !== seen) {
    warnings.push({
      place: 'file',
      important: true,
      message: `haystacks of ${meanSessions.toFixed(1)} sessions on average look like ${seen === 'oracle' ? 'the oracle' : seen.toUpperCase()} release, not ${variant}: say -B variant if the file is another release`,
    });
  }
  return variant;
}

/**
 * `--data` may name the file or a folder; a folder (and the default `datasets/longmemeval`)
 * holds the official file names, and `-B variant` picks one.
 */
function resolveFile(path: string, variant: Variant): string {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new InputError('data file not found', { file: path });
  }
  if (!st.isDirectory()) return path;
  const file = join(path, VARIANT_FILES[variant].file);
  try {
    statSync(file);
  } catch {
    const hint = path === fromRoot(DATA_DIR) ? `; fetch it with: rawrag data pull longmemeval --variant ${variant}` : '';
    throw new InputError(`no ${VARIANT_FILES[variant].file} in this folder (variant ${variant})${hint}`, { file: path });
  }
  return file;
}

function parseReading(value: string | undefined): ReadingMethod {
  const r = (value ?? 'con').trim();
  if (!(READING_METHODS as readonly string[]).includes(r)) {
    throw new InputError(`unknown reading method '${r}' (known: ${READING_METHODS.join(', ')})`, { place: '-B reading' });
  }
  return r as ReadingMethod;
}

function statOrFail(file: string) {
  try {
    return statSync(file);
  } catch (e) {
    throw new InputError(`cannot read file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file });
  }
}

/** Full releases have 500 questions with fixed per-type counts; anything else is a partial file. */
export function checkCounts(questions: Question[]): LoadWarning[] {
  const n = questions.length;
  if (n !== FULL_RELEASE.total) {
    return [{ place: 'file', important: true, message: `${n} questions, not a full release (${FULL_RELEASE.total}): per-type count check skipped` }];
  }
  const out: LoadWarning[] = [];
  for (const t of QUESTION_TYPES) {
    const got = questions.filter((q) => q.type === t).length;
    if (got !== FULL_RELEASE.byType[t]) out.push({ place: 'file', message: `${got} ${t} questions, the release has ${FULL_RELEASE.byType[t]}` });
  }
  const abs = questions.filter((q) => q.meta?.abstention === true).length;
  if (abs !== FULL_RELEASE.abstention) out.push({ place: 'file', message: `${abs} abstention (_abs) questions, the release has ${FULL_RELEASE.abstention}` });
  return out;
}

/** Re-reads episodes' turns from their byte ranges on demand (a small LRU keeps the hot ones). */
class EpisodeStore {
  private readonly cache = new Map<string, Turn[]>();

  constructor(
    private readonly file: string,
    private readonly stat: { size: number; mtimeMs: number },
  ) {}

  lazy(episode: Episode, el: JsonElement): Episode {
    const { id, meta } = episode;
    const range = { start: el.start, end: el.end, index: el.index };
    const out = { id, meta } as Episode;
    Object.defineProperty(out, 'turns', { enumerable: true, get: () => this.turnsOf(id, range) });
    return out;
  }

  private turnsOf(id: string, range: { start: number; end: number; index: number }): Turn[] {
    const hit = this.cache.get(id);
    if (hit) {
      this.cache.delete(id);
      this.cache.set(id, hit);
      return hit;
    }
    const turns = this.read(id, range);
    this.cache.set(id, turns);
    if (this.cache.size > TURN_CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
    return turns;
  }

  private read(id: string, range: { start: number; end: number; index: number }): Turn[] {
    const now = statOrFail(this.file);
    if (now.size !== this.stat.size || now.mtimeMs !== this.stat.mtimeMs) {
      throw new InputError('the data file changed after it was loaded; start the run again', { file: this.file });
    }
    const buf = Buffer.alloc(range.end - range.start);
    const fd = openSync(this.file, 'r');
    try {
      let got = 0;
      while (got < buf.length) {
        const n = readSync(fd, buf, got, buf.length - got, range.start + got);
        if (n === 0) break;
        got += n;
      }
    } finally {
      closeSync(fd);
    }
    const el: JsonElement = { index: range.index, text: decodeUtf8(buf, this.file, range.start), start: range.start, end: range.end };
    const { episode } = convertInstance(parseElement(el, this.file), range.index, this.file);
    if (episode.id !== id) throw new InputError(`re-read element is '${episode.id}', expected '${id}'`, { file: this.file, place: `[${range.index}]` });
    return episode.turns;
  }
}
