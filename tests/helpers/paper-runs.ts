/**
 * Run directories as `rawrag run` writes them (manifest.json, items.jsonl, summary.json), made
 * directly for tests of what reads them (`rawrag paper`, `rawrag stats`, the report): a config
 * validated by the real schema, the manifest fields the comparability rule reads (status, question
 * counts, the data's question total, the retriever used), and a summary with the headline where
 * the benchmark's summary keeps it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RunConfigSchema } from '../../src/systems/registry.js';
import { PAPER_RELEASES, RUN_HEADLINE } from '../../src/benchmarks/paper-rows.js';
import { withOfficialJudge } from '../../src/cli/options.js';

export interface FakeItem {
  id: string;
  type: string;
  score: number | null;
  coverage?: boolean | null;
  votes?: number[];
  error?: { stage: string; message: string } | null;
  timings?: Record<string, number>;
  evidence_tokens?: number;
}

export interface FakeRun {
  benchmark: string;
  /** Registered system (default raw-rag, the paper's method). */
  system?: string;
  /** The manifest's system label (default RAW-RAG/<retriever>). */
  label?: string;
  reader: string | null;
  retriever?: string;
  /** Setting-defining options (`gold: 'audited'`), also put in the setting's data half. */
  options?: Record<string, string>;
  /** Further config values (limit, assembly, judge ...), merged over the defaults. */
  config?: Record<string, unknown>;
  items: FakeItem[];
  status?: string;
  /** The data's whole question count (manifest dataset.questions); default the items' count. */
  total?: number;
  finishedAt?: string;
  oracle?: boolean;
  summary?: Record<string, unknown>;
  /** The retriever actually used, when it differs (a fallback). */
  used?: { name: string; stand_in?: boolean };
  /** The data file's sha256 (default the paper's pinned release, where it has one) and load warnings. */
  sha256?: string;
  warnings?: Array<{ place: string; message: string; important?: boolean }>;
  /** Extra manifest fields (an import's `imported_from`). */
  manifest?: Record<string, unknown>;
}

export function writeRun(root: string, name: string, r: FakeRun): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const system = r.system ?? 'raw-rag';
  const retriever = r.retriever ?? 'openai';
  const config = withOfficialJudge(
    RunConfigSchema.parse({
      benchmark: r.benchmark,
      system,
      options: r.options ?? {},
      reader: { model: r.reader },
      retrieval: { retriever },
      ...r.config,
    }),
  );
  const data = [r.benchmark, ...Object.entries(r.options ?? {}).map(([k, v]) => `${k}=${v}`)].join('/');
  const errors = r.items.filter((i) => i.error).length;
  const reference = system === 'raw-rag';
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify({
      format: 'rawrag.run/1',
      run_id: name,
      system: r.label ?? (reference ? `RAW-RAG/${retriever}` : `${system}/${retriever}`),
      ...(reference ? { reference: true } : {}),
      ...(r.oracle ? { oracle: true } : {}),
      benchmark: r.benchmark,
      setting: `${data}/${r.reader ?? 'no-reader'}`,
      status: r.status ?? 'complete',
      config_hash: name,
      config,
      retriever: r.used ?? { name: retriever, notes: [] },
      dataset: {
        path: 'x',
        sha256: r.sha256 ?? PAPER_RELEASES[r.benchmark]?.sha256 ?? 'x',
        bytes: 0,
        version: 'x',
        warnings: r.warnings ?? [],
        questions: r.total ?? r.items.length,
      },
      questions: { selected: r.items.length, done: r.items.length, errors },
      created_at: r.finishedAt ?? '2026-01-01T00:00:00.000Z',
      updated_at: r.finishedAt ?? '2026-01-01T00:00:00.000Z',
      finished_at: r.finishedAt ?? '2026-01-01T00:00:00.000Z',
      timings: {},
      ...r.manifest,
    }),
  );
  writeFileSync(
    join(dir, 'items.jsonl'),
    r.items
      .map((i) =>
        JSON.stringify({
          id: i.id,
          benchmark: r.benchmark,
          episode: i.id.split(':')[0],
          type: i.type,
          score: i.score,
          coverage: i.coverage === undefined || i.coverage === null ? null : { all: i.coverage, any: i.coverage },
          evidence_turns: [],
          evidence_tokens: i.evidence_tokens ?? 100,
          error: i.error ?? null,
          timings: i.timings ?? {},
          details: i.votes ? { judge: { votes: i.votes, model: config.judge.model } } : {},
        }),
      )
      .join('\n') + '\n',
  );
  const scored = r.items.filter((i) => !i.error && i.score !== null);
  const mean = scored.length ? scored.reduce((a, i) => a + i.score!, 0) / scored.length : null;
  const covered = r.items.filter((i) => i.coverage !== undefined && i.coverage !== null);
  const summary: Record<string, unknown> = {
    n: r.items.length,
    errors,
    overall: {
      accuracy: mean,
      scored: scored.length,
      coverage: { all: covered.length ? covered.filter((i) => i.coverage).length / covered.length : null },
    },
    evidence_tokens_mean: r.items.reduce((a, i) => a + (i.evidence_tokens ?? 100), 0) / Math.max(1, r.items.length),
  };
  const where = RUN_HEADLINE[r.benchmark];
  if (where && mean !== null && where.path[0] !== 'overall') {
    let node = summary as Record<string, unknown>;
    for (const p of where.path.slice(0, -1)) node = (node[p] ??= {}) as Record<string, unknown>;
    node[where.path[where.path.length - 1]!] = (mean * 100) / where.toPercent;
  }
  writeFileSync(join(dir, 'summary.json'), JSON.stringify({ ...summary, ...r.summary }));
  return dir;
}

/** `n` LoCoMo-shaped items: every `wrongEvery`-th one wrong. */
export function locomoItems(n: number, wrongEvery = 4, prefix = 'conv-1:q'): FakeItem[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${prefix}${i}`,
    type: 'single-hop',
    score: i % wrongEvery === 0 ? 0 : 1,
    coverage: i % 5 !== 0,
    votes: i % wrongEvery === 0 ? [0, 0, 0] : [1, 1, 1],
  }));
}
