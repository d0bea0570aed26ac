/**
 * The reproduction map's items of other systems (src/paper/items.ts): each system's own paper rows
 * (its descriptor's `paperRows`, handled by kind, never by name), the write-audit breakdowns, and
 * the paper's figures of systems rawrag imports rather than runs.
 */
import type { SettingSpec } from '../core/comparability.js';
import type { SystemPaperRow } from '../core/system.js';
import { PAPER_ROWS } from '../benchmarks/paper-rows.js';
import { addOnCost, figure, paperFigures } from '../benchmarks/paper-figures.js';
import { listSystems } from '../systems/registry.js';
import { PAPER_AUDITS } from '../memory-audit/write-audit.js';
import { officialJudge, rowSpec } from './rows.js';
import { auditFigure, auditMedianFigure, auditShareFigure, columnFigure, coverageFigure, headline, ingestCostFigure } from './figures.js';
import { mainCommand, mainStep, rawRag } from './item-common.js';
import type { PaperItem, PaperStep } from './item-types.js';

/** The paper's write-decision breakdown of a write-audit row (src/memory-audit/write-audit.ts PAPER_AUDITS): each operation's share with its count, and the per-conversation median. */
function auditBreakdown(sys: string, r: SystemPaperRow, command: string, steps: PaperStep[]): PaperItem[] {
  const paper = PAPER_AUDITS[r.benchmark];
  if (!paper) return [];
  const spec: SettingSpec = {
    benchmark: r.benchmark,
    system: { name: sys },
    reader: 'any',
    retriever: 'any',
    display: 'any',
    judge: 'any',
  };
  const n = (x: number) => x.toLocaleString('en-US');
  const shares = (['NONE', 'ADD', 'UPDATE', 'DELETE'] as const).flatMap((op): PaperItem[] => {
    const share = paper.operations[op];
    if (share === undefined) return [];
    const count = paper.counts?.[op];
    const of = count === undefined ? `about ${n(Math.round(share * paper.decisions))}` : n(count);
    return [
      {
        id: `audit/${sys}/${r.benchmark}/${op}`,
        section: 'motivation audit',
        title: `${r.benchmark}: ${sys}'s proposed ${op} share of its write decisions (with its count)`,
        paper: `${(100 * share).toFixed(2)} % (${of} of ${n(paper.decisions)})`,
        paperValue: 100 * share,
        tolerance: { abs: 0.5 },
        command,
        steps,
        run: { spec, figure: auditShareFigure(op) },
      },
    ];
  });
  const median: PaperItem = {
    id: `audit/${sys}/${r.benchmark}/per-conversation-median`,
    section: 'motivation audit',
    title: `${r.benchmark}: ${sys}'s proposed UPDATE+DELETE rate, median over conversations (bootstrap CI)`,
    paper: `${(100 * paper.per_episode_proposed_median).toFixed(2)} % (effective mean ${(100 * paper.effective_mutation_rate).toFixed(2)} %)`,
    paperValue: 100 * paper.per_episode_proposed_median,
    command,
    steps,
    run: { spec, figure: auditMedianFigure },
  };
  return [...shares, median];
}

/**
 * Figures of systems rawrag has no plug-in row for (the paper's strongest other system of a row,
 * e.g. Memora): filled by an imported run of that system (`rawrag import ... --system NAME`).
 */
export function importedItems(): PaperItem[] {
  const own = new Set(
    listSystems().flatMap((sys) =>
      (sys.paperRows ?? []).filter((r) => r.kind === 'leaderboard').map((r) => `${r.benchmark}|${r.reader}|${r.paperValue}`),
    ),
  );
  return PAPER_ROWS.filter((r) => r.strongestOther && !own.has(`${r.benchmark}|${r.reader}|${r.strongestOther.accuracy}`)).map((r) => {
    const o = r.strongestOther!;
    return {
      id: `imported/${o.system}/${r.benchmark}/${r.reader}/${r.retriever}`,
      section: 'main results' as const,
      title: `${o.system} on ${r.benchmark}, reader ${r.reader} (${r.headline}), from an imported run of its answers`,
      paper: `${o.accuracy.toFixed(2)} (RAW-RAG ${r.accuracy.toFixed(2)}, ${r.retriever} retriever)`,
      paperValue: o.accuracy,
      command: `rawrag import ANSWERS --format FORMAT --benchmark ${r.benchmark} --system ${o.system}`,
      note: `rawrag does not run ${o.system}: import its published answers (with their judge votes) under --system ${o.system}`,
      run: {
        spec: {
          benchmark: r.benchmark,
          system: { imported: o.system },
          reader: 'any',
          retriever: 'any',
          display: 'any',
          method: 'any',
          judge: 'any',
        },
        figure: headline('the imported answers, as scored by their votes'),
      },
    };
  });
}

