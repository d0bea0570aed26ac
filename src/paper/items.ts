/**
 * The reproduction map's content: every table, figure and diagnostic of the paper (as summarised
 * in our words in the project's paper notes), the command that regenerates it, the setting a run
 * must have to reproduce it (src/core/comparability.ts), the figure read from that run, and the
 * steps `rawrag paper --run` takes to make the run. Figures are the paper's; rawrag's are read from
 * run directories by src/paper/map.ts.
 */
import type { RunSetting, SettingSpec } from '../core/comparability.js';
import type { SystemPaperRow } from '../core/system.js';
import { PAPER_BREAKDOWNS, PAPER_ROWS, type PaperRow } from '../datasets/paper-rows.js';
import { listSystems } from '../systems/registry.js';
import { officialJudge, rawRagSpec, rowSpec } from './rows.js';
import { PAPER_AUDITS } from '../audit/write-audit.js';
import {
  auditFigure,
  auditMedianFigure,
  auditShareFigure,
  columnFigure,
  coverageFigure,
  evidenceTokensFigure,
  headline,
  ingestCostFigure,
  judgeVarianceFigure,
  wallFigure,
  wallPerConversationFigure,
  type Figure,
} from './figures.js';

export type { RunFacts } from './figures.js';

export type PaperSection =
  | 'main results'
  | 'retriever'
  | 'weak spots'
  | 'ablations'
  | 'prior weak baselines'
  | 'memory-management add-ons'
  | 'motivation audit'
  | 'efficiency'
  | 'evidence length'
  | 'coverage x utilization'
  | 'result vs path'
  | 'complete-store oracle'
  | 'phase-visible oracle'
  | 'evidence controls'
  | 'judge variance';

/** The section names `--only` accepts, in the map's order. */
export const PAPER_SECTIONS: readonly PaperSection[] = [
  'main results',
  'retriever',
  'weak spots',
  'ablations',
  'prior weak baselines',
  'memory-management add-ons',
  'motivation audit',
  'efficiency',
  'evidence length',
  'coverage x utilization',
  'result vs path',
  'complete-store oracle',
  'phase-visible oracle',
  'evidence controls',
  'judge variance',
];

/**
 * One command `rawrag paper --run` runs for an item: `rawrag <command> <args> --out results/<out>`.
 * Items that need the same run share the step (the same `out`), so it runs once.
 */
export interface PaperStep {
  command: 'run' | 'ablate';
  args: readonly string[];
  /** The run directory (or ablation folder), relative to results/. */
  out: string;
  /** What the step needs that rawrag cannot provide itself (a running service, another run's store): skipped, and said why. */
  needs?: string;
}

export interface PaperItem {
  id: string;
  section: PaperSection;
  title: string;
  /** The paper's figure(s), as text. */
  paper: string;
  /** The paper's main figure in the item's unit, for the side-by-side. */
  paperValue?: number;
  /**
   * How close rawrag's figure must come where no 95 % interval applies (a wall time, a token count,
   * a share without per-question outcomes): `abs` in the item's unit, or `rel` a fraction of the paper's figure.
   */
  tolerance?: { abs?: number; rel?: number };
  /** The paper's figure is a bound, not a point (`all within 1.3 points`): rawrag's must not exceed it. */
  bound?: 'at most';
  /** The paper gives a range (`4,000-12,000 tokens`): rawrag's figure must lie in it. */
  range?: [number, number];
  /** The command (or config) that regenerates it, as shown; null = rawrag cannot (said in `note`). */
  command: string | null;
  note?: string;
  /** What `rawrag paper --run` runs for it (absent: nothing it can run on its own, `note` says why). */
  steps?: readonly PaperStep[];
  /** A figure read from one run directory: the setting that reproduces it and the figure. */
  run?: {
    spec: SettingSpec;
    figure: Figure;
    /** For differences: the run it is paired against (`rawrag stats`'s paired bootstrap, the benchmark's aggregation). */
    against?: SettingSpec;
    /** The figure is shown beside the same figure of the `against` run (e.g. RAW-RAG's TTL beside an add-on's). */
    againstFigure?: boolean;
    /** The paper's figure is the paired difference against `against` (an add-on's -19.62), not the run's own level. */
    compare?: 'delta';
  };
  /** Variants of an ablation folder (ablation.json): the reference variant's setting, and which variants hold the item. */
  ablation?: {
    spec: SettingSpec;
    variants: (name: string) => boolean;
    /** The item is the variant's own accuracy (a prior baseline's 30.20), not its difference from the reference. */
    absolute?: boolean;
    /** The item measures the delta of questions whose evidence did not change: their answers must be re-read and re-judged (--rejudge-unchanged). */
    rejudgeUnchanged?: boolean;
  };
}

