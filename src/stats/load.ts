/**
 * Reading run directories for `rawrag stats`: the folders `rawrag run` writes, and external
 * systems' minimal folders (manifest.json with system/benchmark/setting + items.jsonl of
 * {"id", "score"}). Read-only: a torn last line is skipped and reported, never truncated.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { z } from 'zod';
import { InputError, formatPath } from '../util/errors.js';
import { parseJsonText } from '../util/fsx.js';

const ManifestSchema = z.looseObject({
  system: z.string().min(1),
  benchmark: z.string().min(1),
  setting: z.string().min(1),
  status: z.string().optional(),
  run_id: z.string().optional(),
});

const CoverageSchema = z.union([z.boolean(), z.object({ all: z.boolean(), any: z.boolean() })]);
const VotesSchema = z.array(z.number().min(0).max(1));

const ItemSchema = z.looseObject({
  id: z.union([z.string().min(1), z.number()]),
  score: z.number().min(0).max(1).nullable(),
  type: z.union([z.string(), z.number()]).nullable().optional(),
  coverage: CoverageSchema.nullable().optional(),
  /** External format: the judge's per-run verdicts. */
  judge: VotesSchema.optional(),
  /** rawrag format: `{stage, message}`; external files may give a string. */
  error: z.union([z.looseObject({ stage: z.string().optional(), message: z.string() }), z.string()]).nullable().optional(),
  details: z.looseObject({ judge: z.looseObject({ votes: VotesSchema.optional() }).optional() }).optional(),
  episode: z.string().nullable().optional(),
  meta: z.record(z.string(), z.unknown()).nullable().optional(),
});

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
}

export interface LoadedRun {
  dir: string;
  /** Directory relative to the current working directory, for messages. */
  label: string;
  system: string;
  benchmark: string;
  setting: string;
  status: string | null;
  items: StatItem[];
  /** Problems found while reading (duplicate ids, a torn last line, no items.jsonl). */
  notes: string[];
}

/** Every directory holding a manifest.json at or below the given paths, sorted, de-duplicated. */
export function findRunDirs(paths: string[]): string[] {
  const found = new Set<string>();
  const walk = (dir: string) => {
    if (existsSync(join(dir, 'manifest.json'))) found.add(dir);
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch (e) {
      throw new InputError(`cannot read directory (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file: dir });
    }
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
  return [...found].sort();
}

export function loadRun(dir: string): LoadedRun {
  const manifestPath = join(dir, 'manifest.json');
  let text: string;
  try {
    text = readFileSync(manifestPath, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file: manifestPath });
  }
  const parsed = ManifestSchema.safeParse(parseJsonText(text, manifestPath));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError(issue.message, { file: manifestPath, place: formatPath(issue.path) });
  }
  const m = parsed.data;
  const notes: string[] = [];
  const items = readItems(join(dir, 'items.jsonl'), notes);
  return {
    dir,
    label: relative(process.cwd(), dir) || '.',
    system: m.system,
    benchmark: m.benchmark,
    setting: m.setting,
    status: m.status ?? null,
    items,
    notes,
  };
}

function readItems(path: string, notes: string[]): StatItem[] {
  if (!existsSync(path)) {
    notes.push('no items.jsonl: the run has no questions');
    return [];
  }
  const text = readFileSync(path, 'utf8');
  const lines = text.split('\n');
  // A last line without a newline was torn by a killed process (rawrag run cuts it on resume).
  const torn = !text.endsWith('\n') && lines[lines.length - 1]!.trim() !== '';
  if (torn) notes.push(`items.jsonl: last line ${lines.length} is incomplete (no newline) and was skipped`);
  const byId = new Map<string, StatItem>();
  let duplicates = 0;
  const last = torn ? lines.length - 1 : lines.length;
  for (let i = 0; i < last; i++) {
    const line = lines[i]!;
    if (!line.trim()) continue;
    const place = `line ${i + 1}`;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (e) {
      throw new InputError(`not JSON (${(e as Error).message})`, { file: path, place });
    }
    const r = ItemSchema.safeParse(raw);
    if (!r.success) {
      const issue = r.error.issues[0]!;
      throw new InputError(`${formatPath(issue.path)}: ${issue.message}`, { file: path, place });
    }
    const it = r.data;
    const id = String(it.id);
    if (byId.has(id)) duplicates++;
    const cov = it.coverage;
    const error = it.error == null ? null : typeof it.error === 'string' ? it.error : `${it.error.stage ?? 'error'}: ${it.error.message}`;
    byId.set(id, {
      id,
      score: it.score,
      type: it.type === null || it.type === undefined || it.type === '' ? null : String(it.type),
      coverage: cov === null || cov === undefined ? null : typeof cov === 'boolean' ? cov : cov.all,
      votes: it.details?.judge?.votes ?? it.judge ?? null,
      episode: it.episode ?? null,
      meta: it.meta ?? null,
      error,
      ...(typeof (it.metrics as { pollution?: unknown } | undefined)?.pollution === 'number' ? { pollution: (it.metrics as { pollution: number }).pollution } : {}),
    });
  }
  if (duplicates) notes.push(`items.jsonl: ${duplicates} repeated id(s); the last line of each id was used`);
  return [...byId.values()];
}