/** How a system's paper row is run, and what RAW-RAG run it is paired against. */
interface RowContext {
  sys: string;
  r: SystemPaperRow;
  /** RAW-RAG's setting on the row's benchmark and reader (openai retriever). */
  against: SettingSpec;
  /** The step of RAW-RAG's own paper row, when the paper has one. */
  rawSteps: PaperStep[];
}

const rowCommand = (sys: string, r: SystemPaperRow, retriever: boolean) =>
  `rawrag run ${r.benchmark} --system ${sys}${retriever ? ' --retriever openai' : ''} --reader ${r.reader}${r.flags ? ` ${r.flags}` : ''}`;

const rowStep = (sys: string, r: SystemPaperRow, retriever: boolean): PaperStep => ({
  command: 'run',
  args: [r.benchmark, '--system', sys, ...(retriever ? ['--retriever', 'openai'] : []), '--reader', r.reader],
  out: `paper/${sys}-${r.benchmark}-${r.reader}`,
  ...(r.needs ? { needs: r.needs } : {}),
});

/** Any reader, retriever, display and judge of the system's own run. */
const anySetting = (sys: string, r: SystemPaperRow): SettingSpec => ({
  benchmark: r.benchmark,
  system: { name: sys },
  reader: 'any',
  retriever: 'any',
  display: 'any',
  judge: 'any',
});

function leaderboardItems({ sys, r, against, rawSteps }: RowContext): PaperItem[] {
  return [
    {
      id: `leaderboard/${sys}/${r.benchmark}/${r.reader}`,
      section: 'main results',
      title: `${sys} on ${r.benchmark}, reader ${r.reader}: ${r.title} (paired against RAW-RAG)`,
      paper: r.paper,
      paperValue: r.paperValue,
      command: rowCommand(sys, r, false),
      steps: [rowStep(sys, r, false), ...rawSteps],
      run: {
        spec: {
          benchmark: r.benchmark,
          system: { name: sys },
          reader: r.reader,
          retriever: 'any',
          display: 'any',
          judge: officialJudge(r.benchmark),
        },
        figure: headline('the system’s own run'),
        against,
      },
    },
  ];
}

function addOnItems({ sys, r, against, rawSteps }: RowContext): PaperItem[] {
  const cost = paperFigures().addOns.cost;
  const base = rawRagRow(r);
  const spec = rawRag(r.benchmark, r.reader, 'openai', { system: { name: sys } });
  const cmd = `${rowCommand(sys, r, true)}   and RAW-RAG itself: ${base ? mainCommand(base) : 'rawrag run ...'}`;
  const steps = [rowStep(sys, r, true), ...rawSteps];
  return [
    {
      id: `add-on/${sys}`,
      section: 'memory-management add-ons',
      title: `${r.benchmark}, ${r.reader}: ${r.title} (paired against RAW-RAG)`,
      paper: r.paper,
      paperValue: r.paperValue,
      command: cmd,
      steps,
      run: { spec, figure: headline('the add-on’s run'), against, compare: 'delta' },
    },
    {
      id: `add-on-cost/${sys}`,
      section: 'memory-management add-ons',
      title: `${r.benchmark}: what ${sys}'s ingest cost (LLM tokens of every call; ingest wall time)`,
      paper: `the three add-ons: ${addOnCost()} (RAW-RAG: ${figure(cost.rawRag.llmTokens)} tokens, ${figure(cost.rawRag.minutes)} minutes)`,
      command: `${rowCommand(sys, r, true)}   then: rawrag stats DIR (Efficiency table)`,
      steps: [rowStep(sys, r, true)],
      run: { spec, figure: ingestCostFigure },
    },
    ...(r.breakdown ?? []).map((b): PaperItem => ({
      id: `add-on/${sys}/${b.column}`,
      section: 'memory-management add-ons',
      title: `${r.benchmark}, ${r.reader}: ${sys}, ${b.label}`,
      paper: `${b.referenceValue === undefined ? '' : `RAW-RAG ${b.referenceValue.toFixed(2)} -> `}${b.paperValue.toFixed(2)}`,
      paperValue: b.paperValue,
      command: cmd,
      steps,
      run: { spec, figure: columnFigure(b.column, b.label), against, againstFigure: true },
    })),
  ];
}

