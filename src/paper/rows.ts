/**
 * The settings of the paper's RAW-RAG rows (src/benchmarks/paper-rows.ts) as the comparability rule
 * reads them (src/core/comparability.ts), and whether one run may stand beside its row: used by the
 * map (src/paper/items.ts), the run's printed summary and the report's leaderboard. Kept light (no
 * statistics), because `rawrag run` loads it.
 */
import { judgeRun, runSetting, type ManifestView, type SettingSpec } from '../core/comparability.js';
import { judgeModelFor } from '../core/protocol.js';
import { PAPER_RELEASES, paperRow, type PaperRow } from '../benchmarks/paper-rows.js';
import { getBenchmark } from '../benchmarks/registry.js';

/** The benchmark's official judge protocol: its judge model, 3 runs, its own prompt (`any` where it has no judge). */
export function officialJudge(benchmark: string): SettingSpec['judge'] {
  const b = getBenchmark(benchmark);
  return b.scoring?.judge ? { model: judgeModelFor(null, b.defaultJudgeModel), runs: 3 } : 'any';
}

/**
 * An item's setting with what the paper's data and protocol fix filled in: the benchmark's release
 * (sha256, question count; src/benchmarks/paper-rows.ts) and its protocol options at their defaults
 * (the options with a default that do not pick the data: LongMemEval's reader template, PersonaMem's
 * multiple-choice protocol, BEAM's rubric).
 */
export function paperSpec(spec: SettingSpec): SettingSpec {
  const release = spec.release ?? PAPER_RELEASES[spec.benchmark];
  let protocol = spec.protocol;
  if (!protocol) {
    const b = safeBenchmark(spec.benchmark);
    protocol = Object.fromEntries(
      (b?.options ?? [])
        .filter((o) => !o.definesSetting && o.defaultValue !== undefined)
        .map((o) => [o.key, { flag: `-B ${o.key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`, value: o.defaultValue! }]),
    );
  }
  return { ...spec, ...(release ? { release } : {}), protocol };
}

function safeBenchmark(name: string) {
  try {
    return getBenchmark(name);
  } catch {
    return undefined;
  }
}

/** The setting of a RAW-RAG figure: the paper's method, display and judge; the rest as given. */
export function rawRagSpec(
  benchmark: string,
  reader: string | null | 'any',
  retriever: string,
  over: Partial<SettingSpec> = {},
): SettingSpec {
  return { benchmark, system: { reference: true }, reader, retriever, judge: officialJudge(benchmark), ...over };
}

/** The setting of a paper row. */
export const rowSpec = (r: Pick<PaperRow, 'benchmark' | 'reader' | 'retriever'>): SettingSpec =>
  rawRagSpec(r.benchmark, r.reader, r.retriever);

export interface RowComparison {
  row: PaperRow;
  /** null: a complete run of the row's setting; else why not (`partial (10 of 1,540)`, `other setting (gold=audited)`). */
  notComparable: string | null;
}

/** The paper row a run's manifest is about (by benchmark, reader and the retriever actually used), and how it compares. */
export function compareWithPaperRow(manifest: ManifestView): RowComparison | null {
  const setting = runSetting(manifest);
  if (!setting || !setting.reference) return null;
  const row = paperRow(setting.benchmark, setting.reader, setting.retriever);
  if (!row) return null;
  const verdict = judgeRun(paperSpec(rowSpec(row)), setting, (manifest.config ?? {}) as Record<string, unknown>);
  return { row, notComparable: verdict.label };
}
