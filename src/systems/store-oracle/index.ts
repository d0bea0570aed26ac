/**
 * The store oracle (docs/diagnostics.md): evidence chosen with gold knowledge from a complete
 * store (`--store raw | RUN_DIR | STORE.jsonl`), packed to `--max-evidence-tokens` (default 5000),
 * in the benchmark's order. Against the raw-evidence oracle (`--store raw`) it measures what a
 * system lost at ingest; `--phase-visible` is MEME's phase-visible oracle (every gold-relevant raw
 * turn visible at the question, chronological, no budget).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { SystemDescriptor } from '../../core/system.js';
import type { ModelEntry } from '../../providers/models.js';
import type { ProviderSession } from '../../providers/session.js';
import { InputError } from '../../util/errors.js';
import { ORACLE_SECTION, OracleSchema, oracleBudget, oracleConfig } from './config.js';
import { storeOracleSource } from './source.js';
import { loadStore } from './stores.js';

export const storeOracle: SystemDescriptor<ProviderSession, ModelEntry> = {
  name: 'store-oracle',
  description: 'evidence chosen with gold knowledge from a complete store (--store raw | RUN_DIR | STORE.jsonl), packed to a budget',
  about: { kind: 'oracle' },
  oracle: true,
  config: { key: ORACLE_SECTION, schema: OracleSchema },
  options: [
    {
      flags: '--store <store>',
      description: "raw (the raw history; default) | a run directory (its system's whole store) | an exported store .jsonl",
      config: ['oracle', 'store'],
    },
    {
      flags: '--phase-visible',
      description: "MEME's phase-visible oracle: every gold-relevant raw turn visible at the question, chronological, no budget",
      config: ['oracle', 'phaseVisible'],
    },
  ],
  async create(cfg, _session, ctx) {
    const o = oracleConfig(cfg);
    const store = loadStore(o.store, (runDir) => {
      if (!existsSync(join(runDir, 'manifest.json')))
        throw new InputError('not a run directory (no manifest.json)', { file: runDir, place: '--store' });
      if (!ctx.systemOfRun) throw new Error('store oracle: created without a way to read run directories');
      return ctx.systemOfRun(runDir);
    });
    return storeOracleSource(store, { budget: oracleBudget(cfg, o), phaseVisible: o.phaseVisible });
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
        evidenceTokens.set(q.id, Math.min(o.store === 'raw' && gold.length ? goldTokens : history, budget));
      }
    }
    return {
      rows: [],
      evidenceTokens,
      notes: ['store oracle: no provider calls; evidence tokens are an upper bound (the budget) except for raw gold turns'],
    };
  },
  summaryLines(summary) {
    const o = summary.oracle as Record<string, number | string | boolean | null> | undefined;
    if (!o) return [];
    return [
      `store oracle: store ${String(o.store)}${o.objects ? ` (${o.objects} objects)` : ''}, budget ${o.budget === null ? 'none' : `${o.budget} tokens`}; ` +
        `${o.kept} objects shown over ${o.questions} questions; ${o.without_relevant} questions with no relevant object; ${o.cut_by_budget} cut by the budget`,
    ];
  },
};
