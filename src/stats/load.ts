/**
 * Reading run directories for `rawrag stats`: the folders `rawrag run` writes, and external
 * systems' minimal folders (manifest.json with system/benchmark/setting + items.jsonl of
 * {"id", "score"}). Read-only. Files are decoded as strict UTF-8 (a BOM is dropped); a last line
 * without a newline is used when it is valid JSON and otherwise skipped as torn, and reported.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { InputError } from '../util/errors.js';
import { completeness, runSetting, type ManifestView } from '../core/comparability.js';
import { ITEMS_FILE, readRunItemLines, readRunManifest, type RunItem } from '../run-files/record.js';

/** |mean(judge votes) − score| above this is a contradiction in the input. */
const VOTE_SCORE_TOLERANCE = 1e-6;

/** One question's outcome in one run, reduced to what the statistics need. */
export interface StatItem {
  id: string;
  /** null: not judged (offline run, or no score written). */
  score: number | null;
  type: string | null;
  /** coverage.all (sufficient evidence shown); null when unknown. */
  coverage: boolean | null;
  votes: number[] | null;
  /** rawrag items: the episode and the adapter's question facts (for cross-item rules such as MEME's). */
  episode: string | null;
  meta: Record<string, unknown> | null;
  /** The item failed (error recorded); it is reported, never scored as wrong. */
  error: string | null;
  /** Memory systems: share of injected items whose sources hold no gold evidence (metrics.pollution); null when unknown. */
  pollution?: number | null;
  /** `--epochs N`: the score of each epoch's answer (details.epochs), when every epoch was scored. */
  epochs?: number[];
}

export interface LoadedRun {
  dir: string;
  /** Directory relative to the current working directory, for messages. */
  label: string;
  system: string;
  /** The run's `--name` label (manifest `name`); null when none was given. */
  name?: string | null;
  /** The paper's method (manifest `reference`): the default baseline. */
  reference: boolean;
  /** Also paired against this system's run in the same setting (manifest `pair_with`: a store oracle against the raw one). */
  pairWith?: string | null;
  /** The evidence source the run used (manifest `retriever.name`), when recorded. */
  source: string | null;
  benchmark: string;
  setting: string;
  status: string | null;
  items: StatItem[];
  /** Problems found while reading (duplicate ids, a torn last line, no items.jsonl). */
  notes: string[];
  /** The judge model that scored the items (items' details.judge.model, else the manifest's); null when unknown. */
  judge?: string | null;
  /** manifest.json config_hash (rawrag runs). */
  configHash?: string | null;
  /** The run used an offline stand-in for the paper's retriever (manifest retriever.stand_in). */
  standIn?: boolean;
  /** Every question of its set answered, none failed, status complete (src/core/comparability.ts); false when unknown. */
  complete?: boolean;
}

/** A folder that looked like a run but was not used, and why. */
export interface SkippedDir {
  dir: string;
  reason: string;
}

/** Every directory holding a manifest.json at or below the given paths, sorted, de-duplicated. */
export function findRunDirs(paths: string[]): string[] {
  return scanRunDirs(paths).dirs;
}

/**
 * Run directories below the given paths, plus the folders that hold items files but no
 * manifest.json (skipped, and said so).
 */
