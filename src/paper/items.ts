/**
 * The reproduction map's content: every table, figure and diagnostic of the paper (as summarised
 * in our words in the project's paper notes), the command that regenerates it, the setting a run
 * must have to reproduce it (src/core/comparability.ts), the figure read from that run, and the
 * steps `rawrag paper --run` takes to make the run. Figures are the paper's; rawrag's are read from
 * run directories by src/paper/map.ts.
 */
import { PAPER_BREAKDOWNS, PAPER_ROWS } from '../benchmarks/paper-rows.js';
import { figure, figureEntry, figureField, paperFigures, points, range } from '../benchmarks/paper-figures.js';
import { ORDINAL } from '../benchmarks/paper-system-figures.js';
import { rowSpec } from './rows.js';
import {
  columnFigure,
  coverageFigure,
  evidenceTokensFigure,
  headline,
  judgeVarianceFigure,
  wallFigure,
  wallPerConversationFigure,
} from './figures.js';
import { mainCommand, mainStep, rawRag, row, SECTION_OF, UNNAMED } from './item-common.js';
import type { PaperItem, PaperStep } from './item-types.js';
import { importedItems, systemItems } from './system-items.js';
import { controls, oracles } from './oracle-items.js';

export { PAPER_SECTIONS, type PaperItem, type PaperSection, type PaperStep } from './item-types.js';
export type { RunFacts } from './figures.js';

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
function personaMem(): PaperItem {
  const p = paperFigures().personamem;
  const place = ORDINAL[p.others.filter((o) => o.accuracy > p.accuracy).length];
  const others = p.others.map((o) => `${o.system} ${points(o.accuracy)}`).join(', ');
  return {
    id: `main/${p.benchmark}`,
    section: 'main results',
    title: `RAW-RAG on PersonaMem-v2, ${p.retriever} retriever (${p.headline}; the paper names no reader)`,
    paper: `${points(p.accuracy)}, ${place} (${others})`,
    paperValue: p.accuracy,
    command: `rawrag run ${p.benchmark} --retriever ${p.retriever} --reader gpt-4o-mini`,
    note: `${points(p.accuracy)} is given with the paper's Qwen3-retriever figures, and no reader is named: a complete run with the ${p.retriever} retriever and any reader is shown, and the reader it used is named`,
    steps: [
      {
        command: 'run',
        args: [p.benchmark, '--retriever', p.retriever, '--reader', 'gpt-4o-mini'],
        out: `paper/${p.benchmark}-gpt-4o-mini-${p.retriever}`,
      },
    ],
    run: {
      spec: rawRag(p.benchmark, 'any', p.retriever),
      figure: { ...headline(`${p.headline} over all rows`), text: (r) => `reader ${r.setting.reader ?? 'none'}` },
    },
  };
}

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

/** An ablation's paired difference from figures.json, with its Holm-adjusted p where the paper gives one. */
function ablationFigure(id: string): { paper: string; value: number } {
  const v = figureEntry(paperFigures().ablations.variants, 'ablations.variants', id);
  return { paper: `${points(v.delta)}${v.pHolm === undefined ? '' : ` (p_Holm ${figure(v.pHolm)})`}`, value: v.delta };
}

