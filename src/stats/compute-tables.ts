/**
 * `rawrag stats`: from loaded runs to every table — leaderboards with intervals, pairwise tests
 * with Holm, Cochran's Q, coverage x utilization, judge agreement — and the list of every question
 * that could not be used and why. Pure: no file access, seeded randomness.
 */
import { effectiveStatus, statusLabel } from '../run-files/status.js';
import { runSteps, runStepsYielding } from '../util/steps.js';
import { epochRow, type EpochRow } from './epochs.js';
import { MICRO_AGGREGATION, type Aggregation } from '../core/aggregation.js';
import { columnStrata, headlineColumns, inHeadline, type ColumnSpec } from './aggregations.js';
import { designStatistic, pairedBootstrapDesign, percentileInterval, replicates, resampleSums } from './bootstrap.js';
import { wilson } from './intervals.js';
import type { LoadedRun, SkippedDir, StatItem } from './load.js';
import { dedupeByConfigHash, groupFamilies } from './families.js';
import { cochranQ, holm, holmLog10, holmWithBounds, mcnemarExact, mcnemarExactLog10 } from './tests.js';
import { InputError } from '../util/errors.js';

import type {
  Cell,
  CoverageRow,
  FamilyProblems,
  FamilyReport,
  OmnibusRow,
  PairRow,
  StatsOptions,
  StatsReport,
  SystemRow,
  SystemRun,
} from './report-types.js';
import { binarise, coverageKnown, isScored, toDesign } from './scored.js';
import { agreementRow, coveragePairs, coverageRow } from './coverage-tables.js';

export type * from './report-types.js';
export { binarise } from './scored.js';

const UNTYPED = 'untyped';

export function analyse(allRuns: LoadedRun[], opts: StatsOptions): StatsReport {
  return runSteps(analyseSteps(allRuns, opts));
}

/**
 * The same analysis (same draws, same figures), giving the event loop a turn between its resampling
 * steps: a command computing statistics sees Ctrl-C within about a second.
 */
export function analyseYielding(allRuns: LoadedRun[], opts: StatsOptions): Promise<StatsReport> {
  return runStepsYielding(analyseSteps(allRuns, opts));
}

/** The analysis as steps: each `yield` ends one resampling step (a system's leaderboard cells, a pair). */
function* analyseSteps(allRuns: LoadedRun[], opts: StatsOptions): Generator<void, StatsReport> {
  const skipped: SkippedDir[] = [...(opts.skipped ?? [])];
  const withItems = allRuns.filter((r) => {
    if (r.items.length > 0) return true;
    skipped.push({ dir: r.label, reason: r.notes.find((n) => /items\.jsonl/.test(n)) ?? 'no items' });
    return false;
  });
  const { runs, duplicates } = dedupeByConfigHash(withItems);
  skipped.push(
    ...duplicates.map((d) => ({ dir: d.dir.label, reason: `same config hash as ${d.kept.label} (a duplicate run; ${d.kept.label} used)` })),
  );
  const families = groupFamilies(runs);
  const work = new WorkMeter(
    families.reduce((a, f) => a + estimateFamilyDraws(f.runs, opts), 0),
    opts.onProgress,
  );
  const reports: FamilyReport[] = [];
  for (const f of families) reports.push(yield* analyseFamily(f.runs, f.judge, f.notes, opts, work));
  return {
    format: 'rawrag.stats/1',
    options: { resamples: opts.resamples, seed: opts.seed, baseline: opts.baseline ?? null, all_pairs: opts.allPairs, confidence: 0.95 },
    runs: runs.map((r) => ({
      dir: r.label,
      system: r.system,
      benchmark: r.benchmark,
      setting: r.setting,
      status: r.status,
      items: r.items.length,
      notes: r.notes,
    })),
    skipped: skipped.sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0)),
    families: reports,
  };
}

/** Progress over the resampling work of a whole analysis (draws done / estimated). */
class WorkMeter {
  done = 0;
  constructor(
    readonly total: number,
    private readonly report?: (done: number, total: number) => void,
  ) {}
  add(draws: number): void {
    this.done += draws;
    this.report?.(Math.min(this.done, this.total), this.total);
  }
}

/**
 * Estimated item draws of a family (leaderboard passes, pairs, utilization), for the progress
 * display and to decide whether to show one. Within a factor of ~2 of the real work.
 */