/** The data condition of an item whose benchmark the paper does not name. */
const UNNAMED = 'the paper does not name the benchmark it measured on';

const SECTION_OF: Record<string, PaperSection> = { openai: 'main results', qwen3: 'retriever', 'full-context': 'main results' };

const rawRag = rawRagSpec;

const configSuffix = (retriever: string) => (retriever === 'openai' ? '' : `-${retriever}`);
const mainCommand = (r: Pick<PaperRow, 'benchmark' | 'reader' | 'retriever'>) =>
  `rawrag run --config configs/paper/${r.benchmark}-${r.reader}${configSuffix(r.retriever)}.yaml`;
const mainStep = (r: Pick<PaperRow, 'benchmark' | 'reader' | 'retriever'>): PaperStep => ({
  command: 'run',
  args: ['--config', `configs/paper/${r.benchmark}-${r.reader}${configSuffix(r.retriever)}.yaml`],
  out: `paper/${r.benchmark}-${r.reader}-${r.retriever}`,
});
const row = (benchmark: string, reader: string) =>
  PAPER_ROWS.find((r) => r.benchmark === benchmark && r.reader === reader && r.retriever === 'openai')!;

function mainRows(): PaperItem[] {
  return PAPER_ROWS.map((r) => ({
    id: `main/${r.benchmark}/${r.reader}/${r.retriever}`,
    section: SECTION_OF[r.retriever] ?? 'main results',
    title: `${r.system ?? 'RAW-RAG'} on ${r.benchmark}, reader ${r.reader}, ${r.retriever} ${r.retriever === 'full-context' ? '(the whole history, no retrieval)' : 'retriever'} (${r.headline})`,
    paper: `${r.accuracy.toFixed(2)}${r.strongestOther ? ` (strongest other: ${r.strongestOther.system} ${r.strongestOther.accuracy.toFixed(2)})` : ''}`,
    paperValue: r.accuracy,
    command: mainCommand(r),
    steps: [mainStep(r)],
    run: { spec: rowSpec(r), figure: headline(r.headline) },
  }));
}

/** PersonaMem-v2: the paper names no reader for it, so any reader's complete run shows (labelled with its reader). */
const personaMem: PaperItem = {
  id: 'main/personamem',
  section: 'main results',
  title: 'RAW-RAG on PersonaMem-v2, qwen3 retriever (multiple-choice accuracy; the paper names no reader)',
  paper: '49.62, third (EverMemOS 53.25, MemOS 50.72)',
  paperValue: 49.62,
  command: 'rawrag run personamem --retriever qwen3 --reader gpt-4o-mini',
  note: "49.62 is given with the paper's Qwen3-retriever figures, and no reader is named: a complete run with the qwen3 retriever and any reader is shown, and the reader it used is named",
  steps: [
    {
      command: 'run',
      args: ['personamem', '--retriever', 'qwen3', '--reader', 'gpt-4o-mini'],
      out: 'paper/personamem-gpt-4o-mini-qwen3',
    },
  ],
  run: {
    spec: rawRag('personamem', 'any', 'qwen3'),
    figure: { ...headline('multiple-choice accuracy over all rows'), text: (r) => `reader ${r.setting.reader ?? 'none'}` },
  },
};

/** The per-type figures the paper names as RAW-RAG's weak spots, read from the row's run with stats' aggregation. */
function weakSpots(): PaperItem[] {
  return PAPER_BREAKDOWNS.map((b) => {
    const r = row(b.benchmark, b.reader);
    return {
      id: `weak-spot/${b.benchmark}/${b.column}`,
      section: 'weak spots' as const,
      title: `${b.benchmark}, reader ${b.reader}: ${b.label}`,
      paper: b.value.toFixed(2),
      paperValue: b.value,
      command: `${mainCommand(r)}   (the summary's per-type table; rawrag stats DIR)`,
      note: b.note,
      steps: [mainStep(r)],
      run: { spec: rowSpec(r), figure: columnFigure(b.column, b.label) },
    };
  });
}

