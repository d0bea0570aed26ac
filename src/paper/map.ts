/**
 * `rawrag paper`: the reproduction map. For every item of the paper (src/paper/items.ts): the
 * command that regenerates it, the run directories under the given folders (default results/)
 * that hold it, and rawrag's figure beside the paper's — only from a complete run of the item's
 * setting (the comparability rule, src/core/comparability.ts). Partial runs and runs of other
 * settings are listed beside it with their label, never in its place. Differences are `rawrag
 * stats`'s paired bootstrap with the benchmark's aggregation (src/paper/stats-context.ts); every
 * variant of a swept ablation is shown, accuracy and coverage each under its own name.
 */
import { readRunManifest, readRunSummary } from '../run-files/record.js';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { RunConfig } from '../config/schema.js';
import {
  byPreference,
  completeness,
  judgeRun,
  rankRuns,
  runSetting,
  systemMatches,
  type Condition,
  type ManifestView,
  type RunSetting,
  type SettingSpec,
  type Verdict,
} from '../core/comparability.js';
import { scanRunDirs } from '../stats/load.js';
import { paperItems, type PaperItem } from './items.js';
import { formatFigure, type RunFacts, type Unit } from './figures.js';
import { StatsContext } from './stats-context.js';
import { paperSpec } from './rows.js';
import { fitSeconds } from '../stats/efficiency.js';

export type { FigureCheck, OtherRun, PaperCondition, PaperEntry, PaperMap, PaperStatus, VariantFigure } from './map-types.js';
import type { FigureCheck, Found, PaperEntry, PaperMap, PaperStatus, VariantFigure } from './map-types.js';

const readJson = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8').replace(/^\uFEFF/, ''));

/** A run directory written by another version or tool must not stop the map: what cannot be read matches nothing. */
function safely<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

/**
 * A run directory as the map reads it (null: not a run it can read). A run the record refuses
 * (corrupt, unknown version) matches nothing, and is named in `unreadable` with why, so that
 * `rawrag paper` says what it left out instead of dropping it silently.
 */
export function runFacts(dir: string, unreadable?: Array<{ dir: string; error: string }>): RunFacts | null {
  try {
    return readFacts(dir);
  } catch (e) {
    unreadable?.push({ dir, error: e instanceof Error ? e.message : String(e) });
    return null;
  }
}

function readFacts(dir: string): RunFacts | null {
  // Through the run record (src/run-files/record.ts): an older version upgraded, a corrupt one refused.
  const manifest = readRunManifest(dir).manifest as ManifestView & Record<string, unknown>;
  const setting = runSetting(manifest);
  if (!setting || !manifest.config) return null;
  return {
    dir,
    benchmark: setting.benchmark,
    system: String(manifest.system),
    manifest,
    setting,
    config: manifest.config as RunConfig,
    summary: readRunSummary(dir),
  };
}

/** Ablation folders (holding ablation.json) at or below the paths. */
function ablationDirs(paths: string[]): string[] {
  const out: string[] = [];
  const walk = (d: string, depth: number) => {
    if (existsSync(join(d, 'ablation.json'))) out.push(d);
    if (depth === 0) return;
    for (const name of safely(() => readdirSync(d).sort(), [] as string[])) {
      const child = join(d, name);
      if (!name.startsWith('.') && safely(() => statSync(child).isDirectory(), false)) walk(child, depth - 1);
    }
  };
  for (const p of paths) if (existsSync(p) && statSync(p).isDirectory()) walk(resolve(p), 3);
  return out;
}

/** A run the item could be about: its benchmark and system (and reader, where the item names one). */
function related(spec: SettingSpec, r: RunFacts): boolean {
  if (r.benchmark !== spec.benchmark) return false;
  return systemMatches(spec.system, r.setting) && (spec.reader === 'any' || spec.reader === null || r.setting.reader === spec.reader);
}

const rel = (d: string) => relative(process.cwd(), d) || '.';

/** The status a run's first failing condition gives the item. */
const STATUS_OF: Record<Condition, PaperStatus> = {
  data: 'other data',
  system: 'other system',
  setting: 'other setting',
  split: 'partial',
};

/** The item's status from the best run that does not reproduce it (none: runnable). */
function notReproduced(best: Verdict | undefined): Pick<Found, 'status' | 'condition' | 'why'> {
  if (!best) return { status: 'runnable', condition: null, why: null };
  const c = best.fails[0] ?? 'split';
  return { status: STATUS_OF[c], condition: c, why: best.label };
}

const fmt = (v: number, unit: Unit) => formatFigure(v, unit);