export function estimateFamilyDraws(runs: LoadedRun[], opts: Pick<StatsOptions, 'resamples' | 'allPairs'>): number {
  const sizes = runs.map((r) => r.items.length);
  const k = sizes.length;
  const pairs = opts.allPairs ? (k * (k - 1)) / 2 : Math.max(0, k - 1);
  const mean = sizes.reduce((a, b) => a + b, 0) / Math.max(1, k);
  // Per system: up to two leaderboard passes and one utilization pass; per pair: Δ and coverage/utilization.
  return opts.resamples * (3 * sizes.reduce((a, b) => a + b, 0) + 2 * pairs * mean);
}

/** Total estimated draws of an analysis (before it runs). */
export function estimateDraws(runs: LoadedRun[], opts: Pick<StatsOptions, 'resamples' | 'allPairs'>): number {
  const { runs: kept } = dedupeByConfigHash(runs.filter((r) => r.items.length > 0));
  return groupFamilies(kept).reduce((a, f) => a + estimateFamilyDraws(f.runs, opts), 0);
}

function* analyseFamily(
  familyRuns: LoadedRun[],
  judge: string | null,
  familyNotes: string[],
  opts: StatsOptions,
  work: WorkMeter,
): Generator<void, FamilyReport> {
  const { benchmark, setting } = familyRuns[0]!;
  const agg = opts.aggregation?.(benchmark) ?? MICRO_AGGREGATION;
  const notes: string[] = [...familyNotes];
  const systems = nameSystems(familyRuns, notes);
  if (agg.adjust) {
    for (const s of systems) {
      const r = agg.adjust(s.run.items);
      s.byId = new Map(r.items.map((i) => [i.id, i]));
      if (r.note) notes.push(`${s.name}: ${r.note}`);
    }
  }
  const u = questionUniverse(systems, benchmark, opts);
  const columns = headlineColumns(agg, u.types);
  const problems = familyProblems(systems, u, notes);
  const boot = { resamples: opts.resamples, seed: opts.seed };
  const rows = yield* leaderboardRows(systems, agg, columns, u, problems, boot, work);
  const byName = new Map(systems.map((s) => [s.name, s]));
  const ranked = rows.map((r) => byName.get(r.system)!);
  const baseline = chooseBaseline(ranked, opts, notes, `${benchmark} — ${setting}`);
  const pairs = choosePairs(ranked, baseline, opts);
  const overallCol = columns.find((c) => c.name === 'overall')!;
  const pairwise = yield* pairwiseRows(systems, pairs, agg, overallCol, u, boot, notes, work);
  const headline = (id: string) => inHeadline(agg, u.typeFor(id));
  const coverage: CoverageRow[] = [];
  for (const s of ranked) {
    coverage.push(coverageRow(s, headline, boot));
    yield;
  }
  work.add(opts.resamples * coverage.reduce((a, c) => a + c.n, 0));
  const coverage_pairwise = yield* coveragePairs(pairs, headline, boot);
  const setSizes = systems.map((s) => s.run.items.length);
  work.add(opts.resamples * pairs.length * (setSizes.reduce((a, b) => a + b, 0) / Math.max(1, setSizes.length)));
  // Agreement is about the judge's raw verdicts, before any cross-item rule.
  const agreement = ranked.map((s) => agreementRow(s.name, s.run.items));
  const epochs = ranked.map((s) => epochRow(s.name, s.run.items)).filter((r): r is EpochRow => r !== null);

  return {
    benchmark,
    setting,
    judge,
    aggregation: { overall: agg.overall, note: agg.note, columns: columns.map((c) => c.name) },
    questions: u.ids.length,
    headline_questions: u.ids.filter(headline).length,
    types: u.types,
    baseline: baseline?.name ?? null,
    mode: baseline && !opts.allPairs ? 'baseline' : 'all-pairs',
    leaderboard: rows,
    pairwise,
    omnibus: omnibus(ranked, headline),
    coverage,
    coverage_pairwise,
    agreement,
    ...(epochs.length ? { epochs } : {}),
    problems,
  };
}

/** The family's questions, each with one type, and the types in the benchmark's order. */
interface QuestionUniverse {
  ids: string[];
  types: string[];
  typeFor(id: string): string;
  conflicts: Set<string>;
}