const MAB = row('memoryagentbench', 'gpt-4o-mini');
const MAB_ABLATE = 'rawrag ablate memoryagentbench --retriever openai --reader gpt-4o-mini';
const mabAblation = (out: string, sweep: string[]): PaperStep => ({
  command: 'ablate',
  args: ['memoryagentbench', '--retriever', 'openai', '--reader', 'gpt-4o-mini', ...sweep, '--no-png', '--no-report'],
  out: `paper/ablate-memoryagentbench-${out}`,
});
const K_SWEEP = mabAblation('k', ['--k', '1,3,5,10,30,60,120']);
const WINDOW_SWEEP = mabAblation('window', ['--window', '128,512,1024,4096']);
const NO_RERANK = mabAblation('no-rerank', ['--no-rerank']);
const sweepCommand = (s: PaperStep) => `${MAB_ABLATE} ${s.args.slice(5, -2).join(' ')}`;

function ablations(): PaperItem[] {
  const own = [
    {
      id: 'no-reranker',
      title: 'no reranker',
      paper: '-3.92 (p_Holm 0.0012)',
      value: -3.92,
      step: NO_RERANK,
      v: (n: string) => n === 'no-rerank',
    },
    { id: 'k=1', title: 'k = 1', paper: '-11.73', value: -11.73, step: K_SWEEP, v: (n: string) => n === 'k=1' },
    { id: 'k=120', title: 'k = 120', paper: '-14.57', value: -14.57, step: K_SWEEP, v: (n: string) => n === 'k=120' },
    {
      id: 'k=5..60',
      title: 'k in {5, 10, 30, 60} (largest |Δ|)',
      paper: 'all within 1.3 points',
      value: 1.3,
      bound: 'at most' as const,
      step: K_SWEEP,
      v: (n: string) => ['k=5', 'k=10', 'k=30', 'k=60'].includes(n),
    },
    {
      id: 'windows',
      title: 'windows 128-1024 tokens (largest |Δ|)',
      paper: 'all within 1.3 points',
      value: 1.3,
      bound: 'at most' as const,
      step: WINDOW_SWEEP,
      v: (n: string) => /^window=(128|512|1024),k=15$/.test(n),
    },
  ].map((a) => ({
    id: `ablation/${a.id}`,
    section: 'ablations' as const,
    title: `MemoryAgentBench, GPT-4o-mini: ${a.title} (paired bootstrap + Holm)`,
    paper: a.paper,
    paperValue: a.value,
    ...('bound' in a ? { bound: a.bound } : {}),
    command: sweepCommand(a.step),
    steps: [a.step],
    ablation: { spec: rowSpec(MAB), variants: a.v },
  }));
  // The settings earlier work used when it found RAG losing; the paper names them, with one figure.
  const prior = [
    {
      id: 'window=4096',
      title: '4,096-token chunks',
      paper: '30.20',
      value: 30.2,
      step: WINDOW_SWEEP,
      v: (n: string) => n === 'window=4096,k=15',
    },
    { id: 'k=1', title: 'k = 1', paper: 'named, no figure', step: K_SWEEP, v: (n: string) => n === 'k=1' },
    { id: 'k=3', title: 'k = 3', paper: 'named, no figure', step: K_SWEEP, v: (n: string) => n === 'k=3' },
    { id: 'k=5', title: 'top-5', paper: 'named, no figure', step: K_SWEEP, v: (n: string) => n === 'k=5' },
    { id: 'no-rerank', title: 'no reranker', paper: 'named, no figure', step: NO_RERANK, v: (n: string) => n === 'no-rerank' },
  ].map((a) => ({
    id: `prior-baseline/${a.id}`,
    section: 'prior weak baselines' as const,
    title: `${a.title}, run on RAW-RAG's backbone (MemoryAgentBench, GPT-4o-mini): the variant's own accuracy`,
    paper: a.paper,
    paperValue: a.value,
    command: sweepCommand(a.step),
    note: "the paper names the weak settings earlier work used; it does not say on which benchmark its 30.20 was measured: rawrag runs them in the paper's ablation setting, so no run can be the paper's data",
    tolerance: { abs: 2 },
    steps: [a.step],
    ablation: { spec: { ...rowSpec(MAB), release: { unnamed: UNNAMED } }, variants: a.v, absolute: true },
  }));
  return [...own, ...prior];
}