/**
 * rawrag's figure against the paper's: inside rawrag's 95 % interval where there is one, else
 * within the item's tolerance; a bound (`all within 1.3`) is met when rawrag's does not exceed it.
 */
export function checkFigure(item: PaperItem, rawrag: number | null, interval: [number, number] | null): FigureCheck | null {
  if (rawrag === null || !Number.isFinite(rawrag)) return null;
  if (item.range) {
    // A range: the difference is the distance outside it (0 inside).
    const [lo, hi] = item.range;
    const paper = Math.min(hi, Math.max(lo, rawrag));
    const within = lo <= rawrag && rawrag <= hi;
    return {
      paper,
      rawrag,
      difference: rawrag - paper,
      ci_low: null,
      ci_high: null,
      rule: `needs rawrag's figure inside the paper's range ${lo}-${hi}`,
      within,
    };
  }
  const paper = item.paperValue;
  if (paper === undefined) return null;
  const base = { paper, rawrag, difference: rawrag - paper, ci_low: interval?.[0] ?? null, ci_high: interval?.[1] ?? null };
  if (item.bound === 'at most')
    return { ...base, rule: `needs rawrag's figure at most the paper's bound ${paper}`, within: Math.abs(rawrag) <= paper };
  if (interval)
    return { ...base, rule: "needs the paper's figure inside rawrag's 95 % CI", within: interval[0] <= paper && paper <= interval[1] };
  const t = item.tolerance;
  if (t?.abs !== undefined || t?.rel !== undefined) {
    const tol = t.abs ?? Math.abs(paper) * t.rel!;
    const what = t.abs !== undefined ? `±${t.abs}` : `±${(100 * t.rel!).toFixed(0)} % of the paper's`;
    return { ...base, rule: `needs rawrag's figure within the item's tolerance ${what}`, within: Math.abs(rawrag - paper) <= tol + 1e-9 };
  }
  return { ...base, rule: 'no interval and no tolerance: not compared', within: false };
}

/** `figure differs: 56.84 vs 89.07 (rawrag's 95 % CI [55.10, 58.60]; difference -32.23)`. */
function differsText(c: FigureCheck, unit: Unit): string {
  const ci = c.ci_low === null || c.ci_high === null ? '' : `rawrag's 95 % CI [${fmt(c.ci_low, unit)}, ${fmt(c.ci_high, unit)}]; `;
  const d = unit === 'seconds' ? fitSeconds(Math.abs(c.difference)) : Math.abs(c.difference).toFixed(2);
  return `figure differs: ${fmt(c.rawrag, unit)} vs ${fmt(c.paper, unit)} (${ci}difference ${c.difference < 0 ? '-' : '+'}${d}; ${c.rule})`;
}

/** A reproducing run whose figure is outside the paper's uncertainty: its figure stays shown, the status says it differs. */
function applyFigure(found: Found, item: PaperItem, check: FigureCheck | null, unit: Unit): void {
  found.figure = check;
  if (found.status === 'reproduced' && !check && (item.paperValue !== undefined || item.range)) {
    // The paper has a figure and the run records none to set beside it: nothing was compared.
    found.status = 'figure differs';
    found.condition = 'figure';
    found.why = `figure differs: the run records no ${describeMeasure(item).measure} to compare with the paper's ${item.paper}`;
    return;
  }
  if (found.status === 'reproduced' && check && !check.within) {
    found.status = 'figure differs';
    found.condition = 'figure';
    found.why = differsText(check, unit);
  }
}

/**
 * An item whose data the paper does not name: the run of its setting is found and shown as usual
 * (figure, interval, pairing), but no run can be the paper's data, so it is never reproduced.
 */
function unnamedData(spec: SettingSpec): { spec: SettingSpec; unnamed: string | null } {
  const unnamed = spec.release?.unnamed ?? null;
  if (!unnamed) return { spec, unnamed };
  const { unnamed: _drop, ...release } = spec.release!;
  return { spec: { ...spec, release }, unnamed };
}

function markUnnamed(found: Found, unnamed: string | null): void {
  if (!unnamed || (found.status !== 'reproduced' && found.status !== 'figure differs')) return;
  found.status = 'other data';
  found.condition = 'data';
  found.why = `other data (${unnamed})${found.why ? `; ${found.why}` : ''}`;
}