function questionUniverse(systems: SystemRun[], benchmark: string, opts: StatsOptions): QuestionUniverse {
  // A question's type comes from the first run that states one, reference (paper-method) runs
  // first, so external files without types still get per-type columns.
  const ordered = [...systems].sort((a, b) => Number(!a.run.reference) - Number(!b.run.reference) || a.name.localeCompare(b.name));
  const typeOf = new Map<string, string>();
  const conflicts = new Set<string>();
  const allIds = new Set<string>();
  for (const s of ordered) {
    for (const it of s.run.items) {
      allIds.add(it.id);
      if (it.type === null) continue;
      const known = typeOf.get(it.id);
      if (known === undefined) typeOf.set(it.id, it.type);
      else if (known !== it.type) conflicts.add(it.id);
    }
  }
  const ids = [...allIds].sort();
  const order = opts.typeOrder?.(benchmark) ?? [];
  const rankOf = (t: string) => (order.indexOf(t) === -1 ? order.length : order.indexOf(t));
  const types = [...new Set(ids.map((id) => typeOf.get(id) ?? UNTYPED))].sort((a, b) => rankOf(a) - rankOf(b) || a.localeCompare(b));
  return { ids, types, typeFor: (id) => typeOf.get(id) ?? UNTYPED, conflicts };
}

/** Per system: questions missing, failed and unscored; notes on runs that are not whole or do not cover the same questions. */
function familyProblems(systems: SystemRun[], u: QuestionUniverse, notes: string[]): FamilyProblems {
  const { ids, conflicts } = u;
  const problems: FamilyProblems = { missing: {}, failed: {}, unscored: {}, type_conflicts: [...conflicts].sort(), notes };
  for (const s of systems) {
    problems.missing[s.name] = ids.filter((id) => !s.byId.has(id));
    problems.failed[s.name] = s.run.items
      .filter((i) => i.error !== null)
      .map((i) => i.id)
      .sort();
    problems.unscored[s.name] = s.run.items
      .filter((i) => i.error === null && i.score === null)
      .map((i) => i.id)
      .sort();
    for (const n of s.run.notes) notes.push(`${s.name}: ${n}`);
    const facts = { status: s.run.status, failed: problems.failed[s.name]!.length };
    if (facts.status && effectiveStatus(facts) !== 'complete')
      notes.push(`${s.name}: ranks an incomplete run (${statusLabel(facts)}): its figures cover the items it holds that did not fail`);
  }
  if (conflicts.size) notes.push(`${conflicts.size} question(s) have different types in different runs; the first run's type is used`);
  if (systems.some((s) => ids.some((id) => !s.byId.has(id)))) {
    notes.push(
      `warning: the runs do not cover the same questions (${systems.map((s) => `${s.name}: ${s.run.items.length}`).join(', ')}; ` +
        `${ids.length} in all): each comparison uses only the questions both scored`,
    );
  }
  return problems;
}

/** One leaderboard row per system, ranked by overall accuracy; offline runs (no scores) by coverage; then by name. */
function* leaderboardRows(
  systems: SystemRun[],
  agg: Aggregation,
  columns: ReturnType<typeof headlineColumns>,
  u: QuestionUniverse,
  problems: FamilyProblems,
  boot: { resamples: number; seed: StatsOptions['seed'] },
  work: WorkMeter,
): Generator<void, SystemRow[]> {
  const rows: SystemRow[] = [];
  for (const s of systems) {
    const scored = [...s.byId.values()].filter(isScored).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const scores = scored.map((i) => i.score);
    const itemTypes = scored.map((i) => u.typeFor(i.id));
    const { by_type, cols } = yield* leaderboardCells(agg, columns, u.types, scores, itemTypes, boot);
    work.add(2 * boot.resamples * scores.length);
    rows.push({
      rank: 0,
      system: s.name,
      dir: s.run.label,
      reference: s.run.reference,
      source: s.run.source,
      // `incomplete` when items failed, whatever an older manifest said (src/run-files/status.ts).
      status: effectiveStatus({ status: s.run.status, failed: problems.failed[s.name]!.length }),
      items: s.run.items.length,
      scored: scored.length,
      failed: problems.failed[s.name]!.length,
      unscored: problems.unscored[s.name]!.length,
      missing: problems.missing[s.name]!.length,
      by_type,
      columns: cols,
    });
    yield;
  }
  const coverageOf = new Map(
    systems.map((s) => {
      const known = [...s.byId.values()].filter((i) => coverageKnown(i) && inHeadline(agg, u.typeFor(i.id)));
      return [s.name, known.length ? known.filter((i) => i.coverage).length / known.length : -1];
    }),
  );
  rows.sort(
    (a, b) =>
      (b.columns.overall?.accuracy ?? -1) - (a.columns.overall?.accuracy ?? -1) ||
      coverageOf.get(b.system)! - coverageOf.get(a.system)! ||
      a.system.localeCompare(b.system),
  );
  rows.forEach((r, i) => (r.rank = i + 1));
  return rows;
}