export function scanRunDirs(paths: string[]): { dirs: string[]; skipped: SkippedDir[] } {
  const found = new Set<string>();
  const skipped: SkippedDir[] = [];
  const walk = (dir: string) => {
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch (e) {
      throw new InputError(`cannot read directory (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file: dir });
    }
    if (entries.includes('manifest.json')) found.add(dir);
    else if (entries.includes('items.jsonl')) skipped.push({ dir, reason: 'items.jsonl but no manifest.json' });
    for (const name of entries.sort()) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      const child = join(dir, name);
      if (statSync(child).isDirectory()) walk(child);
    }
  };
  for (const p of paths) {
    const abs = resolve(p);
    if (!existsSync(abs)) throw new InputError('no such file or directory', { file: p });
    if (!statSync(abs).isDirectory()) throw new InputError('not a directory (give run directories or folders holding them)', { file: p });
    walk(abs);
  }
  const label = (d: string) => relative(process.cwd(), d) || '.';
  return {
    dirs: [...found].sort(),
    skipped: skipped.map((s) => ({ dir: label(s.dir), reason: s.reason })).sort((a, b) => (a.dir < b.dir ? -1 : 1)),
  };
}

export function loadRun(dir: string): LoadedRun {
  return loadRunWithLines(dir);
}

/** loadRun of a run whose items.jsonl lines the caller has read already (read once, not twice). */
export function loadRunWithLines(dir: string, lines?: Array<{ line: number; item: RunItem }>): LoadedRun {
  // Through the run record (src/run-files/record.ts): validated, an older version upgraded.
  const m = readRunManifest(dir).manifest;
  const notes: string[] = [];
  const judges = new Set<string>();
  const items = readItems(dir, notes, judges, lines);
  const scored = items.some((i) => i.score !== null && i.error === null);
  const judge = judges.size ? [...judges].sort().join(' + ') : (m.judge ?? (scored ? (m.config?.judge?.model ?? null) : null));
  return {
    dir,
    label: relative(process.cwd(), dir) || '.',
    system: m.system,
    name: m.name ?? null,
    reference: m.reference === true,
    pairWith: m.pair_with ?? null,
    source: m.retriever?.name ?? null,
    benchmark: m.benchmark,
    setting: m.setting,
    status: m.status ?? null,
    items,
    notes,
    judge,
    configHash: m.config_hash ?? null,
    standIn: m.retriever?.stand_in === true,
    complete: isComplete(m),
  };
}

/** The comparability rule's completeness (src/core/comparability.ts) of a manifest, read loosely. */
function isComplete(m: unknown): boolean {
  const s = runSetting(m as ManifestView);
  return s !== null && completeness(s).complete;
}

/** One item reduced to what the statistics need (a validated items.jsonl line, or an item in memory). */
export function toStatItem(it: {
  id: string;
  score: number | null;
  type?: string | number | null;
  coverage?: boolean | { all: boolean } | null;
  votes: number[] | null;
  episode?: string | null;
  meta?: Record<string, unknown> | null;
  error: string | null;
}): StatItem {
  const cov = it.coverage;
  return {
    id: it.id,
    score: it.score,
    type: it.type === null || it.type === undefined || it.type === '' ? null : String(it.type),
    coverage: cov === null || cov === undefined ? null : typeof cov === 'boolean' ? cov : cov.all,
    votes: it.votes && it.votes.length ? it.votes : null,
    episode: it.episode ?? null,
    meta: it.meta ?? null,
    error: it.error,
  };
}

/** A judge run with another prompt (`--judge-prompt`) is another judge: ` [prompt:<sha>]` after the model. */
function promptTag(protocol: unknown): string {
  if (typeof protocol !== 'string') return '';
  const at = protocol.indexOf('+prompt:');
  return at === -1 ? '' : ` [${protocol.slice(at + 1)}]`;
}

/** The scores of an item's epochs (`details.epochs[].score`), when it has two or more and all are numbers. */
function epochScores(details: unknown): number[] | null {
  const epochs = (details as { epochs?: unknown } | undefined)?.epochs;
  if (!Array.isArray(epochs) || epochs.length < 2) return null;
  const scores = epochs.map((e) => (e as { score?: unknown } | null)?.score);
  return scores.every((x): x is number => typeof x === 'number' && x >= 0 && x <= 1) ? scores : null;
}

function readItems(dir: string, notes: string[], judges: Set<string>, lines?: Array<{ line: number; item: RunItem }>): StatItem[] {
  const path = join(dir, ITEMS_FILE);
  if (!existsSync(path)) {
    notes.push('no items.jsonl: the run has no questions');
    return [];
  }
  const byId = new Map<string, StatItem>();
  let duplicates = 0;
  for (const { line: lineNo, item: it } of lines ?? readRunItemLines(dir, notes)) {
    const place = `line ${lineNo}`;
    const id = String(it.id);
    if (byId.has(id)) duplicates++;
    const error = it.error == null ? null : typeof it.error === 'string' ? it.error : `${it.error.stage ?? 'error'}: ${it.error.message}`;
    const votes = it.details?.judge?.votes ?? it.judge ?? null;
    if (votes && votes.length && it.score !== null) {
      const mean = votes.reduce((a, b) => a + b, 0) / votes.length;
      if (Math.abs(mean - it.score) > VOTE_SCORE_TOLERANCE) {
        throw new InputError(
          `score ${it.score} contradicts the judge votes [${votes.join(', ')}] (their mean is ${+mean.toFixed(6)}); the score must be the mean of the votes`,
          { file: path, place },
        );
      }
    }
    const judgeModel = it.details?.judge?.model;
    if (typeof judgeModel === 'string' && judgeModel) judges.add(judgeModel + promptTag(it.details?.judge?.protocol));
    const pollution = (it.metrics as { pollution?: unknown } | undefined)?.pollution;
    const epochs = epochScores(it.details);
    byId.set(id, {
      ...toStatItem({ ...it, id, error, votes }),
      ...(typeof pollution === 'number' ? { pollution } : {}),
      ...(epochs ? { epochs } : {}),
    });
  }
  if (byId.size === 0) notes.push('items.jsonl is empty');
  if (duplicates) notes.push(`items.jsonl: ${duplicates} repeated id(s); the last line of each id was used`);
  return [...byId.values()];
}