/** The paper's write-decision breakdown of a write-audit row (src/audit/write-audit.ts PAPER_AUDITS): each operation's share with its count, and the per-conversation median. */
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
function importedItems(): PaperItem[] {
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

/** The systems' own rows (src/systems/<name>/ `paperRows`), handled by kind, never by name. */
function systemItems(): PaperItem[] {
  const rows = listSystems().flatMap((sys) => (sys.paperRows ?? []).map((row) => ({ sys: sys.name, row })));
  const command = (sys: string, r: SystemPaperRow, retriever: boolean) =>
    `rawrag run ${r.benchmark} --system ${sys}${retriever ? ' --retriever openai' : ''} --reader ${r.reader}${r.flags ? ` ${r.flags}` : ''}`;
  const step = (sys: string, r: SystemPaperRow, retriever: boolean): PaperStep => ({
    command: 'run',
    args: [r.benchmark, '--system', sys, ...(retriever ? ['--retriever', 'openai'] : []), '--reader', r.reader],
    out: `paper/${sys}-${r.benchmark}-${r.reader}`,
    ...(r.needs ? { needs: r.needs } : {}),
  });
  const rawRagOf = (r: SystemPaperRow) =>
    PAPER_ROWS.find((p) => p.benchmark === r.benchmark && p.reader === r.reader && p.retriever === 'openai');
  const out: PaperItem[] = [];
  for (const { sys, row: r } of rows) {
    const base = rawRagOf(r);
    const against = base ? rowSpec(base) : rawRag(r.benchmark, r.reader, 'openai');
    const rawSteps = base ? [mainStep(base)] : [];
    if (r.kind === 'leaderboard') {
      out.push({
        id: `leaderboard/${sys}/${r.benchmark}/${r.reader}`,
        section: 'main results',
        title: `${sys} on ${r.benchmark}, reader ${r.reader}: ${r.title} (paired against RAW-RAG)`,
        paper: r.paper,
        paperValue: r.paperValue,
        command: command(sys, r, false),
        steps: [step(sys, r, false), ...rawSteps],
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
      });
    } else if (r.kind === 'add-on') {
      const spec = rawRag(r.benchmark, r.reader, 'openai', { system: { name: sys } });
      const cmd = `${command(sys, r, true)}   and RAW-RAG itself: ${base ? mainCommand(base) : 'rawrag run ...'}`;
      const steps = [step(sys, r, true), ...rawSteps];
      out.push({
        id: `add-on/${sys}`,
        section: 'memory-management add-ons',
        title: `${r.benchmark}, ${r.reader}: ${r.title} (paired against RAW-RAG)`,
        paper: r.paper,
        paperValue: r.paperValue,
        command: cmd,
        steps,
        run: { spec, figure: headline('the add-on’s run'), against, compare: 'delta' },
      });
      out.push({
        id: `add-on-cost/${sys}`,
        section: 'memory-management add-ons',
        title: `${r.benchmark}: what ${sys}'s ingest cost (LLM tokens of every call; ingest wall time)`,
        paper: 'the three add-ons: 21.6-109.3 M LLM tokens, 2.9-8.8 h (RAW-RAG: 0 tokens, 12 minutes)',
        command: `${command(sys, r, true)}   then: rawrag stats DIR (Efficiency table)`,
        steps: [step(sys, r, true)],
        run: { spec, figure: ingestCostFigure },
      });
      for (const b of r.breakdown ?? [])
        out.push({
          id: `add-on/${sys}/${b.column}`,
          section: 'memory-management add-ons',
          title: `${r.benchmark}, ${r.reader}: ${sys}, ${b.label}`,
          paper: `${b.referenceValue === undefined ? '' : `RAW-RAG ${b.referenceValue.toFixed(2)} -> `}${b.paperValue.toFixed(2)}`,
          paperValue: b.paperValue,
          command: cmd,
          steps,
          run: { spec, figure: columnFigure(b.column, b.label), against, againstFigure: true },
        });
    } else if (r.kind === 'write-audit') {
      out.push({
        id: `audit/${sys}/${r.benchmark}`,
        section: 'motivation audit',
        title: `${r.benchmark}: ${r.title}`,
        paper: r.paper,
        paperValue: r.paperValue,
        command: `${command(sys, r, false)}   then: rawrag memory audit DIR`,
        steps: [step(sys, r, false)],
        tolerance: { abs: 0.5 },
        run: {
          spec: { benchmark: r.benchmark, system: { name: sys }, reader: 'any', retriever: 'any', display: 'any', judge: 'any' },
          figure: auditFigure,
        },
      });
      out.push(...auditBreakdown(sys, r, `${command(sys, r, false)}   then: rawrag memory audit DIR`, [step(sys, r, false)]));
    } else if (r.kind === 'coverage') {
      out.push({
        id: `coverage/${sys}/${r.benchmark}`,
        section: 'coverage x utilization',
        title: `${r.benchmark}: ${r.title}`,
        paper: r.paper,
        paperValue: r.paperValue,
        tolerance: { abs: 2 },
        command: command(sys, r, false),
        steps: [step(sys, r, false)],
        run: {
          spec: { benchmark: r.benchmark, system: { name: sys }, reader: 'any', retriever: 'any', display: 'any', judge: 'any' },
          figure: coverageFigure,
        },
      });
    } else if (r.kind === 'ablation' && r.sweep && r.variant) {
      const args = [r.benchmark, '--system', sys, '--reader', r.reader, ...r.sweep.split(/\s+/), '--no-png', '--no-report'];
      out.push({
        id: `ablation/${sys}/${r.variant}`,
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
          variants: (n: string) => n === r.variant,
        },
      });
    }
  }
  return out;
}