/** Each system against the baseline, or every pair (higher-ranked first); plus the pairs a run asks for. */
function choosePairs(ranked: SystemRun[], baseline: SystemRun | null | undefined, opts: StatsOptions): Array<[SystemRun, SystemRun]> {
  const pairs: Array<[SystemRun, SystemRun]> = [];
  if (baseline && !opts.allPairs) {
    for (const s of ranked) if (s !== baseline) pairs.push([s, baseline]);
  } else {
    for (let i = 0; i < ranked.length; i++) for (let j = i + 1; j < ranked.length; j++) pairs.push([ranked[i]!, ranked[j]!]);
  }
  // Pairs a run asks for besides (a store oracle against the raw-evidence oracle of its budget).
  for (const s of ranked) {
    const other = s.run.pairWith ? ranked.find((o) => o !== s && o.run.system === s.run.pairWith) : undefined;
    if (other && !pairs.some(([a, b]) => (a === s && b === other) || (a === other && b === s))) pairs.push([s, other]);
  }
  return pairs;
}

/** The paired accuracy tests, Holm-adjusted across the family. */
function* pairwiseRows(
  systems: SystemRun[],
  pairs: Array<[SystemRun, SystemRun]>,
  agg: Aggregation,
  overallCol: ReturnType<typeof headlineColumns>[number],
  u: QuestionUniverse,
  boot: { resamples: number; seed: StatsOptions['seed'] },
  notes: string[],
  work: WorkMeter,
): Generator<void, PairRow[]> {
  const pairwise: PairRow[] = [];
  const anyScored = systems.some((s) => [...s.byId.values()].some(isScored));
  if (!anyScored) notes.push('no run in this benchmark-setting has judged scores: accuracy tests skipped (coverage only)');
  for (const [a, b] of anyScored ? pairs : []) {
    const row = comparePair(agg, overallCol, a, b, u.typeFor, u.types, boot);
    if (row) pairwise.push(row);
    else notes.push(`${a.name} vs ${b.name}: no question scored in both; not compared`);
    work.add(boot.resamples * (row?.n ?? 0));
    yield;
  }
  const ph = holm(pairwise.map((p) => p.p_mcnemar));
  const phLog = holmLog10(pairwise.map((p) => p.log10_p_mcnemar));
  const pbh = holmWithBounds(
    pairwise.map((p) => p.p_bootstrap),
    pairwise.map((p) => p.p_bootstrap_bound),
  );
  pairwise.forEach((p, i) => {
    p.p_holm = ph[i]!;
    p.log10_p_holm = phLog[i]!;
    p.p_bootstrap_holm = pbh.adjusted[i]!;
    p.p_bootstrap_holm_bound = pbh.bound[i]!;
  });
  return pairwise;
}

/**
 * System names within a family: the system, with the run's `--name` label in brackets when it has
 * one; two runs still claiming the same name get their directory appended.
 */
function nameSystems(runs: LoadedRun[], notes: string[]): SystemRun[] {
  const shown = (r: LoadedRun) => (r.name ? `${r.system} [${r.name}]` : r.system);
  const count = new Map<string, number>();
  for (const r of runs) count.set(shown(r), (count.get(shown(r)) ?? 0) + 1);
  return runs.map((run) => {
    let name = shown(run);
    if (count.get(name)! > 1) {
      const claimed = name;
      name = `${claimed} [${run.label}]`;
      notes.push(`system '${claimed}' appears in ${count.get(claimed)} runs; named '${name}'`);
    }
    return { name, run, byId: new Map(run.items.map((i) => [i.id, i])) };
  });
}

