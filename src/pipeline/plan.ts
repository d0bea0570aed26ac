/**
 * Step 1 of every run, ablation and dry run: decide everything before anything is written —
 * the benchmark, its data, the selected questions, the effective policy, the run's id and
 * directory. Nothing here touches the run directory, the cache or the network.
 */
import { systemOf } from '../systems/registry.js';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { RunConfig } from '../config/schema.js';
import type { Benchmark } from '../core/benchmark.js';
import type { Policy } from '../core/policy.js';
import type { Dataset, Episode, Question } from '../core/schema.js';
import { getBenchmark } from '../benchmarks/registry.js';
import { readIdList, selectQuestions as selectFrom } from '../benchmarks/select.js';
import { InputError } from '../util/errors.js';
import { hashOf } from '../util/hash.js';
import { fromRoot } from '../util/paths.js';

export interface RunInputs {
  cfg: RunConfig;
  benchmark: Benchmark;
  dataset: Dataset;
  /** The questions this run asks, in data order. */
  questions: Question[];
  /** One sentence saying what a partial selection took (null: every question). */
  selection: string | null;
  /** The benchmark's policy after the user's flags (episodes may override further). */
  policy: Policy;
  loadMs: number;
}

/** Loads and selects: every input error surfaces here, before a run directory exists. */
export async function loadRunInputs(cfg: RunConfig): Promise<RunInputs> {
  const t0 = performance.now();
  const benchmark = getBenchmark(cfg.benchmark);
  const dataset = await loadDataset(benchmark, cfg);
  const { questions, selection } = selectQuestions(dataset, cfg);
  // A system may refuse values that would do nothing on these questions, before anything is written.
  systemOf(cfg).checkQuestions?.(cfg, questions);
  return { cfg, benchmark, dataset, questions, selection, policy: effectivePolicy(benchmark, cfg), loadMs: performance.now() - t0 };
}

/** The benchmark's policy, then the episode's own override (if any), then the user's flags. */
export function effectivePolicy(benchmark: Benchmark, cfg: RunConfig, episode?: Episode): Policy {
  const base: Policy = { ...benchmark.policy, ...episode?.policy };
  return {
    ...base,
    expandToTurns: cfg.assembly.expand ?? base.expandToTurns,
    order: cfg.assembly.order ?? base.order,
    ...(cfg.assembly.dedup === false ? { dedupTurns: false } : {}),
    ...(cfg.assembly.maxEvidenceTokens ? { maxEvidenceTokens: cfg.assembly.maxEvidenceTokens } : {}),
  };
}

/** Run id: readable prefix + hash of the semantic config, so the same command resumes the same run. */
export function runIdFor(cfg: RunConfig): string {
  const reader = cfg.reader.model ?? 'retrieval';
  // The paper's method keeps the short id; other systems put their name in front.
  const system = systemOf(cfg).reference ? '' : `${cfg.system}-`;
  return `${cfg.benchmark}-${system}${cfg.retrieval.retriever}-${reader}-${hashOf(cfg, 10)}`.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** The run directory a config writes to: `--out`, else `results/<run-id>`. */
export function runDirFor(cfg: RunConfig, out: string | null): string {
  return resolve(out ?? fromRoot('results', runIdFor(cfg)));
}

/** --ids / --sample / --limit (src/benchmarks/select.ts), with the sentence saying what was taken (null: every question). */
export function selectQuestions(dataset: Dataset, cfg: RunConfig): { questions: Question[]; selection: string | null } {
  const { questions, description } = selectFrom(dataset, {
    limit: cfg.limit,
    sample: cfg.sample,
    seed: cfg.seed,
    ids: cfg.ids ? readIdList(cfg.ids) : null,
  });
  return { questions, selection: questions.length < dataset.questions.length ? description : null };
}

export async function loadDataset(benchmark: Benchmark, cfg: RunConfig): Promise<Dataset> {
  const known = new Set(benchmark.options.map((o) => o.key));
  for (const key of Object.keys(cfg.options)) {
    if (!known.has(key)) {
      throw new InputError(`option '${key}' does not apply to ${benchmark.name} (its options: ${[...known].join(', ') || 'none'})`, {
        place: 'options',
      });
    }
  }
  const path = cfg.data ? resolve(cfg.data) : fromRoot(benchmark.defaultData);
  if (!existsSync(path)) {
    // The default location of a downloadable benchmark is empty until `rawrag data pull`.
    const hint = !cfg.data && benchmark.downloads ? `; fetch it with: rawrag data pull ${benchmark.name}` : '';
    throw new InputError(`data file not found${hint}`, { file: path });
  }
  return benchmark.load({ path, options: cfg.options });
}

/** Questions sharing an episode and a visibility horizon share one index (built once). */
export interface IndexGroup {
  episode: string;
  visibleTurns: number | null;
  questions: Question[];
}

export function groupByIndex(questions: Question[]): IndexGroup[] {
  const groups = new Map<string, IndexGroup>();
  for (const q of questions) {
    const key = `${q.episode}\u0000${q.visibleTurns ?? ''}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { episode: q.episode, visibleTurns: q.visibleTurns, questions: [] }));
    g.questions.push(q);
  }
  return [...groups.values()];
}

/** The episode a group asks about, or an input error naming the question. */
export function episodeOf(dataset: Dataset, episodes: Map<string, Episode>, group: IndexGroup): Episode {
  const episode = episodes.get(group.episode);
  if (!episode)
    throw new InputError(`question ${group.questions[0]!.id} names unknown episode '${group.episode}'`, { file: dataset.source.path });
  return episode;
}
