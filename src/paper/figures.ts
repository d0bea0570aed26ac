/**
 * What `rawrag paper` reads from a run directory, per item: the run as the map sees it, and the
 * figures (headline, a question type's or column's accuracy, coverage, evidence length, efficiency,
 * the write audit, judge variance), each with the measure it is and its unit. Accuracies of types
 * and columns and every paired difference come from `rawrag stats`'s own computation
 * (src/stats/compute-tables.ts, the benchmark's aggregation), supplied by the map as `FigureContext`.
 */
import { readRunItemLines } from '../run-files/record.js';
import type { RunConfig } from '../config/schema.js';
import type { ManifestView, RunSetting } from '../core/comparability.js';
import { RUN_HEADLINE } from '../benchmarks/paper-rows.js';
import type { AgreementRow, SystemRow } from '../stats/compute-tables.js';
import { fitSeconds, type EfficiencyRow } from '../stats/efficiency.js';
import { decisionSource } from '../memory-audit/sources.js';
import { auditDecisions, type WriteAudit } from '../memory-audit/write-audit.js';

/** What a manifest says about a run, as the map reads it. */
export interface RunFacts {
  dir: string;
  benchmark: string;
  /** The manifest's system label (`RAW-RAG/openai:...`). */
  system: string;
  manifest: ManifestView & Record<string, unknown>;
  setting: RunSetting;
  config: RunConfig;
  summary: Record<string, unknown> | null;
}

/** `rawrag stats`'s computation over run directories, as the figures need it. */
export interface FigureContext {
  /** The run's leaderboard row (its headline, per-type and per-column accuracies with the benchmark's aggregation). */
  leaderboard(r: RunFacts): SystemRow | null;
  /** The run's judge agreement and judge-variance row. */
  agreement(r: RunFacts): AgreementRow | null;
  efficiency(r: RunFacts): EfficiencyRow | null;
}

/** The unit of a figure: percent, points, tokens, seconds (printed in s, min or h, whichever fits), a p-value. */
export type Unit = 'percent' | 'points' | 'tokens' | 'million tokens' | 'seconds';

export interface Figure {
  /** What the number is, e.g. `accuracy % (four-competency macro)`. */
  measure: string;
  unit: Unit;
  read(r: RunFacts, ctx: FigureContext): number | null;
  /** A few words beside it (each judge run's accuracy, the effective rate, the reader used). */
  text?(r: RunFacts, ctx: FigureContext): string | null;
  /** Its 95 % interval in the same unit (`rawrag stats`'s, the benchmark's aggregation); absent where none applies (the item's tolerance does). */
  interval?(r: RunFacts, ctx: FigureContext): [number, number] | null;
}

const cellInterval = (cell: { ci_low: number; ci_high: number } | null | undefined): [number, number] | null =>
  cell && Number.isFinite(cell.ci_low) && Number.isFinite(cell.ci_high) ? [100 * cell.ci_low, 100 * cell.ci_high] : null;

export const at = (obj: unknown, path: readonly string[]): number | null => {
  let v: unknown = obj;
  for (const p of path) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[p] : undefined;
  return typeof v === 'number' ? v : null;
};

/** The headline of a run as the paper reports it (percent): the summary's, else the stats leaderboard's overall. */
export function headlinePercent(r: RunFacts, ctx?: FigureContext): number | null {
  const where = RUN_HEADLINE[r.benchmark];
  const v = where ? at(r.summary, where.path) : null;
  if (v !== null) return v * where!.toPercent;
  const overall = ctx?.leaderboard(r)?.columns.overall?.accuracy;
  return typeof overall === 'number' ? 100 * overall : null;
}

export const headline = (what: string): Figure => ({
  measure: `accuracy % (${what})`,
  unit: 'percent',
  read: headlinePercent,
  interval: (r, ctx) => cellInterval(ctx.leaderboard(r)?.columns.overall),
});