function chooseBaseline(ranked: SystemRun[], opts: StatsOptions, notes: string[], family: string): SystemRun | null {
  const hasScores = (s: SystemRun) => [...s.byId.values()].some(isScored);
  if (opts.baseline !== undefined) {
    const exact = ranked.filter((s) => s.name === opts.baseline);
    const labelled = ranked.filter((s) => s.run.name === opts.baseline);
    const found = exact.length ? exact : labelled.length ? labelled : ranked.filter((s) => s.run.system === opts.baseline);
    if (found.length > 1) {
      throw new InputError(
        `--baseline '${opts.baseline}' is ambiguous in ${family}: ${found.length} runs are named so; ` +
          `give one of: ${found
            .map((s) => `'${s.name}'`)
            .sort()
            .join(', ')}`,
      );
    }
    if (found.length === 0) notes.push(`baseline '${opts.baseline}' is not in this benchmark-setting; all pairs compared`);
    return found[0] ?? null;
  }
  // Default: a scored RAW-RAG run. Among several, the paper's retriever before an offline stand-in
  // (the embedded one, which the paper did not measure); then a complete run (every question of its set
  // answered: src/core/comparability.ts) before a partial one; then the default configuration: the plain system
  // name (ablation variants append theirs), chosen on the run's own name before duplicates get
  // their directory appended; then the most questions scored; then the directory.
  const scoredCount = (s: SystemRun) => [...s.byId.values()].filter(isScored).length;
  const rawRag = ranked.filter((s) => s.run.reference);
  const candidates = rawRag
    .filter(hasScores)
    .sort(
      (a, b) =>
        Number(a.run.standIn === true) - Number(b.run.standIn === true) ||
        Number(b.run.complete === true) - Number(a.run.complete === true) ||
        a.run.system.length - b.run.system.length ||
        a.run.system.localeCompare(b.run.system) ||
        scoredCount(b) - scoredCount(a) ||
        a.run.label.localeCompare(b.run.label),
    );
  if (candidates.length === 0) {
    if (rawRag.length && ranked.length > 1)
      notes.push('the reference (paper-method) run(s) here have no judged scores: no baseline, all pairs compared');
    else if (!opts.allPairs && ranked.length > 1)
      notes.push("no run of the paper's method in this benchmark-setting (and no --baseline); all pairs compared");
    return null;
  }
  return candidates[0]!;
}

/**
 * Accuracy cells of one system. Types and macro columns share one bootstrap pass stratified by
 * type (a macro replicate is the weighted mean of the same per-type replicates); micro columns get
 * their own plain pass. Binary scores in a single stratum get the Wilson interval instead.
 */
/** A system's leaderboard cells; each `yield` ends a resampling pass (a signal is seen between them). */
function* leaderboardCells(
  agg: Aggregation,
  columns: ColumnSpec[],
  types: string[],
  scores: number[],
  itemTypes: string[],
  boot: { resamples: number; seed: number | string },
): Generator<void, { by_type: Record<string, Cell | null>; cols: Record<string, Cell | null> }> {
  const present = types.filter((t) => itemTypes.includes(t));
  const members = present.map((t) => itemTypes.map((x, i) => (x === t ? i : -1)).filter((i) => i >= 0));
  const slot = new Map(present.map((t, s) => [t, s]));
  let typeSums: Float64Array | null = null;
  const perType = () =>
    (typeSums ??= resampleSums(
      [Float64Array.from(scores)],
      toDesign({ strata: members, weights: members.map(() => 1) }),
      boot.resamples,
      boot.seed,
    ));
  const S = present.length;
  const fromTypes = (labels: string[], weights: number[]) => {
    const sums = perType();
    const reps = new Float64Array(boot.resamples);
    const idx = labels.map((t) => slot.get(t)!);
    const scale = labels.map((_, j) => weights[j]! / members[idx[j]!]!.length);
    for (let r = 0; r < boot.resamples; r++) {
      let v = 0;
      for (let j = 0; j < idx.length; j++) v += scale[j]! * sums[r * S + idx[j]!]!;
      reps[r] = v;
    }
    return percentileInterval(reps);
  };
  const cell = (strata: { strata: number[][]; weights: number[]; labels: string[] }, perTypePass: boolean): Cell => {
    const n = strata.strata.reduce((a, x) => a + x.length, 0);
    const accuracy = designStatistic(scores, toDesign(strata));
    if (strata.strata.length === 1 && strata.strata[0]!.every((i) => scores[i] === 0 || scores[i] === 1)) {
      const w = wilson(
        strata.strata[0]!.reduce((a, i) => a + scores[i]!, 0),
        n,
      );
      return { n, accuracy, ci_low: w.low, ci_high: w.high, ci_method: 'wilson' };
    }
    const ci = perTypePass
      ? fromTypes(strata.labels, strata.weights)
      : percentileInterval(replicates(scores, toDesign(strata), boot.resamples, boot.seed));
    return { n, accuracy, ci_low: ci.low, ci_high: ci.high, ci_method: 'bootstrap' };
  };
  const by_type: Record<string, Cell | null> = {};
  for (const t of types) {
    by_type[t] = slot.has(t) ? cell({ strata: [members[slot.get(t)!]!], weights: [1], labels: [t] }, true) : null;
    yield;
  }
  const cols: Record<string, Cell | null> = {};
  for (const c of columns) {
    const strata = columnStrata(agg, c, itemTypes);
    cols[c.name] = strata ? cell(strata, c.weighting === 'macro') : null;
    yield;
  }
  return { by_type, cols };
}

