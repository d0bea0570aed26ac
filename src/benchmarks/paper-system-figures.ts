/**
 * The paper's figures of other systems as their descriptors show them (src/systems/<name>/
 * `paperRows`), built from configs/paper/figures.json so that no figure is written twice: an
 * add-on's paired difference, a system's place on PersonaMem-v2, Mem0's write audit, a system's
 * evidence coverage, the add-only control.
 */
import { PAPER_FIGURES_FILE, figureEntry, figureField, paperFigures, points } from './paper-figures.js';
import { InputError } from '../util/errors.js';

/** The paper's places in words (PersonaMem-v2's `third`). */
export const ORDINAL: readonly string[] = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth'];

/** A percent share of figures.json's fractions (0.0439 -> 4.39), at the two decimals the paper prints. */
export const percentOf = (fraction: number): number => Number((100 * fraction).toFixed(2));

/** An add-on of figures.json `addOns.systems` (keyed by the rawrag system that implements it): the paired difference, and RAW-RAG's level beside its own where the paper gives one. */
export function addOnFigures(system: string) {
  const f = paperFigures().addOns;
  const a = figureEntry(f.systems, 'addOns.systems', system);
  const base = paperFigures().rows.find((r) => r.benchmark === f.benchmark && r.reader === f.reader && r.retriever === 'openai');
  const levels =
    a.accuracy === undefined
      ? ''
      : ` (${points(figureField(base, `rows (${f.benchmark}, ${f.reader}, openai)`).accuracy)} -> ${points(a.accuracy)}${(a.breakdown ?? [])
          .map((b) => `; ${b.label} ${points(b.rawRag)} -> ${points(b.value)}`)
          .join('')})`;
  return {
    benchmark: f.benchmark,
    reader: f.reader,
    paper: `${points(a.delta)}${levels}`,
    paperValue: a.delta,
    ...(a.breakdown
      ? {
          breakdown: a.breakdown.map((b) => ({
            column: b.column,
            label: `${b.label} (${b.column} competency)`,
            paperValue: b.value,
            referenceValue: b.rawRag,
          })),
        }
      : {}),
  };
}

/**
 * A system's PersonaMem-v2 figure (figures.json `personamem.others`, by the paper's name of the
 * system) beside RAW-RAG's and the others': `53.25, first (RAW-RAG 49.62, MemOS 50.72)`; `place`
 * adds its place among them.
 */
export function personaMemStanding(system: string, place: boolean): { paper: string; paperValue: number } {
  const p = paperFigures().personamem;
  const self = p.others.find((o) => o.system === system);
  if (!self) throw new InputError(`no figure of ${system}`, { file: PAPER_FIGURES_FILE, place: 'personamem.others' });
  const all = [{ system: 'RAW-RAG', accuracy: p.accuracy }, ...p.others];
  const rest = all.filter((o) => o !== self).map((o) => `${o.system} ${points(o.accuracy)}`);
  const at = place ? `, ${ORDINAL[all.filter((o) => o.accuracy > self.accuracy).length]}` : '';
  return { paper: `${points(self.accuracy)}${at} (${rest.join(', ')})`, paperValue: self.accuracy };
}

/** A system's evidence coverage on a benchmark (figures.json `coverage`) beside RAW-RAG's: `coverage 40.03 % (RAW-RAG 45.29)`. */
export function coverageStanding(benchmark: string, system: string): { paper: string; paperValue: number } {
  const c = figureEntry(paperFigures().coverage, 'coverage', benchmark);
  const self = c.others.find((o) => o.system === system);
  if (!self) throw new InputError(`no coverage of ${system}`, { file: PAPER_FIGURES_FILE, place: `coverage.${benchmark}.others` });
  return { paper: `coverage ${points(self.coverage)} % (RAW-RAG ${points(c.coverage)})`, paperValue: self.coverage };
}

/** The add-only control (figures.json `addOnly`): `Mem0: 67.36 -> 69.42 (+2.06), no category falling`. */
export function addOnlyFigures() {
  const a = paperFigures().addOnly;
  return {
    benchmark: a.benchmark,
    reader: a.reader,
    paper: `${a.system}: ${points(a.withUpdates)} -> ${points(a.addOnly)} (${points(a.delta, true)}), no category falling`,
    paperValue: a.delta,
  };
}