function writeAuditItems({ sys, r }: RowContext): PaperItem[] {
  const command = `${rowCommand(sys, r, false)}   then: rawrag memory audit DIR`;
  return [
    {
      id: `audit/${sys}/${r.benchmark}`,
      section: 'motivation audit',
      title: `${r.benchmark}: ${r.title}`,
      paper: r.paper,
      paperValue: r.paperValue,
      command,
      steps: [rowStep(sys, r, false)],
      tolerance: { abs: 0.5 },
      run: { spec: anySetting(sys, r), figure: auditFigure },
    },
    ...auditBreakdown(sys, r, command, [rowStep(sys, r, false)]),
  ];
}

function coverageItems({ sys, r }: RowContext): PaperItem[] {
  return [
    {
      id: `coverage/${sys}/${r.benchmark}`,
      section: 'coverage x utilization',
      title: `${r.benchmark}: ${r.title}`,
      paper: r.paper,
      paperValue: r.paperValue,
      tolerance: { abs: 2 },
      command: rowCommand(sys, r, false),
      steps: [rowStep(sys, r, false)],
      run: { spec: anySetting(sys, r), figure: coverageFigure },
    },
  ];
}

function ablationItems({ sys, r }: RowContext): PaperItem[] {
  if (!r.sweep || !r.variant) return [];
  const variant = r.variant;
  const args = [r.benchmark, '--system', sys, '--reader', r.reader, ...r.sweep.split(/\s+/), '--no-png', '--no-report'];
  return [
    {
      id: `ablation/${sys}/${variant}`,
      section: 'motivation audit',
      title: `${r.benchmark}: ${r.title}`,
      paper: r.paper,
      paperValue: r.paperValue,
      command: `rawrag ablate ${r.benchmark} --system ${sys} --reader ${r.reader} ${r.sweep}`,
      steps: [{ command: 'ablate', args, out: `paper/ablate-${sys}-${r.benchmark}`, ...(r.needs ? { needs: r.needs } : {}) }],
      ...(r.paperSystem && r.paperSystem !== sys
        ? { note: `the paper measured ${r.paperSystem}; a run of ${sys} is another system beside its figure` }
        : {}),
      ablation: {
        spec: {
          benchmark: r.benchmark,
          // The paper's figure is the system it measured: another system's run is shown, as another system.
          system: { name: r.paperSystem ?? sys },
          reader: r.reader,
          retriever: 'any',
          display: 'any',
          judge: officialJudge(r.benchmark),
        },
        variants: (n: string) => n === variant,
      },
    },
  ];
}

const ITEMS_OF_KIND: Record<SystemPaperRow['kind'], (ctx: RowContext) => PaperItem[]> = {
  leaderboard: leaderboardItems,
  'add-on': addOnItems,
  'write-audit': writeAuditItems,
  coverage: coverageItems,
  ablation: ablationItems,
};

const rawRagRow = (r: SystemPaperRow) =>
  PAPER_ROWS.find((p) => p.benchmark === r.benchmark && p.reader === r.reader && p.retriever === 'openai');

/** The systems' own rows (src/systems/<name>/ `paperRows`), handled by kind, never by name. */
export function systemItems(): PaperItem[] {
  const rows = listSystems().flatMap((sys) => (sys.paperRows ?? []).map((row) => ({ sys: sys.name, row })));
  return rows.flatMap(({ sys, row: r }) => {
    const base = rawRagRow(r);
    const against = base ? rowSpec(base) : rawRag(r.benchmark, r.reader, 'openai');
    const rawSteps = base ? [mainStep(base)] : [];
    return ITEMS_OF_KIND[r.kind]?.({ sys, r, against, rawSteps }) ?? [];
  });
}