function comparePair(
  agg: Aggregation,
  overall: ColumnSpec,
  a: SystemRun,
  b: SystemRun,
  typeFor: (id: string) => string,
  types: readonly string[],
  boot: { resamples: number; seed: number | string },
): PairRow | null {
  const counted = (it: StatItem) => isScored(it) && inHeadline(agg, typeFor(it.id));
  const scoredA = new Set([...a.byId.values()].filter(counted).map((i) => i.id));
  const scoredB = new Set([...b.byId.values()].filter(counted).map((i) => i.id));
  const common = [...scoredA].filter((id) => scoredB.has(id)).sort();
  const union = new Set([...scoredA, ...scoredB]).size;
  if (common.length === 0) return null;
  const itemsA = common.map((id) => a.byId.get(id)!);
  const itemsB = common.map((id) => b.byId.get(id)!);
  const strata = columnStrata(agg, overall, common.map(typeFor), types)!;
  const res = pairedBootstrapDesign(
    itemsA.map((i) => i.score!),
    itemsB.map((i) => i.score!),
    toDesign(strata),
    boot,
  );
  let discB = 0;
  let discC = 0;
  for (let i = 0; i < common.length; i++) {
    const x = binarise(itemsA[i]!);
    const y = binarise(itemsB[i]!);
    if (x === 1 && y === 0) discB++;
    else if (x === 0 && y === 1) discC++;
  }
  return {
    system_a: a.name,
    system_b: b.name,
    n: common.length,
    excluded: union - common.length,
    delta: res.delta,
    ci_low: res.ciLow,
    ci_high: res.ciHigh,
    p_bootstrap: res.p,
    p_method: res.pMethod,
    p_bootstrap_bound: res.pBound,
    mcnemar_b: discB,
    mcnemar_c: discC,
    p_mcnemar: mcnemarExact(discB, discC),
    log10_p_mcnemar: mcnemarExactLog10(discB, discC),
    p_holm: NaN,
    log10_p_holm: NaN,
    p_bootstrap_holm: NaN,
    p_bootstrap_holm_bound: false,
  };
}

function omnibus(ranked: SystemRun[], counted: (id: string) => boolean): OmnibusRow | null {
  const withScores = ranked.filter((s) => [...s.byId.values()].some((i) => isScored(i) && counted(i.id)));
  if (withScores.length < 2) return null;
  const ids = [...withScores[0]!.byId.values()]
    .filter((i) => isScored(i) && counted(i.id))
    .map((i) => i.id)
    .filter((id) => withScores.every((s) => isScored(s.byId.get(id))))
    .sort();
  if (ids.length === 0) return null;
  const matrix = ids.map((id) => withScores.map((s) => binarise(s.byId.get(id)!)));
  const r = cochranQ(matrix);
  return { systems: withScores.map((s) => s.name), n: ids.length, q: r.q, df: r.df, p: r.p };
}
