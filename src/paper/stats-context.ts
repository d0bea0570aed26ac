/**
 * `rawrag stats`'s own computation for the map (src/stats/compute-tables.ts `analyse`, each
 * benchmark's aggregation and cross-item rules): a run's leaderboard row (per-type and per-column
 * accuracies), its judge-variance row, and the paired difference of two runs — so `rawrag paper`
 * and `rawrag stats` print the same delta for the same runs. Results are kept per run and pair.
 */
import { getBenchmark } from '../benchmarks/registry.js';
import { DEFAULT_RESAMPLES } from '../stats/bootstrap.js';
import { analyse, type AgreementRow, type PairRow, type SystemRow } from '../stats/compute-tables.js';
import { efficiencyRow, type EfficiencyRow } from '../stats/efficiency.js';
import { loadRun, type LoadedRun } from '../stats/load.js';
import type { FigureContext, RunFacts } from './figures.js';

/** Resamples of the map's intervals: `rawrag stats`'s own default, so both print the same CIs for the same runs and seed. */
const PAIR_RESAMPLES = DEFAULT_RESAMPLES;
const ROW_RESAMPLES = DEFAULT_RESAMPLES;

export class StatsContext implements FigureContext {
  private readonly loaded = new Map<string, LoadedRun | null>();
  private readonly rows = new Map<string, { row: SystemRow | null; agreement: AgreementRow | null }>();
  private readonly pairs = new Map<string, PairRow | null>();

  constructor(private readonly seed: number) {}

  private load(dir: string): LoadedRun | null {
    if (!this.loaded.has(dir)) {
      let run: LoadedRun | null = null;
      try {
        run = loadRun(dir);
      } catch {
        run = null; // a folder another tool wrote: its figure stays empty
      }
      this.loaded.set(dir, run);
    }
    return this.loaded.get(dir)!;
  }

  private options(resamples: number, baseline?: string) {
    return {
      resamples,
      seed: this.seed,
      allPairs: baseline === undefined,
      ...(baseline === undefined ? {} : { baseline }),
      typeOrder: (b: string) => safeBenchmark(b)?.typeOrder ?? [],
      aggregation: (b: string) => safeBenchmark(b)?.aggregation,
    };
  }

  private single(r: RunFacts): { row: SystemRow | null; agreement: AgreementRow | null } {
    let v = this.rows.get(r.dir);
    if (!v) {
      const run = this.load(r.dir);
      const family = run ? analyse([run], this.options(ROW_RESAMPLES)).families[0] : undefined;
      v = { row: family?.leaderboard[0] ?? null, agreement: family?.agreement[0] ?? null };
      this.rows.set(r.dir, v);
    }
    return v;
  }

  leaderboard(r: RunFacts): SystemRow | null {
    return this.single(r).row;
  }

  agreement(r: RunFacts): AgreementRow | null {
    return this.single(r).agreement;
  }

  efficiency(r: RunFacts): EfficiencyRow | null {
    return efficiencyRow(r.dir);
  }

  /** `a` minus `b` on the questions both scored, as `rawrag stats` pairs them (null: nothing in common, or judged by different models). */
  pair(a: RunFacts, b: RunFacts): PairRow | null {
    const key = `${a.dir}\u0000${b.dir}`;
    if (!this.pairs.has(key)) {
      const ra = this.load(a.dir);
      const rb = this.load(b.dir);
      let row: PairRow | null = null;
      if (ra && rb) {
        // One family, named apart: the two runs may be of different systems or settings of the same data.
        const as = (run: LoadedRun, system: string): LoadedRun => ({
          ...run,
          system,
          name: null,
          setting: 'paired',
          configHash: null,
          pairWith: null,
        });
        const report = analyse([as(ra, 'A'), as(rb, 'B')], this.options(PAIR_RESAMPLES, 'B'));
        row = report.families.flatMap((f) => f.pairwise).find((p) => p.system_a === 'A' && p.system_b === 'B') ?? null;
      }
      this.pairs.set(key, row);
    }
    return this.pairs.get(key)!;
  }
}

function safeBenchmark(name: string) {
  try {
    return getBenchmark(name);
  } catch {
    return undefined;
  }
}
