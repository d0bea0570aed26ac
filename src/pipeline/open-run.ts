/**
 * Step 2: open (or resume) a run directory. Only a run with the same identity is resumed; the
 * directory is locked for as long as this process writes it; a dry run reads without writing.
 */
import { RUN_SCHEMA } from '../run-files/record.js';
import { systemOf } from '../systems/registry.js';
import { existsSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import type { Question } from '../core/schema.js';
import type { ItemRecord } from '../core/item.js';
import { identityDifferences, identityOf, type RunIdentity } from '../run-files/identity.js';
import { acquireRunLock, type RunLock } from '../run-files/lock.js';
import { toolInfo, type Manifest } from '../run-files/manifest.js';
import { RunDir } from '../run-files/run-dir.js';
import { InputError } from '../util/errors.js';
import { protocolDeviations } from '../reader-judge/reader-override.js';
import { mislabelledScores } from './forced-resume.js';

export interface OpenOptions {
  retryErrors?: boolean;
  /** Resume although the identity differs (recorded in the manifest's `forced_from`). */
  forceResume?: boolean;
  /** Read only: no lock, no repair, nothing written. */
  dryRun?: boolean;
  /** The run's config: a refused resume then names the config keys that differ, not their hashes. */
  config?: unknown;
  /** Every question id of the benchmark data: an item of another id makes the folder another run's (refused). */
  benchmarkIds?: ReadonlySet<string>;
  /** Why the run is not whole even when every question is done (a re-judge of an incomplete run), or null. */
  incompleteBecause?: string | null;
}

export interface OpenedRunDir {
  rundir: RunDir;
  lock: RunLock | null;
  /** Items already written for the selected questions (after dropping errors with --retry-errors). */
  previous: ItemRecord[];
  done: Set<string>;
  pending: Question[];
  createdAt: string;
  forcedFrom: Array<Partial<RunIdentity>>;
  /** The label (`--name`) the directory already has; null when none. */
  name: string | null;
  /** USD the directory's earlier processes spent (manifest `spent_usd`; 0 for a new directory, null when unknown). */
  spentBefore: number | null;
  /** What the user should know (a stale lock taken over, a forced resume). */
  notes: string[];
}

/** Refuses a folder that is not a run directory of this identity; takes the lock; reads what is done. */
export function openRunDir(dir: string, identity: RunIdentity, questions: Question[], opts: OpenOptions = {}): OpenedRunDir {
  const rundir = new RunDir(dir);
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new InputError('--out names a file, not a folder (ENOTDIR)', { file: dir });
  const notes: string[] = [];
  let createdAt = new Date().toISOString();
  let forcedFrom: Array<Partial<RunIdentity>> = [];
  let name: string | null = null;
  let spentBefore: number | null = 0;
  const checkIdentity = () => {
    if (!rundir.exists()) return;
    const prev = rundir.readManifest();
    const diff = identityDifferences(
      identityOf(prev),
      identity,
      opts.config === undefined ? undefined : { prev: prev.config, now: opts.config },
    );
    if (diff.length > 0 && !opts.forceResume) {
      throw new InputError(
        `this run directory holds a different run:\n  - ${diff.join('\n  - ')}\n` +
          'use another --out (or remove this folder) to start fresh, or add --force-resume to continue it anyway (the manifest then records both)',
        { file: rundir.manifestPath },
      );
    }
    const mislabelled = diff.length > 0 ? mislabelledScores(prev.config, opts.config, rundir.readItems(), questions) : [];
    if (mislabelled.length > 0) {
      throw new InputError(
        `--force-resume cannot keep these items: their scores would be credited to a judge or gold that did not score them:\n  - ${mislabelled.join('\n  - ')}\n` +
          "use another --out for the new judgement (rawrag judge --rejudge re-scores a run's answers without reading again)",
        { file: rundir.manifestPath },
      );
    }
    createdAt = prev.created_at;
    name = typeof prev.name === 'string' ? prev.name : null;
    spentBefore = prev.spent_usd === undefined ? 0 : prev.spent_usd;
    forcedFrom = [...(prev.forced_from ?? []), ...(diff.length > 0 ? [identityOf(prev)] : [])];
    if (diff.length > 0) notes.push(`resuming a different run (--force-resume): ${diff.join('; ')}`);
  };
  if (!rundir.exists() && existsSync(dir) && readdirSync(dir).length > 0) {
    throw new InputError('output folder exists, is not empty and holds no rawrag manifest; choose another --out', { file: dir });
  }
  checkIdentity();

  let lock: RunLock | null = null;
  if (!opts.dryRun) {
    const created = !existsSync(dir);
    lock = acquireRunLock(dir);
    if (lock.tookOver) notes.push(lock.tookOver);
    try {
      // The holder of a lock we waited out may have changed the directory meanwhile.
      checkIdentity();
      const repaired = rundir.repairTail();
      if (repaired) notes.push(repaired);
    } catch (e) {
      lock.release();
      if (created) {
        try {
          rmdirSync(dir);
        } catch {
          /* not empty: leave it */
        }
      }
      throw e;
    }
  }

  let previous: ItemRecord[];
  try {
    previous = rundir.readItems();
    if (opts.benchmarkIds) refuseForeignItems(previous, opts.benchmarkIds, rundir.itemsPath);
  } catch (e) {
    lock?.release();
    throw e;
  }
  if (opts.retryErrors) {
    const kept = previous.filter((i) => !i.error);
    if (kept.length !== previous.length && !opts.dryRun) rundir.rewriteItems(kept);
    previous = kept;
  }
  const selected = new Set(questions.map((q) => q.id));
  previous = previous.filter((i) => selected.has(i.id));
  const done = new Set(previous.map((i) => i.id));
  return {
    rundir,
    lock,
    previous,
    done,
    pending: questions.filter((q) => !done.has(q.id)),
    createdAt,
    forcedFrom,
    name,
    spentBefore,
    notes,
  };
}

/**
 * Items whose id is no question of the benchmark data (another benchmark's, an edited file): a
 * resume would skip them and call the run complete, while stats, export and report refuse the
 * folder, so the resume refuses it too.
 */
function refuseForeignItems(items: ItemRecord[], ids: ReadonlySet<string>, file: string): void {
  const foreign = items.filter((i) => typeof i.id !== 'string' || !ids.has(i.id));
  if (foreign.length === 0) return;
  const shown = foreign
    .slice(0, 3)
    .map((i) => `'${String(i.id)}'`)
    .join(', ');
  throw new InputError(
    `${foreign.length} item${foreign.length === 1 ? ' is' : 's are'} no question of this run's benchmark data (${shown}${foreign.length > 3 ? ', ...' : ''}): ` +
      'the folder holds items of another run or was edited; use another --out to start fresh',
    { file },
  );
}

/** The manifest of a run that is starting (status `running`). */
export function startManifest(fields: {
  runId: string;
  identity: RunIdentity;
  system: string;
  benchmark: string;
  setting: string;
  config: Manifest['config'];
  policy: Record<string, unknown>;
  source: { name: string; notes: string[]; stand_in?: boolean; library?: Record<string, unknown> };
  /** The source's `pairWith`. */
  pairWith?: string;
  skipped: string[];
  dataset: Manifest['dataset'];
  selected: number;
  done: number;
  opened: OpenedRunDir;
  git: Manifest['git'];
  /** --name; absent = the label the directory already has, if any. */
  name?: string | null;
  /** The response cache folder (null: --no-cache). */
  cacheDir?: string | null;
  /** What the command was given besides the config (src/run-files/invocation.ts): what `rawrag resume` reads. */
  invocation?: Manifest['invocation'];
  shard?: Manifest['shard'];
}): Manifest {
  const name = fields.name ?? fields.opened.name;
  return {
    schema: RUN_SCHEMA,
    run_id: fields.runId,
    system: fields.system,
    ...(name ? { name } : {}),
    // The paper's method: stats' default baseline and the paper's row beside it (read as data, never from the name).
    ...(systemOf(fields.config).reference ? { reference: true } : {}),
    ...(systemOf(fields.config).oracle ? { oracle: true } : {}),
    ...(fields.pairWith ? { pair_with: fields.pairWith } : {}),
    // How the system's authors drive it, and where this run departs (a memory service's vendor protocol).
    ...(systemOf(fields.config).about?.protocol ? { system_protocol: systemOf(fields.config).about!.protocol } : {}),
    benchmark: fields.benchmark,
    setting: fields.setting,
    status: 'running',
    config_hash: fields.identity.config_hash,
    identity: fields.identity,
    ...(fields.opened.forcedFrom.length > 0 ? { forced_from: fields.opened.forcedFrom } : {}),
    config: fields.config,
    policy: fields.policy,
    retriever: fields.source,
    ...(fields.cacheDir !== undefined ? { cache_dir: fields.cacheDir } : {}),
    ...(fields.invocation ? { invocation: fields.invocation } : {}),
    ...(fields.shard ? { shard: fields.shard } : {}),
    skipped: fields.skipped,
    deviations: protocolDeviations(fields.config),
    dataset: fields.dataset,
    questions: { selected: fields.selected, done: fields.done, errors: 0 },
    tool: toolInfo(),
    git: fields.git,
    created_at: fields.opened.createdAt,
    updated_at: new Date().toISOString(),
    finished_at: null,
    timings: {},
    error: null,
  };
}