function ablations(): PaperItem[] {
  const within = paperFigures().ablations.flatWithinPoints;
  const prior = paperFigures().priorBaselines.chunks4096;
  const own = [
    { id: 'no-reranker', title: 'no reranker', ...ablationFigure('no-reranker'), step: NO_RERANK, v: (n: string) => n === 'no-rerank' },
    { id: 'k=1', title: 'k = 1', ...ablationFigure('k=1'), step: K_SWEEP, v: (n: string) => n === 'k=1' },
    { id: 'k=120', title: 'k = 120', ...ablationFigure('k=120'), step: K_SWEEP, v: (n: string) => n === 'k=120' },
    {
      id: 'k=5..60',
      title: 'k in {5, 10, 30, 60} (largest |Δ|)',
      paper: `all within ${figure(within)} points`,
      value: within,
      bound: 'at most' as const,
      step: K_SWEEP,
      v: (n: string) => ['k=5', 'k=10', 'k=30', 'k=60'].includes(n),
    },
    {
      id: 'windows',
      title: 'windows 128-1024 tokens (largest |Δ|)',
      paper: `all within ${figure(within)} points`,
      value: within,
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
  const priors = [
    {
      id: 'window=4096',
      title: '4,096-token chunks',
      paper: points(prior),
      value: prior,
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
    note: `the paper names the weak settings earlier work used; it does not say on which benchmark its ${points(prior)} was measured: rawrag runs them in the paper's ablation setting, so no run can be the paper's data`,
    tolerance: { abs: 2 },
    steps: [a.step],
    ablation: { spec: { ...rowSpec(MAB), release: { unnamed: UNNAMED } }, variants: a.v, absolute: true },
  }));
  return [...own, ...priors];
}

const MEME = row('meme', 'gpt-4o-mini');
const LOCOMO = row('locomo', 'gpt-4o-mini');
const MEME_SLICE: PaperStep = { command: 'run', args: ['meme', '--retriever', 'openai', '--limit', '110'], out: 'paper/meme-slice-openai' };
const BEAM_1M: PaperStep = { command: 'run', args: ['beam', '-B', 'size=1M', '--retriever', 'openai'], out: 'paper/beam-1M-openai' };

/** An efficiency figure of figures.json as the paper prints it (`305.91 s (EMem 1,561.97 s, ...)`), and its value in seconds. */
function wall(id: string): { paper: string; paperValue: number } {
  const e = figureEntry(paperFigures().efficiency, 'efficiency', id);
  const others = e.others?.length ? ` (${e.others.map((o) => `${o.system} ${figure(o.value)} ${e.unit}`).join(', ')})` : '';
  const tokens = e.llmTokens === undefined ? '' : `, ${figure(e.llmTokens)} LLM tokens`;
  return { paper: `${figure(e.value)} ${e.unit}${others}${tokens}`, paperValue: e.unit === 'h' ? e.value * 3600 : e.value };
}

function efficiency(): PaperItem[] {
  return [
    {
      id: 'efficiency/meme-slice',
      section: 'efficiency',
      title: 'MEME slice (10 episodes, 110 questions): add-to-ready + search, wall time',
      ...wall('meme-slice'),
      tolerance: { rel: 0.5 },
      command: 'rawrag run meme --retriever openai --limit 110   then: rawrag stats DIR (Efficiency table)',
      steps: [MEME_SLICE],
      run: { spec: rawRag('meme', 'any', 'openai', { subset: '--limit 110', judge: 'any' }), figure: wallFigure('add + search') },
    },
    {
      id: 'efficiency/beam-1m',
      section: 'efficiency',
      title: 'BEAM-1M (one conversation of 1,710 messages, ~1 M tokens): streaming ingest, wall time per conversation',
      ...wall('beam-1m'),
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
      ...wall('memoryagentbench'),
      tolerance: { rel: 0.5 },
      command: `${mainCommand(MAB)}   then: rawrag stats DIR (Efficiency table)`,
      steps: [mainStep(MAB)],
      run: { spec: rawRag('memoryagentbench', 'any', 'openai', { judge: 'any' }), figure: wallFigure('add + search') },
    },
  ];
}

/** The paper's evidence range (tokens per question, figures.json `evidence`) on each main-results benchmark's row. */
function evidenceRange(): PaperItem[] {
  const [lo, hi] = paperFigures().evidence.tokensPerQuestion;
  return [row('locomo', 'gpt-4o-mini'), row('longmemeval', 'gpt-4.1-mini'), MEME, MAB].map((r) => ({
    id: `evidence/${r.benchmark}-range`,
    section: 'evidence length' as const,
    title: `${r.benchmark}: mean evidence tokens per question, against the paper's range for its benchmarks`,
    paper: `evidence of ${range([lo, hi])} tokens per question`,
    range: [lo, hi] as [number, number],
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
  const f = paperFigures();
  const evidenceLength: PaperItem = {
    id: 'evidence/locomo-mean-tokens',
    section: 'evidence length',
    title: 'LoCoMo: mean evidence tokens per question (top-15 windows expanded to turns, the paper’s display)',
    paper: `${figure(f.evidence.locomoMeanTokens)} tokens`,
    paperValue: f.evidence.locomoMeanTokens,
    tolerance: { rel: 0.05 },
    command: `${mainCommand(LOCOMO)}   (or any RAW-RAG run of LoCoMo with the openai retriever; docs/faithfulness.md)`,
    steps: [mainStep(LOCOMO)],
    run: { spec: rawRag('locomo', 'any', 'openai', { judge: 'any' }), figure: evidenceTokensFigure },
  };
  const mabCov = figureEntry(f.coverage, 'coverage', 'memoryagentbench');
  const memeCov = figureEntry(f.coverage, 'coverage', 'meme');
  const memeCovSpread = figureField(memeCov.spread, 'coverage.meme.spread');
  const others = (xs: ReadonlyArray<{ system: string; coverage: number }>) => xs.map((o) => `${o.system} ${points(o.coverage)}`).join(', ');
  const covUtil: PaperItem[] = [
    {
      id: 'coverage/mab',
      section: 'coverage x utilization',
      title: 'MemoryAgentBench coverage x utilization (7 systems, 21 pairwise comparisons with CIs)',
      paper: `coverage ${range([figureField(mabCov.coverageLowest, 'coverage.memoryagentbench.coverageLowest'), mabCov.coverage], points)} % (RAW-RAG ${points(mabCov.coverage)}, highest); utilization ${range(figureField(mabCov.utilizationRange, 'coverage.memoryagentbench.utilizationRange'), points)} %`,
      paperValue: mabCov.coverage,
      tolerance: { abs: 2 },
      command: `${mainCommand(MAB)}; rawrag judge OTHER.jsonl --benchmark memoryagentbench ...; rawrag stats results/ --all-pairs`,
      steps: [mainStep(MAB)],
      run: { spec: rawRag('memoryagentbench', 'any', 'openai', { judge: 'any' }), figure: coverageFigure },
    },
    {
      id: 'coverage/meme',
      section: 'coverage x utilization',
      title: 'MEME coverage x utilization',
      paper: `RAW-RAG coverage ${points(memeCov.coverage)} % (${others(memeCov.others)}), utilization ${points(figureField(memeCov.utilization, 'coverage.meme.utilization'))} %; coverage spread ${points(memeCovSpread.coverage)} points, utilization ${points(memeCovSpread.utilization)}`,
      paperValue: memeCov.coverage,
      tolerance: { abs: 2 },
      command: `${mainCommand(MEME)}; rawrag stats results/`,
      steps: [mainStep(MEME)],
      run: { spec: rawRag('meme', 'any', 'openai', { judge: 'any' }), figure: coverageFigure },
    },
  ];
  const path = figureEntry(f.resultPath, 'resultPath', 'meme');
  const resultPath: PaperItem = {
    id: 'result-path/meme',
    section: 'result vs path',
    title: 'MEME tracking and cascade: P(path | result)',
    paper: [`RAW-RAG ${points(path.rawRag)} %`, ...path.others.map((o) => `${o.system} ${points(o.value)} %`)].join(', '),
    paperValue: path.rawRag,
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
    personaMem(),
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