/** A question type's or a headline column's accuracy (stats: the benchmark's aggregation and cross-item rules). */
export const columnFigure = (column: string, label: string): Figure => ({
  measure: `accuracy % (${label})`,
  unit: 'percent',
  read: (r, ctx) => {
    const row = ctx.leaderboard(r);
    const cell = row?.by_type[column] ?? row?.columns[column] ?? null;
    return cell ? 100 * cell.accuracy : null;
  },
  interval: (r, ctx) => {
    const row = ctx.leaderboard(r);
    return cellInterval(row?.by_type[column] ?? row?.columns[column] ?? null);
  },
});

export const coverageFigure: Figure = {
  measure: 'coverage all %',
  unit: 'percent',
  read: (r) => {
    const v = at(r.summary, ['overall', 'coverage', 'all']);
    return v === null ? null : 100 * v;
  },
};

export const evidenceTokensFigure: Figure = {
  measure: 'mean evidence tokens per question',
  unit: 'tokens',
  read: (r) => at(r.summary, ['evidence_tokens_mean']),
};

/** Wall time of add (ingest) + search, or of add alone; the summed per-question work is never shown as time here. */
export const wallFigure = (phase: 'add' | 'add + search'): Figure => ({
  measure: `${phase} (wall time)`,
  unit: 'seconds',
  read: (r, ctx) => {
    const e = ctx.efficiency(r);
    return (phase === 'add' ? e?.add_wall_s : e?.add_search_wall_s) ?? null;
  },
  text: (r, ctx) => {
    const e = ctx.efficiency(r);
    if (!e) return null;
    if (e.add_wall_s === null) return 'no phase wall time recorded (a run written before it was)';
    return `ingest LLM tokens ${e.ingest_llm_tokens + e.ingest_llm_tokens_cached}`;
  },
});

/** Conversations (episodes) a run's items came from: items.jsonl's `episode`. */
function conversations(dir: string): number {
  try {
    const eps = new Set<string>();
    for (const { item } of readRunItemLines(dir)) if (typeof item.episode === 'string') eps.add(item.episode);
    return eps.size;
  } catch {
    return 0;
  }
}

/**
 * Add (ingest) wall time per conversation: the run's add wall time over the conversations it
 * ingested. The paper's BEAM-1M figure is one conversation's (1,710 messages); a run of the split
 * holds many, so its total is never set beside it.
 */
export const wallPerConversationFigure: Figure = {
  measure: 'add wall time per conversation (the run’s add wall time / its conversations)',
  unit: 'seconds',
  read: (r, ctx) => {
    const add = ctx.efficiency(r)?.add_wall_s ?? null;
    const n = conversations(r.dir);
    return add === null || n === 0 ? null : add / n;
  },
  text: (r, ctx) => {
    const e = ctx.efficiency(r);
    const n = conversations(r.dir);
    if (!e || e.add_wall_s === null) return 'no phase wall time recorded (a run written before it was)';
    return `${n} conversation${n === 1 ? '' : 's'}, add wall time ${fitSeconds(e.add_wall_s)} in all`;
  },
};

/** The ingest LLM work of an add-on: every call that built the index (sent and answered by the cache alike), and its wall time. */
export const ingestCostFigure: Figure = {
  measure: 'ingest LLM tokens (millions, every call)',
  unit: 'million tokens',
  read: (r, ctx) => {
    const e = ctx.efficiency(r);
    return e ? (e.ingest_llm_tokens + e.ingest_llm_tokens_cached) / 1e6 : null;
  },
  text: (r, ctx) => {
    const e = ctx.efficiency(r);
    if (!e) return null;
    const m = (x: number) => `${(x / 1e6).toFixed(2)} M`;
    return `${m(e.ingest_llm_tokens)} sent, ${m(e.ingest_llm_tokens_cached)} from the cache; ingest wall time ${e.add_wall_s === null ? 'not recorded' : fitSeconds(e.add_wall_s)}`;
  },
};

/** The proposed UPDATE+DELETE share of a run's write-decision log, in percent, with the effective rate beside it. */
export const auditFigure: Figure = {
  measure: 'proposed UPDATE+DELETE % of write decisions',
  unit: 'percent',
  read: (r) => audit(r)?.proposed ?? null,
  text: (r) => {
    const a = audit(r);
    return a ? `effective ${a.effective.toFixed(2)} % of ${a.n.toLocaleString('en-US')} decisions` : null;
  },
};

