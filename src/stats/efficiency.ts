/**
 * The efficiency table, one row per run directory (benchmark x system): the wall time of each phase
 * (adding the histories to the index, finding evidence, and the time either ran), the mean search
 * latency per question, the LLM work at ingest — tokens and dollars from the same calls, the calls
 * really sent and those the response cache answered apart — and the store's size where the system
 * reports one. Read from manifest.json (`phase_wall_ms`, summed over the processes that wrote the
 * run), the items (search latency, summed add work) and summary.json (each system's own section).
 * Rows name no system: whatever a system reports in that shape is read. The paper's efficiency
 * figures are printed beside.
 */
import { existsSync } from 'node:fs';
import { ITEMS_FILE, MANIFEST_FILE, readRunItemLines, readRunManifest, readRunSummary, type ExternalManifest } from '../run-files/record.js';
import { join } from 'node:path';
import { markdownTable } from '../util/table.js';
import { ascending, quantileSorted } from '../util/quantile.js';

export interface EfficiencyRow {
  benchmark: string;
  system: string;
  setting: string;
  dir: string;
  questions: number;
  /** Wall time of adding histories to the index, of finding evidence, and of either (seconds); null when the run did not record them. */
  add_wall_s: number | null;
  search_wall_s: number | null;
  add_search_wall_s: number | null;
  /** Processes whose wall times are summed (a resumed run has several). */
  processes: number | null;
  /** Σ items' share of building their index, seconds: summed work (overlapping builds count twice), not time. */
  add_work_s: number;
  /** Mean search (evidence) latency per question, ms; and its p50 / p95 over the questions. */
  search_ms_per_question: number | null;
  search_ms_p50: number | null;
  search_ms_p95: number | null;
  /**
   * A memory service's time from an owner's first add until the service said it was searchable
   * (per owner, seconds: p50, p95, owners), where the system reports one (`timing.add_to_ready_ms`).
   */
  add_to_ready: { p50_s: number; p95_s: number; owners: number } | null;
  /** LLM tokens at ingest of the calls really sent, and of the calls the response cache answered. */
  ingest_llm_tokens: number;
  ingest_llm_tokens_cached: number;
  /** Dollars paid for the calls sent, and what the cached replies would have cost (not paid); null = unknown. */
  ingest_cost_usd: number | null;
  ingest_cost_usd_cached: number | null;
  /** Summed latency of the ingest calls (they overlap; cache hits included): its own figure, never a time. */
  ingest_call_latency_s: number | null;
  /** Objects in the system's store, where it reports them (memory items, oracle objects). */
  store_objects: number | null;
}

/** The paper's efficiency figures, by benchmark (RAW-RAG unless named). */
export const PAPER_EFFICIENCY: Record<string, string> = {
  meme: 'paper: MEME slice (10 episodes, 110 questions) add + search 305.91 s (EMem 1,561.97 s, EverMemOS 9,301.48 s)',
  beam: 'paper: BEAM-1M (1,710 messages, ~1 M tokens) streaming add 0.33 h (MemOS 3.25 h, Memora 26.95 h)',
  memoryagentbench: 'paper: MemoryAgentBench 11 sources add + search 718.4 s, 0 LLM tokens',
};

/** null for a folder whose files cannot be read as rawrag wrote them (external formats: stats' loader reports those). */
export function efficiencyRow(dir: string): EfficiencyRow | null {
  try {
    return readEfficiency(dir);
  } catch {
    return null;
  }
}