function runEntry(item: PaperItem, runs: RunFacts[], ctx: StatsContext): Found {
  const { figure, againstFigure, compare } = item.run!;
  const { spec, unnamed } = unnamedData(paperSpec(item.run!.spec));
  const against = item.run!.against ? unnamedData(paperSpec(item.run!.against)).spec : undefined;
  const candidates = runs.filter((r) => related(spec, r)).map((r) => ({ setting: r.setting, dir: r.dir, cfg: r.config, facts: r }));
  const { reproducing, others } = rankRuns(spec, candidates);
  const read = (r: RunFacts) => safely(() => figure.read(r, ctx), null);
  const words = (r: RunFacts) => safely(() => figure.text?.(r, ctx) ?? null, null);
  const interval = (r: RunFacts) => safely(() => figure.interval?.(r, ctx) ?? null, null);
  const found: Found = {
    ...(reproducing ? { status: 'reproduced' as const, condition: null, why: null } : notReproduced(others[0]?.verdict)),
    rawrag: reproducing ? read(reproducing.facts) : null,
    text: reproducing ? words(reproducing.facts) : null,
    run: reproducing ? rel(reproducing.dir) : null,
    delta: null,
    coverage: reproducing ? safely(() => coverageOf(reproducing.facts), null) : null,
    coverage_measure: reproducing ? 'coverage all %' : null,
    variants: [],
    others: others.map((o) => {
      const v = read(o.facts);
      return {
        run: rel(o.dir),
        label: o.verdict.label!,
        rawrag: v,
        text: words(o.facts),
        figure: compare === 'delta' ? null : checkFigure(item, v, interval(o.facts)),
      };
    }),
    runs: candidates.map((c) => rel(c.dir)),
  };
  if (reproducing && against) pairAgainst(found, reproducing.facts, against, runs, ctx, againstFigure === true ? read : null);
  if (reproducing) {
    const check =
      compare === 'delta'
        ? found.delta
          ? checkFigure(item, found.delta.delta, [found.delta.ci_low, found.delta.ci_high])
          : null
        : checkFigure(item, found.rawrag, interval(reproducing.facts));
    applyFigure(found, item, check, compare === 'delta' ? 'points' : figure.unit);
  }
  markUnnamed(found, unnamed);
  return found;
}

/** The paired difference of the reproducing run against a complete run of the `against` setting (and that run's figure, when asked). */
function pairAgainst(
  found: Found,
  run: RunFacts,
  against: SettingSpec,
  runs: RunFacts[],
  ctx: StatsContext,
  read: ((r: RunFacts) => number | null) | null,
): void {
  const base = rankRuns(
    against,
    runs.filter((r) => r !== run && related(against, r)).map((r) => ({ setting: r.setting, dir: r.dir, cfg: r.config, facts: r })),
  ).reproducing;
  if (!base) {
    found.text = join2(found.text, 'no complete run of the setting to pair it against');
    return;
  }
  const pair = ctx.pair(run, base.facts);
  if (pair)
    found.delta = {
      against: rel(base.dir),
      n: pair.n,
      delta: 100 * pair.delta,
      ci_low: 100 * pair.ci_low,
      ci_high: 100 * pair.ci_high,
    };
  if (read) {
    const v = read(base.facts);
    found.text = join2(found.text, `${base.facts.system}: ${v === null ? '—' : v.toFixed(2)}`);
  }
}

const join2 = (a: string | null, b: string) => (a ? `${a}; ${b}` : b);

function coverageOf(r: RunFacts): number | null {
  const v = (r.summary?.overall as { coverage?: { all?: unknown } } | undefined)?.coverage?.all;
  return typeof v === 'number' ? 100 * v : null;
}

interface AblationRow {
  variant: string;
  is_default?: boolean;
  dir?: string;
  delta: number | null;
  ci_low: number | null;
  ci_high: number | null;
  paired?: number;
  accuracy?: number | null;
  coverage?: number | null;
  unchanged?: number | null;
  compared?: number | null;
  delta_unchanged?: number | null;
  delta_micro?: number | null;
}

interface AblationFile {
  benchmark?: string;
  metric?: 'accuracy' | 'coverage';
  rejudged_unchanged?: boolean;
  table?: AblationRow[];
}

interface AblationCandidate {
  dir: string;
  setting: RunSetting;
  verdict: Verdict;
  variants: VariantFigure[];
  /** The reference variant's coverage, percent. */
  refCoverage: number | null;
}

const pct = (x: number | null | undefined) => (typeof x === 'number' ? 100 * x : null);