const MEME = row('meme', 'gpt-4o-mini');
const LOCOMO = row('locomo', 'gpt-4o-mini');
const MEME_SLICE: PaperStep = { command: 'run', args: ['meme', '--retriever', 'openai', '--limit', '110'], out: 'paper/meme-slice-openai' };
const BEAM_1M: PaperStep = { command: 'run', args: ['beam', '-B', 'size=1M', '--retriever', 'openai'], out: 'paper/beam-1M-openai' };

function efficiency(): PaperItem[] {
  return [
    {
      id: 'efficiency/meme-slice',
      section: 'efficiency',
      title: 'MEME slice (10 episodes, 110 questions): add-to-ready + search, wall time',
      paper: '305.91 s (EMem 1,561.97 s, EverMemOS 9,301.48 s)',
      paperValue: 305.91,
      tolerance: { rel: 0.5 },
      command: 'rawrag run meme --retriever openai --limit 110   then: rawrag stats DIR (Efficiency table)',
      steps: [MEME_SLICE],
      run: { spec: rawRag('meme', 'any', 'openai', { subset: '--limit 110', judge: 'any' }), figure: wallFigure('add + search') },
    },
    {
      id: 'efficiency/beam-1m',
      section: 'efficiency',
      title: 'BEAM-1M (one conversation of 1,710 messages, ~1 M tokens): streaming ingest, wall time per conversation',
      paper: '0.33 h (MemOS 3.25 h, Memora 26.95 h)',
      paperValue: 0.33 * 3600,
      tolerance: { rel: 0.5 },
      command: 'rawrag run beam -B size=1M --data BEAM_CHECKOUT --retriever openai   then: rawrag stats DIR (Efficiency table)',
      note: "the paper's figure is one conversation's: rawrag divides the run's add wall time by the conversations it ingested (a whole checkout: skipping incomplete conversations is other data); it times the add of a whole history per episode, not message-by-message streaming",
      steps: [BEAM_1M],
      run: { spec: rawRag('beam', 'any', 'openai', { data: 'beam/size=1M', judge: 'any' }), figure: wallPerConversationFigure },
    },
    {
      id: 'efficiency/mab',
      section: 'efficiency',
      title: 'MemoryAgentBench, 11 sources: add + search, wall time (and LLM tokens at ingest)',
      paper: '718.4 s, 0 LLM tokens',
      paperValue: 718.4,
      tolerance: { rel: 0.5 },
      command: `${mainCommand(MAB)}   then: rawrag stats DIR (Efficiency table)`,
      steps: [mainStep(MAB)],
      run: { spec: rawRag('memoryagentbench', 'any', 'openai', { judge: 'any' }), figure: wallFigure('add + search') },
    },
  ];
}

/** The paper's evidence range (4,000-12,000 tokens per question) on each main-results benchmark's row. */
function evidenceRange(): PaperItem[] {
  return [row('locomo', 'gpt-4o-mini'), row('longmemeval', 'gpt-4.1-mini'), MEME, MAB].map((r) => ({
    id: `evidence/${r.benchmark}-range`,
    section: 'evidence length' as const,
    title: `${r.benchmark}: mean evidence tokens per question, against the paper's range for its benchmarks`,
    paper: 'evidence of 4,000-12,000 tokens per question',
    range: [4000, 12000] as [number, number],
    command: `${mainCommand(r)}   (the summary's evidence tokens)`,
    steps: [mainStep(r)],
    run: { spec: rawRag(r.benchmark, 'any', 'openai', { judge: 'any' }), figure: evidenceTokensFigure },
  }));
}