function readEfficiency(dir: string): EfficiencyRow | null {
  if (!existsSync(join(dir, MANIFEST_FILE)) || !existsSync(join(dir, ITEMS_FILE))) return null;
  // Through the run record (src/run-files/record.ts); a torn last line is skipped (stats' loader reports it).
  const manifest = readRunManifest(dir).manifest as ExternalManifest & {
    phase_wall_ms?: { ingest?: number; search?: number; add_search?: number; processes?: number };
  };
  const summary: Record<string, unknown> = readRunSummary(dir) ?? {};
  let add = 0;
  const searches: number[] = [];
  let n = 0;
  for (const { item: line } of readRunItemLines(dir)) {
    const item = line as { timings?: Record<string, number>; error?: unknown };
    n++;
    const t = item.timings ?? {};
    add += t.ingest_share_ms ?? 0;
    if (typeof t.retrieve_ms === 'number') searches.push(t.retrieve_ms);
  }
  const walls = manifest.phase_wall_ms;
  const s = (ms: number | undefined) => (typeof ms === 'number' ? ms / 1000 : null);
  const ingest = reportedIngest(summary);
  return {
    benchmark: manifest.benchmark,
    system: manifest.system,
    setting: manifest.setting,
    dir,
    questions: n,
    add_wall_s: s(walls?.ingest),
    search_wall_s: s(walls?.search),
    add_search_wall_s: s(walls?.add_search),
    processes: walls?.processes ?? null,
    add_work_s: add / 1000,
    search_ms_per_question: searches.length ? searches.reduce((a, b) => a + b, 0) / searches.length : null,
    search_ms_p50: nearestRank(searches, 0.5),
    search_ms_p95: nearestRank(searches, 0.95),
    add_to_ready: addToReady(summary),
    ...ingest,
  };
}

/** The q-quantile by nearest rank (null for none). */
function nearestRank(xs: number[], q: number): number | null {
  return xs.length === 0 ? null : quantileSorted(ascending(xs), q, 'nearest-rank');
}

/** A section's `timing.add_to_ready_ms` ({n, p50, p95} in ms), as a memory service reports it. */
function addToReady(summary: Record<string, unknown>): EfficiencyRow['add_to_ready'] {
  for (const section of Object.values(summary)) {
    const t = (section as { timing?: { add_to_ready_ms?: { n?: number; p50?: number; p95?: number } | null } } | null)?.timing
      ?.add_to_ready_ms;
    if (t && typeof t.p50 === 'number' && typeof t.p95 === 'number') return { p50_s: t.p50 / 1000, p95_s: t.p95 / 1000, owners: t.n ?? 0 };
  }
  return null;
}

interface CallGroup {
  calls?: number;
  prompt_tokens?: number;
  completion_tokens?: number;
  cost_usd?: number | null;
}

const tokensOf = (g: CallGroup) => (g.prompt_tokens ?? 0) + (g.completion_tokens ?? 0);
const sumCost = (a: number | null, b: number | null | undefined) => (a === null || b === null || b === undefined ? null : a + b);

/**
 * A system's own summary section (`memory`, `oracle`, `ingest_llm`, ...): its ingest LLM work in
 * `ingest` or, over the whole index however many runs built it, `whole_index`. With `sent` and
 * `cached` groups ({calls, prompt_tokens, completion_tokens, cost_usd}) both halves are read; a
 * section without them reports the calls it sent (its tokens and dollars together). A store size
 * is `items.stored` or `objects`.
 */
function reportedIngest(
  summary: Record<string, unknown>,
): Pick<
  EfficiencyRow,
  | 'ingest_llm_tokens'
  | 'ingest_llm_tokens_cached'
  | 'ingest_cost_usd'
  | 'ingest_cost_usd_cached'
  | 'ingest_call_latency_s'
  | 'store_objects'
