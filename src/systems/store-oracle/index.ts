/**
 * The store oracle (docs/diagnostics.md): evidence chosen with gold knowledge from a complete
 * store (`-S store=raw | RUN_DIR | STORE.jsonl`), packed to `--max-evidence-tokens` (default 5000),
 * in the benchmark's order. Against the raw-evidence oracle (`-S store=raw`) it measures what a
 * system lost at ingest; `-S phaseVisible=true` is MEME's phase-visible oracle (every gold-relevant raw
 * turn visible at the question, chronological, no budget).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { SystemDescriptor } from '../../core/system.js';
import type { ModelEntry } from '../../providers/models.js';
import type { ProviderSession } from '../../providers/session.js';
import { InputError, UsageError } from '../../util/errors.js';
import { ORACLE_SECTION, OracleSchema, oracleBudget, oracleConfig } from './config.js';
import { storeOracleSource } from './source.js';
import { loadStore } from './stores.js';

export const storeOracle: SystemDescriptor<ProviderSession, ModelEntry> = {
  name: 'store-oracle',
  description: 'evidence chosen with gold knowledge from a complete store (-S store=raw | RUN_DIR | STORE.jsonl), packed to a budget',
  about: { kind: 'oracle' },
  oracle: true,
  config: { key: ORACLE_SECTION, schema: OracleSchema },
  checkQuestions(cfg, questions) {
    // Phases are visibility horizons (a question sees the history fed so far): without them the flag would change nothing.
    if (oracleConfig(cfg).phaseVisible && questions.length > 0 && questions.every((q) => q.visibleTurns === null))
      throw new UsageError(
        `-S phaseVisible=true: the questions of ${cfg.benchmark} have no phases (each sees the whole history), so it would change nothing; ` +
          'it is the phase-visible oracle of a benchmark whose questions see the history fed so far (MEME). ' +
          'The whole raw history, gold first, is -S store=raw --max-evidence-tokens 0',
      );
  },
  async create(cfg, _session, ctx) {
    const o = oracleConfig(cfg);
    const store = loadStore(o.store, (runDir) => {
      if (!existsSync(join(runDir, 'manifest.json')))
        throw new InputError('not a run directory (no manifest.json)', { file: runDir, place: '-S store' });
      if (!ctx.systemOfRun) throw new Error('store oracle: created without a way to read run directories');
      return ctx.systemOfRun(runDir);
    });
    return storeOracleSource(store, {
      budget: oracleBudget(cfg, o),
      phaseVisible: o.phaseVisible,
      packing: o.phaseVisible ? 'relevant' : o.packing,
    });
  },
  estimate({ cfg, groups }) {
    // No provider calls; the evidence shown is at most the budget (for the raw store: the gold turns).
    const o = oracleConfig(cfg);
    const budget = oracleBudget(cfg, o) ?? Infinity;
    const evidenceTokens = new Map<string, number>();
    for (const { ep, questions } of groups) {
      const index = new Map(ep.episode.turns.map((t, i) => [t.id, i]));
      for (const q of questions) {
        const gold = q.evidence.map((id) => index.get(id)).filter((t): t is number => t !== undefined && t < ep.visibleTurns);
        const goldTokens = gold.reduce((s, t) => s + ep.turnTokenStart[t + 1]! - ep.turnTokenStart[t]!, 0);
        const history = ep.turnTokenStart[ep.turnTokenStart.length - 1]!;
        // Packing `fill` fills the budget (the history, where shorter); `relevant` shows the gold turns.
        const relevantOnly = o.phaseVisible || o.packing === 'relevant';
        evidenceTokens.set(q.id, Math.min(o.store === 'raw' && gold.length && relevantOnly ? goldTokens : history, budget));
      }
    }
    return {
      rows: [],
      evidenceTokens,
      notes: [
        o.packing === 'fill' && !o.phaseVisible
          ? 'store oracle: no provider calls; evidence fills the budget (the history where shorter)'
          : 'store oracle: no provider calls; evidence tokens are an upper bound (the budget) except for raw gold turns',
      ],
    };
  },
  summaryLines(summary) {
    const o = summary.oracle as Record<string, number | string | boolean | null> | undefined;
    if (!o) return [];
    return [
      `store oracle: store ${String(o.store)}${o.objects ? ` (${o.objects} objects)` : ''}, budget ${o.budget === null ? 'none' : `${o.budget} tokens`}, ` +
        `packing ${o.packing === 'relevant' ? 'relevant objects only' : o.packing === 'fill' ? 'filled to the budget' : 'relevant objects only (a run written before packing was a choice)'}; ` +
        `${o.kept} objects shown over ${o.questions} questions (${o.filled ?? 0} of them filling the budget after the relevant ones); ` +
        `${o.without_relevant} questions with no relevant object; ${o.cut_by_budget} with relevant objects cut by the budget`,
    ];
  },
};