/** The k=120 collapse the paper names for long-range understanding and conflict resolution: each competency at k=120 beside the reference's. */
function kCollapse(): PaperItem[] {
  return [
    { column: 'LRU', label: 'long-range understanding' },
    { column: 'CR', label: 'conflict resolution' },
  ].map((c) => ({
    id: `ablation/k=120/${c.column}`,
    section: 'ablations' as const,
    title: `MemoryAgentBench, GPT-4o-mini: k = 120, ${c.label} (${c.column}) accuracy beside the reference's (the collapse the paper names)`,
    paper: 'named as collapsing at k = 120, no figure',
    command: sweepCommand(K_SWEEP),
    steps: [K_SWEEP],
    run: {
      spec: rawRag('memoryagentbench', 'gpt-4o-mini', 'openai', { method: ['k=120'] }),
      figure: columnFigure(c.column, `${c.label}, k = 120`),
      against: rowSpec(MAB),
      againstFigure: true,
    },
  }));
}

function diagnostics(): PaperItem[] {
  const evidenceLength: PaperItem = {
    id: 'evidence/locomo-mean-tokens',
    section: 'evidence length',
    title: 'LoCoMo: mean evidence tokens per question (top-15 windows expanded to turns, the paper’s display)',
    paper: '4,778.8 tokens',
    paperValue: 4778.8,
    tolerance: { rel: 0.05 },
    command: `${mainCommand(LOCOMO)}   (or any RAW-RAG run of LoCoMo with the openai retriever; docs/faithfulness.md)`,
    steps: [mainStep(LOCOMO)],
    run: { spec: rawRag('locomo', 'any', 'openai', { judge: 'any' }), figure: evidenceTokensFigure },
  };
  const covUtil: PaperItem[] = [
    {
      id: 'coverage/mab',
      section: 'coverage x utilization',
      title: 'MemoryAgentBench coverage x utilization (7 systems, 21 pairwise comparisons with CIs)',
      paper: 'coverage 19.07-45.29 % (RAW-RAG 45.29, highest); utilization 80.00-89.71 %',
      paperValue: 45.29,
      tolerance: { abs: 2 },
      command: `${mainCommand(MAB)}; rawrag judge OTHER.jsonl --benchmark memoryagentbench ...; rawrag stats results/ --all-pairs`,
      steps: [mainStep(MAB)],
      run: { spec: rawRag('memoryagentbench', 'any', 'openai', { judge: 'any' }), figure: coverageFigure },
    },
    {
      id: 'coverage/meme',
      section: 'coverage x utilization',
      title: 'MEME coverage x utilization',
      paper: 'RAW-RAG coverage 76.35 % (MemMachine 70.37), utilization 73.76 %; coverage spread 40.66 points, utilization 21.04',
      paperValue: 76.35,
      tolerance: { abs: 2 },
      command: `${mainCommand(MEME)}; rawrag stats results/`,
      steps: [mainStep(MEME)],
      run: { spec: rawRag('meme', 'any', 'openai', { judge: 'any' }), figure: coverageFigure },
    },
  ];
  const resultPath: PaperItem = {
    id: 'result-path/meme',
    section: 'result vs path',
    title: 'MEME tracking and cascade: P(path | result)',
    paper: 'RAW-RAG 62.34 %, MemMachine 56.70 %, MemU 9.62 %',
    paperValue: 62.34,
    tolerance: { abs: 3 },
    command: `${mainCommand(MEME)}   (any --system; the MEME summary prints P(path | result) with its CI)`,
    steps: [mainStep(MEME)],
    run: {
      spec: rawRag('meme', 'any', 'openai', { judge: 'any' }),
      figure: {
        measure: 'P(path | result) %',
        unit: 'percent',
        read: (r) => {
          const v = (r.summary?.benchmark_summary as { result_path?: { path_given_result?: unknown } } | undefined)?.result_path
            ?.path_given_result;
          return typeof v === 'number' ? 100 * v : null;
        },
      },
    },
  };
  return [evidenceLength, ...evidenceRange(), ...covUtil, resultPath];
}

/** The system that picks evidence with gold knowledge (its descriptor says `oracle`), and its config section. */
const ORACLE = listSystems().find((s) => s.oracle);
const ORACLE_NAME = ORACLE?.name ?? 'oracle';
const oracleOf = (cfg: Record<string, unknown>) =>
  ((ORACLE?.config ? cfg[ORACLE.config.key] : undefined) ?? {}) as { store?: string; phaseVisible?: boolean };