function audit(r: RunFacts): { proposed: number; effective: number; n: number } | null {
  const t = fullAudit(r);
  return t ? { proposed: 100 * t.proposed_mutation_rate, effective: 100 * t.effective_mutation_rate, n: t.decisions } : null;
}

/** `rawrag memory audit`'s table of a run's proposals (its own resamples for the per-conversation intervals), kept per directory. */
const audits = new Map<string, WriteAudit | null>();
function fullAudit(r: RunFacts): WriteAudit | null {
  if (!audits.has(r.dir)) {
    let t: WriteAudit | null = null;
    try {
      // The paper's figure is a share of *proposals*: a service's returned events (no NONE, or only
      // ADD from an add-only version) are another layer and never stand in for it.
      const proposals = decisionSource(r.dir).proposals?.decisions ?? [];
      if (proposals.length) t = auditDecisions(proposals, { source: r.dir, benchmark: r.benchmark, system: r.system });
    } catch {
      t = null;
    }
    audits.set(r.dir, t);
  }
  return audits.get(r.dir)!;
}

/** One operation's share of the proposed write decisions (%), with its count beside it. */
export const auditShareFigure = (op: 'NONE' | 'ADD' | 'UPDATE' | 'DELETE'): Figure => ({
  measure: `proposed ${op} % of write decisions`,
  unit: 'percent',
  read: (r) => {
    const t = fullAudit(r);
    return t && t.decisions ? (100 * t.operations[op]) / t.decisions : null;
  },
  text: (r) => {
    const t = fullAudit(r);
    return t ? `${t.operations[op].toLocaleString('en-US')} of ${t.decisions.toLocaleString('en-US')} decisions` : null;
  },
});

/** The median over conversations of the proposed UPDATE+DELETE rate (%), with its bootstrap interval. */
export const auditMedianFigure: Figure = {
  measure: 'per-conversation median of the proposed UPDATE+DELETE rate %',
  unit: 'percent',
  read: (r) => {
    const t = fullAudit(r);
    return t ? 100 * t.per_episode.proposed.median.value : null;
  },
  interval: (r) => {
    const m = fullAudit(r)?.per_episode.proposed.median;
    return m ? [100 * m.ci_low, 100 * m.ci_high] : null;
  },
  text: (r) => {
    const t = fullAudit(r);
    return t ? `${t.episodes} conversations; effective mean ${(100 * t.per_episode.effective.mean.value).toFixed(2)} %` : null;
  },
};

/** The spread of the judge runs' accuracies (points), with each run's accuracy and Cochran's Q beside it. */
export const judgeVarianceFigure: Figure = {
  measure: 'spread of the judge runs’ accuracies (points; Cochran’s Q beside)',
  unit: 'points',
  read: (r, ctx) => {
    const a = ctx.agreement(r);
    if (!a || a.replicates.length < 2) return null;
    const acc = a.replicates.map((x) => 100 * x.accuracy);
    return Math.max(...acc) - Math.min(...acc);
  },
  text: (r, ctx) => {
    const a = ctx.agreement(r);
    if (!a || a.replicates.length < 2) return null;
    const q = a.replicate_q;
    return (
      `judge runs ${a.replicates.map((x) => (100 * x.accuracy).toFixed(2)).join(' / ')} %` +
      (q ? `; Cochran's Q ${q.q.toFixed(2)} (df ${q.df}), p ${q.p.toFixed(4)}` : '; Cochran’s Q undefined (the runs never disagree)')
    );
  },
};

/** A figure in its unit, for tables. */
export function formatFigure(v: number | null, unit: Unit): string {
  if (v === null) return '—';
  switch (unit) {
    case 'seconds':
      return fitSeconds(v);
    case 'tokens':
      return v.toLocaleString('en-US', { maximumFractionDigits: 1 });
    case 'million tokens':
      return `${v.toFixed(2)} M`;
    case 'points':
      return `${v > 0 ? '+' : ''}${v.toFixed(2)}`;
    default:
      return v.toFixed(2);
  }
}
