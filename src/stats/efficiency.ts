/**
 * The efficiency table, one row per run directory (benchmark x system): add (ingest) time, search
 * time per question, LLM tokens and dollars spent at ingest, and the store's size where the system
 * reports one — read from the items (each carries its share of building the index it searched, so
 * resumed runs add up) and summary.json. The paper's efficiency figures are printed beside.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { markdownTable } from '../util/table.js';

export interface EfficiencyRow {
  benchmark: string;
  system: string;
  setting: string;
  dir: string;
  questions: number;
  /** Σ items' share of building their index, seconds. */
  add_s: number;
  /** Mean search (evidence) time per question, ms. */
  search_ms_per_question: number | null;
  /** add + Σ search, seconds (the paper's "add + search"). */
  add_plus_search_s: number;
  /** LLM tokens spent at ingest (extraction, summaries), from the items' ingest figures. */
  ingest_llm_tokens: number;
  /** Dollars at ingest as the system reports them (null = unknown or none reported). */
  ingest_cost_usd: number | null;
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

const parse = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8').replace(/^\uFEFF/, ''));

function readEfficiency(dir: string): EfficiencyRow | null {
  const manifestFile = join(dir, 'manifest.json');
  const itemsFile = join(dir, 'items.jsonl');
  if (!existsSync(manifestFile) || !existsSync(itemsFile)) return null;
  const manifest = parse(manifestFile) as { benchmark: string; system: string; setting: string };
  const summaryFile = join(dir, 'summary.json');
  const summary = existsSync(summaryFile) ? (parse(summaryFile) as Record<string, unknown>) : {};
  let add = 0;
  let search = 0;
  let searched = 0;
  let tokens = 0;
  let n = 0;
  for (const line of readFileSync(itemsFile, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    let item: { timings?: Record<string, number>; error?: unknown };
    try {
      item = JSON.parse(line);
    } catch {
      continue; // a torn last line: stats' loader reports it
    }
    n++;
    const t = item.timings ?? {};
    add += t.ingest_share_ms ?? 0;
    if (typeof t.retrieve_ms === 'number') {
      search += t.retrieve_ms;
      searched++;
    }
    for (const [k, v] of Object.entries(t)) if (/^ingest_.*_tokens$/.test(k) && typeof v === 'number') tokens += v;
  }
  const { cost, objects } = reportedIngest(summary);
  return {
    benchmark: manifest.benchmark,
    system: manifest.system,
    setting: manifest.setting,
    dir,
    questions: n,
    add_s: add / 1000,
    search_ms_per_question: searched ? search / searched : null,
    add_plus_search_s: (add + search) / 1000,
    ingest_llm_tokens: Math.round(tokens),
    ingest_cost_usd: cost,
    store_objects: objects,
  };
}

/**
 * A system's own summary section (`memory`, `oracle`, `ingest_llm`, ...): the dollars spent at ingest
 * (`ingest.cost_usd`, or over the whole index however many runs built it, `whole_index.cost_usd`),
 * and a store size (`items.stored` or `objects`).
 */
function reportedIngest(summary: Record<string, unknown>): { cost: number | null; objects: number | null } {
  let cost: number | null = null;
  let objects: number | null = null;
  for (const section of Object.values(summary)) {
    if (!section || typeof section !== 'object' || Array.isArray(section)) continue;
    const s = section as Record<string, unknown>;
    const ingest = (s.ingest ?? s.whole_index) as Record<string, unknown> | undefined;
    if (ingest && typeof ingest.cost_usd === 'number') cost = (cost ?? 0) + ingest.cost_usd;
    const items = s.items as Record<string, unknown> | undefined;
    if (items && typeof items.stored === 'number') objects = items.stored;
    else if (typeof s.objects === 'number' && s.objects > 0) objects = s.objects;
  }
  return { cost, objects };
}

export function renderEfficiency(rows: EfficiencyRow[]): string {
  if (rows.length === 0) return '';
  const out = ['## Efficiency (per benchmark and system)', ''];
  out.push(
    markdownTable(
      ['benchmark', 'system', 'n', 'add s', 'search ms/q', 'add + search s', 'ingest LLM tokens', 'ingest $', 'store objects'],
      rows.map((r) => [
        r.benchmark,
        r.system,
        r.questions,
        r.add_s.toFixed(2),
        r.search_ms_per_question === null ? '—' : r.search_ms_per_question.toFixed(1),
        r.add_plus_search_s.toFixed(2),
        r.ingest_llm_tokens,
        r.ingest_cost_usd === null ? '—' : r.ingest_cost_usd.toFixed(4),
        r.store_objects ?? '—',
      ]),
      ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
  );
  out.push(
    '',
    "add = Σ of each question's share of building the index it searched (whole histories added at once per question horizon; resumed runs included); " +
      "search = finding one question's evidence (retrieval, recall or oracle selection), without reading or judging; one-time warm-up excluded.",
  );
  for (const b of [...new Set(rows.map((r) => r.benchmark))]) if (PAPER_EFFICIENCY[b]) out.push(`- ${PAPER_EFFICIENCY[b]}`);
  out.push('');
  return out.join('\n');
}
