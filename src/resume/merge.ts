/**
 * `rawrag merge SHARD... --out DIR`: the run directories of one run's shards (`--shard I/N`, or
 * any split of its questions) joined into one run directory, checked first: every shard is a run
 * of the same identity (config, system, evidence source, data, rawrag version), no question is in
 * two shards, and together they hold every question of the selection. The merged run's items are
 * in data order; its summary is computed from them as a run's is; its manifest says what it was
 * merged from. A system's own stores (a memory database per run) are not merged: the merged run is
 * for scores, stats, reports and re-judging.
 */
import { readRunSummary } from '../run-files/record.js';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { ItemRecord } from '../core/item.js';
import { summarise } from '../reader-judge/summary.js';
import { cumulativeUsage } from '../pipeline/pipeline.js';
import { loadRunInputs } from '../pipeline/plan.js';
import { identityDifferences, identityOf, type RunIdentity } from '../run-files/identity.js';
import type { Manifest } from '../run-files/manifest.js';
import { RunDir } from '../run-files/run-dir.js';
import { InputError } from '../util/errors.js';
import { withoutShard } from '../run-files/invocation.js';

interface Shard {
  dir: string;
  manifest: Manifest;
  items: ItemRecord[];
}

export interface MergeResult {
  dir: string;
  questions: number;
  shards: number;
  errors: number;
}

function readShard(dir: string): Shard {
  const rundir = new RunDir(dir);
  if (!rundir.exists()) throw new InputError('not a run directory (no manifest.json)', { file: dir });
  return { dir: resolve(dir), manifest: rundir.readManifest(), items: rundir.readItems() };
}

/** Every shard must be a run of the first one's identity. */
function checkIdentity(shards: Shard[]): void {
  const first = identityOf(shards[0]!.manifest) as RunIdentity;
  for (const s of shards.slice(1)) {
    const diff = identityDifferences(first, identityOf(s.manifest) as RunIdentity, {
      prev: shards[0]!.manifest.config,
      now: s.manifest.config,
    });
    if (diff.length > 0)
      throw new InputError(`not a shard of the same run as ${shards[0]!.dir}:\n  - ${diff.join('\n  - ')}`, {
        file: join(s.dir, 'manifest.json'),
      });
  }
}

/** No question in two shards. */
function checkOverlap(shards: Shard[]): Map<string, ItemRecord> {
  const byId = new Map<string, { item: ItemRecord; dir: string }>();
  for (const s of shards)
    for (const item of s.items) {
      const seen = byId.get(item.id);
      if (seen) throw new InputError(`question '${item.id}' is in two shards (${seen.dir} and ${s.dir}): they overlap`, { file: s.dir });
      byId.set(item.id, { item, dir: s.dir });
    }
  return new Map([...byId].map(([id, v]) => [id, v.item]));
}

/** The run's whole selection (without --shard), from its data, as the run read it. */
async function selectionOf(m: Manifest) {
  // The data file the run read (its recorded path, resolved when it ran), whatever the working folder is now.
  return loadRunInputs({ ...m.config, data: m.dataset.path ?? m.config.data });
}

export async function mergeShards(dirs: string[], out: string): Promise<MergeResult> {
  if (dirs.length === 0) throw new InputError('no shard given (rawrag merge SHARD... --out DIR)');
  const target = resolve(out);
  if (existsSync(target) && readdirSync(target).length > 0)
    throw new InputError('--out exists and is not empty: choose a new folder', { file: target });
  const shards = dirs.map(readShard);
  checkIdentity(shards);
  const byId = checkOverlap(shards);
  const first = shards[0]!.manifest;
  const inputs = await selectionOf(first);
  const wanted = new Set(inputs.questions.map((q) => q.id));
  const missing = inputs.questions.filter((q) => !byId.has(q.id)).map((q) => q.id);
  const extra = [...byId.keys()].filter((id) => !wanted.has(id));
  if (missing.length > 0 || extra.length > 0) {
    const parts = [
      ...(missing.length
        ? [
            `${missing.length} of ${wanted.size} questions of the selection are in no shard (e.g. ${missing.slice(0, 3).join(', ')}): run or resume the shard that holds them`,
          ]
        : []),
      ...(extra.length ? [`${extra.length} items are not questions of the selection (e.g. ${extra.slice(0, 3).join(', ')})`] : []),
    ];
    throw new InputError(`the shards do not make the run:\n  - ${parts.join('\n  - ')}`);
  }
  const items = inputs.questions.map((q) => byId.get(q.id)!);
  writeMerged(target, shards, items, inputs);
  return { dir: target, questions: items.length, shards: shards.length, errors: items.filter((i) => i.error).length };
}

/** Writes the merged run into a temporary folder beside `target`, then renames it: never half-written. */
function writeMerged(target: string, shards: Shard[], items: ItemRecord[], inputs: Awaited<ReturnType<typeof loadRunInputs>>): void {
  const first = shards[0]!;
  const tmp = join(dirname(target), `.${basename(target)}.merging-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    const rundir = new RunDir(tmp);
    for (const item of items) rundir.append(item);
    rundir.close();
    const { benchmark, dataset, cfg } = inputs;
    const earlier = (readRunSummary(first.dir) ?? {}) as Record<string, unknown>;
    const spent = shards.map((s) => s.manifest.spent_usd);
    const errors = items.filter((i) => i.error).length;
    rundir.writeSummary({
      ...earlier,
      ...summarise(items, benchmark.typeOrder, (t) => benchmark.aggregation?.inHeadline?.(t) ?? true),
      benchmark_summary: benchmark.summarise?.(items, { options: cfg.options, dataset }) ?? null,
      usage_cumulative: cumulativeUsage(items),
      merged_from: shards.length,
    });
    const { shard: _shard, ...base } = first.manifest;
    const manifest: Manifest = {
      ...base,
      status: 'complete',
      questions: { selected: items.length, done: items.length, errors },
      created_at: shards.map((s) => s.manifest.created_at).sort()[0]!,
      updated_at: new Date().toISOString(),
      finished_at: new Date().toISOString(),
      spent_usd: spent.some((x) => x === null || x === undefined) ? null : spent.reduce<number>((a, x) => a + (x as number), 0),
      merged_from: shards.map((s) => ({ dir: s.dir, run_id: s.manifest.run_id, shard: s.manifest.shard ?? null, items: s.items.length })),
      // A resume of the merged run (--retry-errors) is of the whole selection, not of a shard.
      ...(base.invocation ? { invocation: withoutShard(base.invocation) } : {}),
    };
    rundir.writeManifest(manifest);
    if (existsSync(target)) rmSync(target, { recursive: true });
    renameSync(tmp, target);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}