/** One ablation folder as a candidate for the item: the variants it covers, and how its reference stands against the item's setting. */
function ablationCandidate(
  folder: string,
  spec: SettingSpec,
  wanted: (name: string) => boolean,
  rejudge: boolean,
): AblationCandidate | null {
  const a = safely(() => readJson(join(folder, 'ablation.json')) as AblationFile, {} as AblationFile);
  if (a.benchmark !== spec.benchmark) return null;
  const rows = a.table ?? [];
  const matched = rows.filter((r) => !r.is_default && typeof r.variant === 'string' && wanted(r.variant));
  const ref = rows.find((r) => r.is_default);
  const refFacts = ref ? runFacts(join(folder, ref.dir ?? ref.variant)) : null;
  if (matched.length === 0 || !refFacts) return null;
  const measure = a.metric === 'coverage' ? 'coverage' : 'accuracy';
  const variants: VariantFigure[] = matched.map((r) => ({
    variant: r.variant,
    measure,
    delta: pct(r.delta),
    ci_low: pct(r.ci_low),
    ci_high: pct(r.ci_high),
    n: r.paired ?? 0,
    accuracy: pct(r.accuracy),
    coverage: pct(r.coverage),
    unchanged:
      typeof r.unchanged === 'number' && typeof r.compared === 'number'
        ? {
            questions: r.unchanged,
            of: r.compared,
            delta: 100 * (r.delta_unchanged ?? 0),
            delta_micro: 100 * (r.delta_micro ?? 0),
            rejudged: a.rejudged_unchanged === true,
          }
        : null,
    run: rel(join(folder, r.dir ?? r.variant)),
  }));
  let verdict: Verdict = judgeRun(spec, refFacts.setting, refFacts.config);
  // Questions whose evidence did not change reused their answers: their share of the delta is 0 by construction.
  if (rejudge && a.rejudged_unchanged !== true) {
    const why = 'answers of unchanged evidence reused (run with --rejudge-unchanged)';
    const order: Condition[] = ['data', 'system', 'setting', 'split'];
    verdict = {
      ...verdict,
      sameSetting: false,
      fails: order.filter((c) => c === 'setting' || verdict.fails.includes(c)),
      differences: [...verdict.differences, why],
      label: verdict.label ? `${verdict.label}; other setting (${why})` : `other setting (${why})`,
    };
  }
  // Every variant the item shows must be complete as well.
  const partial = matched
    .map((r) => runFacts(join(folder, r.dir ?? r.variant)))
    .map((f) => (f ? completeness(f.setting, refFacts.setting.questions.subset).label : 'missing'))
    .find((l) => l !== null);
  if (verdict.sameSetting && verdict.complete && partial)
    verdict = { ...verdict, complete: false, fails: ['split'], label: `a variant is ${partial}` };
  return { dir: folder, setting: refFacts.setting, verdict, variants, refCoverage: pct(ref?.coverage) };
}

function ablationEntry(item: PaperItem, folders: string[]): Found {
  const { variants: wanted, absolute, rejudgeUnchanged } = item.ablation!;
  const { spec, unnamed } = unnamedData(paperSpec(item.ablation!.spec));
  const candidates = folders
    .map((f) => ablationCandidate(f, spec, wanted, rejudgeUnchanged === true))
    .filter((c): c is AblationCandidate => c !== null);
  const same = candidates.filter((c) => c.verdict.sameSetting).sort(byPreference);
  const best = same.find((c) => c.verdict.complete) ?? null;
  const shown = best ?? same[0] ?? candidates.sort(byPreference)[0] ?? null;
  const others = [...same.filter((c) => c !== best), ...candidates.filter((c) => !c.verdict.sameSetting).sort(byPreference)];
  const found: Found = {
    ...(best ? { status: 'reproduced' as const, condition: null, why: null } : notReproduced(others[0]?.verdict)),
    rawrag: null,
    text: null,
    run: best ? rel(best.dir) : null,
    delta: null,
    coverage: null,
    coverage_measure: null,
    variants: shown?.variants ?? [],
    others: others.map((o) => ({ run: rel(o.dir), label: o.verdict.label!, rawrag: null, text: null, figure: null })),
    runs: candidates.map((c) => rel(c.dir)),
  };
  coverageOfVariant(found, shown);
  if (best) {
    accuracyOfVariants(found, absolute === true);
    const one = found.variants.length === 1 ? found.variants[0]! : null;
    // A variant's delta has its paired interval; a variant's own accuracy or a sweep's largest |Δ| has none (tolerance, bound).
    const interval: [number, number] | null =
      !absolute && one && one.ci_low !== null && one.ci_high !== null ? [one.ci_low, one.ci_high] : null;
    applyFigure(found, item, checkFigure(item, found.rawrag, interval), absolute ? 'percent' : 'points');
  }
  markUnnamed(found, unnamed);
  return found;
}

