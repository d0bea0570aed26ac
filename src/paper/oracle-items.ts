/**
 * The reproduction map's oracle and evidence-control items (src/paper/items.ts): the complete-store
 * and phase-visible oracles, and the evidence-budget controls.
 */
import type { RunSetting, SettingSpec } from '../core/comparability.js';
import { figure, figureEntry, figureField, paperFigures, points, range } from '../benchmarks/paper-figures.js';
import { listSystems } from '../systems/registry.js';
import { officialJudge, rowSpec } from './rows.js';
import { headline } from './figures.js';
import { rawRag, row, UNNAMED } from './item-common.js';
import type { PaperItem, PaperStep } from './item-types.js';

const LOCOMO = row('locomo', 'gpt-4o-mini');

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

export function oracles(): PaperItem[] {
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
  const oracle = paperFigures().storeOracle;
  const complete: PaperItem[] = [
    {
      id: 'oracle/raw',
      section: 'complete-store oracle',
      title: 'raw-evidence oracle (gold-picked raw turns packed to fill the 5,000-token budget)',
      paper: `${points(oracle.raw)} % (the summary does not name the benchmark)`,
      paperValue: oracle.raw,
      command: `rawrag run locomo --system ${ORACLE_NAME} -S store=raw --reader gpt-4o-mini`,
      steps: [rawStep],
      run: { spec: spec([isRaw, budget(5000), packing]), figure: headline('the oracle’s evidence') },
    },
    {
      id: 'oracle/store-vs-raw',
      section: 'complete-store oracle',
      title: "a system's complete store, gold-picked, 5,000 tokens, against the raw-evidence oracle (paired)",
      paper: `${oracle.stores.map((o) => `${o.system} ${points(o.accuracy)}`).join(', ')} (all below ${points(oracle.raw)})`,
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
      paper: `gaps ${range(oracle.uncappedGaps, points)} points, CIs excluding 0`,
      command: `rawrag run locomo --system ${ORACLE_NAME} -S store=RUN_DIR --max-evidence-tokens 0 --reader gpt-4o-mini   (and -S store=raw --max-evidence-tokens 0)`,
      note: storeNote,
      run: {
        spec: spec([isStore, budget(0), packing]),
        figure: headline('the store’s evidence'),
        against: spec([isRaw, budget(0), packing]),
      },
    },
  ];
  const phase: PaperItem[] = Object.entries(paperFigures().phaseVisible)
    .map(([reader, f]) => {
      const parts = Object.entries(f.parts);
      // With more than one part named, the headline is called `overall`.
      const paper = `${points(f.overall)} %${parts.length > 1 ? ' overall' : ''} (${parts.map(([k, v]) => `${k} ${points(v)}`).join(', ')})`;
      return { reader, paper, value: f.overall };
    })
    .map((p) => ({
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

/** A 5k-budget control's paired difference from figures.json (`+1.67`). */
const control = (id: string) => figureEntry(paperFigures().controls, 'controls', id);

export function controls(): PaperItem[] {
  const locomoControl = control('locomo-5k');
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
      paper: points(control('lme-no-expand-5k').delta, true),
      paperValue: control('lme-no-expand-5k').delta,
      command: 'rawrag ablate --config configs/controls/longmemeval-gpt-4.1-mini-5k.yaml --no-expand --dedup',
      steps: [lme],
      ablation: { spec: lmeSpec, variants: (n) => n === 'no-expand' },
    },
    {
      id: 'control/display-dedup',
      section: 'evidence controls',
      title: 'naive display-turn dedup (5,000-token budget)',
      paper: points(control('display-dedup').delta, true),
      paperValue: control('display-dedup').delta,
      command: 'rawrag ablate --config configs/controls/longmemeval-gpt-4.1-mini-5k.yaml --no-expand --dedup',
      note: "the reference is the paper's display (shared turns repeated); the variant `dedup` shows each turn once",
      steps: [lme],
      ablation: { spec: lmeSpec, variants: (n) => n === 'dedup' },
    },
    {
      id: 'control/locomo-5k',
      section: 'evidence controls',
      title: 'LoCoMo, 5,000-token budget, and the share of the delta from questions whose evidence did not change (judge noise)',
      paper: `${figure(locomoControl.delta, true)}, mostly from the ${figure(figureField(locomoControl.unchangedQuestions, 'controls.locomo-5k.unchangedQuestions'))} questions whose evidence did not change (judge noise, not tested)`,
      paperValue: locomoControl.delta,
      command: 'rawrag ablate --config configs/paper/locomo-gpt-4o-mini.yaml --max-evidence-tokens 5000 --rejudge-unchanged',
      note: 'without --rejudge-unchanged the answers of unchanged evidence are reused and their share of the delta is 0 by construction',
      steps: [locomo],
      ablation: { spec: rowSpec(LOCOMO), variants: (n) => n === 'max-evidence=5000', rejudgeUnchanged: true },
    },
  ];
}