const budgetOf = (cfg: Record<string, unknown>) => (cfg.assembly as { maxEvidenceTokens?: number } | undefined)?.maxEvidenceTokens;
const rawStore = (cfg: Record<string, unknown>) => (oracleOf(cfg).store ?? 'raw') === 'raw' && !oracleOf(cfg).phaseVisible;
const budget = (want: number) => ({
  label: `budget ${want || 'none'}`,
  holds: (cfg: Record<string, unknown>) => (budgetOf(cfg) ?? 5000) === want,
});
/** Packed to fill the budget, the paper's packing (the source's name says so; runs before the choice packed relevant objects only). */
const packing = {
  label: 'packing relevant objects only',
  holds: (_cfg: Record<string, unknown>, r: RunSetting) => r.source.includes('packing=fill'),
};

function oracles(): PaperItem[] {
  const spec = (extra: NonNullable<SettingSpec['extra']>, reader = 'gpt-4o-mini', benchmark = 'locomo'): SettingSpec => ({
    benchmark,
    system: { oracle: true },
    reader,
    retriever: 'any',
    display: 'any',
    judge: officialJudge(benchmark),
    ignore: ['budget'],
    extra,
    // The summary does not name the benchmark of the complete-store oracle (LoCoMo is rawrag's choice); MEME's phase-visible oracle is named.
    ...(benchmark === 'locomo' ? { release: { unnamed: UNNAMED } } : {}),
  });
  const isRaw = { label: 'a store other than raw', holds: rawStore };
  const isStore = { label: 'the raw store', holds: (cfg: Record<string, unknown>) => !rawStore(cfg) && !oracleOf(cfg).phaseVisible };
  const rawStep: PaperStep = {
    command: 'run',
    args: ['locomo', '--system', ORACLE_NAME, '-S', 'store=raw', '--reader', 'gpt-4o-mini'],
    out: 'paper/oracle-raw-locomo-gpt-4o-mini',
  };
  const storeNote =
    'needs a run of a system that keeps a store (RUN_DIR) or an exported store (STORE.jsonl): give it, then run the command';
  const complete: PaperItem[] = [
    {
      id: 'oracle/raw',
      section: 'complete-store oracle',
      title: 'raw-evidence oracle (gold-picked raw turns packed to fill the 5,000-token budget)',
      paper: '61.60 % (the summary does not name the benchmark)',
      paperValue: 61.6,
      command: `rawrag run locomo --system ${ORACLE_NAME} -S store=raw --reader gpt-4o-mini`,
      steps: [rawStep],
      run: { spec: spec([isRaw, budget(5000), packing]), figure: headline('the oracle’s evidence') },
    },
    {
      id: 'oracle/store-vs-raw',
      section: 'complete-store oracle',
      title: "a system's complete store, gold-picked, 5,000 tokens, against the raw-evidence oracle (paired)",
      paper: 'RAW-RAG 57.54, MemMachine 57.46, EverMemOS 51.59, EMem 48.36, MemOS 45.12, Mem0 32.26, MemU 31.07 (all below 61.60)',
      command: `rawrag run locomo --system ${ORACLE_NAME} -S store=RUN_DIR --reader gpt-4o-mini   (RUN_DIR: a run of a system that keeps a store; or -S store=STORE.jsonl)`,
      note: storeNote,
      run: {
        spec: spec([isStore, budget(5000), packing]),
        figure: headline('the store’s evidence'),
        against: spec([isRaw, budget(5000), packing]),
      },
    },
    {
      id: 'oracle/store-vs-raw-uncapped',
      section: 'complete-store oracle',
      title: 'the same without the budget (--max-evidence-tokens 0)',
      paper: 'gaps 7.58-29.38 points, CIs excluding 0',
      command: `rawrag run locomo --system ${ORACLE_NAME} -S store=RUN_DIR --max-evidence-tokens 0 --reader gpt-4o-mini   (and -S store=raw --max-evidence-tokens 0)`,
      note: storeNote,
      run: {
        spec: spec([isStore, budget(0), packing]),
        figure: headline('the store’s evidence'),
        against: spec([isRaw, budget(0), packing]),
      },
    },
  ];
  const phase: PaperItem[] = [
    { reader: 'deepseek-v4-flash', paper: '85.48 % overall (cascade 82.32, invalidation 91.54)', value: 85.48 },
    { reader: 'gpt-4o-mini', paper: '50.50 % (cascade 1.83)', value: 50.5 },
  ].map((p) => ({
    id: `phase-visible/${p.reader}`,
    section: 'phase-visible oracle' as const,
    title: `MEME phase-visible oracle (all gold-relevant evidence visible at the question, chronological), reader ${p.reader}`,
    paper: p.paper,
    paperValue: p.value,
    command: `rawrag run meme --system ${ORACLE_NAME} -S phaseVisible=true --reader ${p.reader}`,
    steps: [
      {
        command: 'run' as const,
        args: ['meme', '--system', ORACLE_NAME, '-S', 'phaseVisible=true', '--reader', p.reader],
        out: `paper/phase-visible-meme-${p.reader}`,
      },
    ],
    run: {
      spec: spec([{ label: 'not phase-visible', holds: (cfg) => oracleOf(cfg).phaseVisible === true }], p.reader, 'meme'),
      figure: headline('six-task macro'),
    },
  }));
  return [...complete, ...phase];
}