> {
  const out = {
    ingest_llm_tokens: 0,
    ingest_llm_tokens_cached: 0,
    ingest_cost_usd: null as number | null,
    ingest_cost_usd_cached: null as number | null,
    ingest_call_latency_s: null as number | null,
    store_objects: null as number | null,
  };
  let reported = false;
  for (const section of Object.values(summary)) {
    if (!section || typeof section !== 'object' || Array.isArray(section)) continue;
    const sec = section as Record<string, unknown>;
    const ingest = (sec.ingest ?? sec.whole_index) as (CallGroup & { sent?: CallGroup; cached?: CallGroup; ms?: number }) | undefined;
    if (ingest && typeof ingest === 'object' && (typeof ingest.cost_usd === 'number' || ingest.cost_usd === null || ingest.sent)) {
      const sent = ingest.sent ?? ingest;
      const cached = ingest.cached ?? { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 };
      out.ingest_llm_tokens += tokensOf(sent);
      out.ingest_llm_tokens_cached += tokensOf(cached);
      out.ingest_cost_usd = sumCost(reported ? out.ingest_cost_usd : 0, sent.cost_usd);
      out.ingest_cost_usd_cached = sumCost(reported ? out.ingest_cost_usd_cached : 0, cached.cost_usd);
      if (typeof ingest.ms === 'number') out.ingest_call_latency_s = (out.ingest_call_latency_s ?? 0) + ingest.ms / 1000;
      reported = true;
    }
    const items = sec.items as Record<string, unknown> | undefined;
    if (items && typeof items.stored === 'number') out.store_objects = items.stored;
    else if (typeof sec.objects === 'number' && sec.objects > 0) out.store_objects = sec.objects;
  }
  return out;
}

/** Seconds in the unit that fits: `0.42 s`, `12.3 min`, `3.10 h`. */
export function fitSeconds(s: number | null): string {
  if (s === null) return '—';
  if (s < 120) return `${s.toFixed(s < 10 ? 2 : 1)} s`;
  if (s < 7200) return `${(s / 60).toFixed(1)} min`;
  return `${(s / 3600).toFixed(2)} h`;
}

const usd = (x: number | null) => (x === null ? '—' : `$${x.toFixed(4)}`);

export function renderEfficiency(rows: EfficiencyRow[]): string {
  if (rows.length === 0) return '';
  const out = ['## Efficiency (per benchmark and system)', ''];
  out.push(
    markdownTable(
      [
        'benchmark',
        'system',
        'n',
        'add (wall)',
        'search (wall)',
        'add + search (wall)',
        'search ms/q (mean; p50 / p95)',
        'first add → searchable (p50 / p95)',
        'ingest LLM tokens sent',
        'ingest $ paid',
        'tokens from cache',
        '$ of cached replies (not paid)',
        'store objects',
      ],
      rows.map((r) => [
        r.benchmark,
        r.system,
        r.questions,
        fitSeconds(r.add_wall_s),
        fitSeconds(r.search_wall_s),
        fitSeconds(r.add_search_wall_s),
        r.search_ms_per_question === null
          ? '—'
          : `${r.search_ms_per_question.toFixed(1)}; ${r.search_ms_p50!.toFixed(0)} / ${r.search_ms_p95!.toFixed(0)}`,
        r.add_to_ready
          ? `${fitSeconds(r.add_to_ready.p50_s)} / ${fitSeconds(r.add_to_ready.p95_s)} (${r.add_to_ready.owners} owners)`
          : '—',
        r.ingest_llm_tokens,
        usd(r.ingest_cost_usd),
        r.ingest_llm_tokens_cached,
        usd(r.ingest_cost_usd_cached),
        r.store_objects ?? '—',
      ]),
      ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
  );
  out.push(
    '',
    'add, search = the wall time each phase ran (adding histories to the index; finding evidence: retrieval, recall or oracle selection, ' +
      "without reading or judging), summed over the processes that wrote the run; add + search = the time either ran. '—': a run written " +
      "before phase times were recorded. One-time warm-up excluded. First add → searchable: a memory service's time per owner from its first " +
      'add until the service said its memories were searchable (a flush, a scheduler wait, task polling). ' +
      'Ingest tokens and dollars come from the same calls: those sent to the ' +
      'provider, and apart those the response cache answered (their tokens, and what they would have cost; nothing was paid for them).',
  );
  const latency = rows.filter((r) => r.ingest_call_latency_s !== null);
  if (latency.length)
    out.push(
      `summed ingest call latency (calls overlap and cache hits count: not a time): ${latency.map((r) => `${r.system} ${fitSeconds(r.ingest_call_latency_s)}`).join('; ')}`,
    );
  for (const b of [...new Set(rows.map((r) => r.benchmark))]) if (PAPER_EFFICIENCY[b]) out.push(`- ${PAPER_EFFICIENCY[b]}`);
  out.push('');
  return out.join('\n');
}