/** The coverage column of a one-variant item: its paired Δ coverage (an ablation without a reader), else the difference of levels. */
function coverageOfVariant(found: Found, shown: AblationCandidate | null): void {
  const one = found.variants.length === 1 ? found.variants[0]! : null;
  if (one && one.measure === 'coverage') {
    found.coverage = one.delta;
    found.coverage_measure = 'Δ coverage (points; no reader, so no accuracy)';
  } else if (one && one.coverage !== null && shown && shown.refCoverage !== null) {
    found.coverage = one.coverage - shown.refCoverage;
    found.coverage_measure = 'Δ coverage (points, not paired)';
  }
}

/** rawrag's figure of a reproduced ablation item: a variant's accuracy, its Δ with CI, or the largest |Δ| of a sweep; the unchanged-evidence share. */
function accuracyOfVariants(found: Found, absolute: boolean): void {
  const one = found.variants.length === 1 ? found.variants[0]! : null;
  if (absolute) {
    found.rawrag = one?.measure === 'accuracy' ? one.accuracy : null;
    found.measure = 'accuracy % of the variant';
  } else if (one) {
    if (one.measure === 'accuracy' && one.delta !== null) {
      found.rawrag = one.delta;
      found.delta = {
        against: 'the reference variant',
        n: one.n,
        delta: one.delta,
        ci_low: one.ci_low ?? NaN,
        ci_high: one.ci_high ?? NaN,
      };
    }
    found.measure = 'Δ accuracy (points)';
  } else {
    const deltas = found.variants.filter((v) => v.measure === 'accuracy' && v.delta !== null).map((v) => Math.abs(v.delta!));
    found.rawrag = deltas.length ? Math.max(...deltas) : null;
    found.measure = 'largest |Δ accuracy| over the variants (points)';
  }
  if (one?.unchanged) {
    const u = one.unchanged;
    const n = (x: number) => x.toLocaleString('en-US');
    found.text = u.rejudged
      ? `Δ from the ${n(u.questions)} of ${n(u.of)} questions whose evidence did not change (re-read and re-judged): ${u.delta.toFixed(3)} of ${u.delta_micro.toFixed(3)} (micro)`
      : `${n(u.questions)} of ${n(u.of)} questions kept their evidence; their answers were reused, so their share of the delta is not measured (--rejudge-unchanged measures it)`;
  }
}

function describeMeasure(item: PaperItem): { measure: string; unit: Unit } {
  if (item.run) return { measure: item.run.figure.measure, unit: item.run.figure.unit };
  if (item.ablation?.absolute) return { measure: 'accuracy % of the variant', unit: 'percent' };
  return { measure: 'Δ accuracy (points)', unit: 'points' };
}

/** The map over the folders; `items` defaults to the paper's (src/paper/items.ts). */
export function buildPaperMap(paths: string[], opts: { seed?: number; items?: PaperItem[] } = {}): PaperMap {
  const existing = paths.filter((p) => existsSync(p));
  const unreadable: Array<{ dir: string; error: string }> = [];
  const runs = (existing.length ? scanRunDirs(existing).dirs : [])
    .map((d) => runFacts(d, unreadable))
    .filter((r): r is RunFacts => r !== null);
  const folders = ablationDirs(existing);
  const ctx = new StatsContext(opts.seed ?? 0);
  const entries = (opts.items ?? paperItems()).map((item): PaperEntry => {
    const none: Found = {
      status: item.command === null ? 'not in rawrag' : 'runnable',
      rawrag: null,
      text: null,
      run: null,
      delta: null,
      coverage: null,
      coverage_measure: null,
      variants: [],
      others: [],
      runs: [],
    };
    const found = item.ablation ? ablationEntry(item, folders) : item.run ? runEntry(item, runs, ctx) : none;
    const { measure, unit } = describeMeasure(item);
    return {
      id: item.id,
      section: item.section,
      title: item.title,
      paper: item.paper,
      paper_value: item.paperValue ?? null,
      measure: found.measure ?? measure,
      unit,
      command: item.command,
      note: item.note ?? null,
      status: found.status,
      condition: found.condition ?? null,
      why: found.why ?? (found.status === 'not in rawrag' ? (item.note ?? null) : null),
      figure: found.figure ?? null,
      rawrag: found.rawrag,
      text: found.text,
      run: found.run,
      delta: found.delta,
      coverage: found.coverage,
      coverage_measure: found.coverage_measure,
      variants: found.variants,
      others: found.others,
      runs: found.runs,
    };
  });
  return { searched: existing.map(rel), entries, unreadable: unreadable.map((u) => ({ dir: rel(u.dir), error: u.error })) };
}