function controls(): PaperItem[] {
  const lme: PaperStep = {
    command: 'ablate',
    args: ['--config', 'configs/controls/longmemeval-gpt-4.1-mini-5k.yaml', '--no-expand', '--dedup', '--no-png', '--no-report'],
    out: 'paper/control-longmemeval-5k',
  };
  const locomo: PaperStep = {
    command: 'ablate',
    args: [
      '--config',
      'configs/paper/locomo-gpt-4o-mini.yaml',
      '--max-evidence-tokens',
      '5000',
      '--rejudge-unchanged',
      '--no-png',
      '--no-report',
    ],
    out: 'paper/control-locomo-5k',
  };
  const lmeSpec = rawRag('longmemeval', 'gpt-4.1-mini', 'openai', { method: ['budget=5000'] });
  return [
    {
      id: 'control/lme-no-expand-5k',
      section: 'evidence controls',
      title: 'LongMemEval, 5,000-token budget: expansion off',
      paper: '+1.67',
      paperValue: 1.67,
      command: 'rawrag ablate --config configs/controls/longmemeval-gpt-4.1-mini-5k.yaml --no-expand --dedup',
      steps: [lme],
      ablation: { spec: lmeSpec, variants: (n) => n === 'no-expand' },
    },
    {
      id: 'control/display-dedup',
      section: 'evidence controls',
      title: 'naive display-turn dedup (5,000-token budget)',
      paper: '-2.39',
      paperValue: -2.39,
      command: 'rawrag ablate --config configs/controls/longmemeval-gpt-4.1-mini-5k.yaml --no-expand --dedup',
      note: "the reference is the paper's display (shared turns repeated); the variant `dedup` shows each turn once",
      steps: [lme],
      ablation: { spec: lmeSpec, variants: (n) => n === 'dedup' },
    },
    {
      id: 'control/locomo-5k',
      section: 'evidence controls',
      title: 'LoCoMo, 5,000-token budget, and the share of the delta from questions whose evidence did not change (judge noise)',
      paper: '+0.281, mostly from the 1,499 questions whose evidence did not change (judge noise, not tested)',
      paperValue: 0.281,
      command: 'rawrag ablate --config configs/paper/locomo-gpt-4o-mini.yaml --max-evidence-tokens 5000 --rejudge-unchanged',
      note: 'without --rejudge-unchanged the answers of unchanged evidence are reused and their share of the delta is 0 by construction',
      steps: [locomo],
      ablation: { spec: rowSpec(LOCOMO), variants: (n) => n === 'max-evidence=5000', rejudgeUnchanged: true },
    },
  ];
}

const judgeVariance: PaperItem = {
  id: 'judge/variance',
  section: 'judge variance',
  title: "judge variance across the 3 judge runs (the paper names it as untested), on the LoCoMo row: each run's accuracy, Cochran's Q",
  paper: 'not tested in the paper',
  command: `${mainCommand(LOCOMO)}; rawrag stats DIR   (section "Judge agreement ... and judge variance tested")`,
  steps: [mainStep(LOCOMO)],
  run: { spec: rowSpec(LOCOMO), figure: judgeVarianceFigure },
};

export function paperItems(): PaperItem[] {
  return [
    ...mainRows(),
    personaMem,
    ...weakSpots(),
    ...ablations(),
    ...kCollapse(),
    ...systemItems(),
    ...importedItems(),
    ...efficiency(),
    ...diagnostics(),
    ...oracles(),
    ...controls(),
    judgeVariance,
  ];
}
