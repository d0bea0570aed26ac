/**
 * `rawrag paper`: the reproduction map. For every item of the paper (src/paper/items.ts): the
 * command that regenerates it, the run directories under the given folders (default results/)
 * that hold it, and rawrag's figure beside the paper's — with a paired bootstrap CI where the item
 * is a difference (a store against the raw-evidence oracle; an ablation variant against its
 * reference, read from ablation.json).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { RunConfig } from '../config/schema.js';
import { pairedBootstrap } from '../stats/bootstrap.js';
import { scanRunDirs } from '../stats/load.js';
import { markdownTable } from '../util/table.js';
import { paperItems, type PaperItem, type RunFacts } from './items.js';

export interface PaperEntry {
  id: string;
  section: string;
  title: string;
  paper: string;
  paper_value: number | null;
  command: string | null;
  note: string | null;
  /** Run directories (or ablation folders) holding it, relative to the working directory. */
  runs: string[];
  /** rawrag's figure from the first matching run (the paper's unit), null when none. */
  rawrag: number | null;
  /** For differences: the paired delta (points, micro over questions scored in both) and its 95% CI. */
  delta: { against: string; n: number; delta: number; ci_low: number; ci_high: number } | null;
  status: 'reproduced' | 'runnable' | 'not in rawrag';
}

export interface PaperMap {
  searched: string[];
  entries: PaperEntry[];
}

const readJson = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8').replace(/^\uFEFF/, ''));

/** A run directory written by another version or tool must not stop the map: what cannot be read matches nothing. */
function safely<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

function runFacts(dir: string): RunFacts | null {
  try {
    const m = readJson(join(dir, 'manifest.json')) as {
      benchmark: string;
      system: string;
      setting: string;
      reference?: boolean;
      oracle?: boolean;
      config: RunConfig;
    };
    const summaryFile = join(dir, 'summary.json');
    return {
      dir,
      benchmark: m.benchmark,
      system: m.system,
      setting: m.setting,
      reference: m.reference === true,
      oracle: m.oracle === true,
      config: m.config,
      summary: existsSync(summaryFile) ? (readJson(summaryFile) as Record<string, unknown>) : null,
    };
  } catch {
    return null;
  }
}

/** Ablation folders (holding ablation.json) at or below the paths. */
function ablationDirs(paths: string[]): string[] {
  const out: string[] = [];
  const walk = (d: string, depth: number) => {
    if (existsSync(join(d, 'ablation.json'))) out.push(d);
    if (depth === 0) return;
    for (const name of readdirSync(d).sort()) {
      const child = join(d, name);
      if (!name.startsWith('.') && statSync(child).isDirectory()) walk(child, depth - 1);
    }
  };
  for (const p of paths) if (existsSync(p) && statSync(p).isDirectory()) walk(resolve(p), 3);
  return out;
}

/** Scores by question id (items that were scored and did not fail). */
function scores(dir: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of readFileSync(join(dir, 'items.jsonl'), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const i = JSON.parse(line) as { id: string; score: number | null; error: unknown };
      if (i.error === null && typeof i.score === 'number') out.set(i.id, i.score);
    } catch {
      // a torn last line: the run's own resume repairs it
    }
  }
  return out;
}

function pairedDelta(a: RunFacts, b: RunFacts, seed: number): PaperEntry['delta'] {
  const sa = scores(a.dir);
  const sb = scores(b.dir);
  const ids = [...sa.keys()].filter((id) => sb.has(id)).sort();
  if (ids.length === 0) return null;
  const r = pairedBootstrap(
    ids.map((id) => sa.get(id)!),
    ids.map((id) => sb.get(id)!),
    { resamples: 2000, seed },
  );
  return { against: b.dir, n: ids.length, delta: 100 * r.delta, ci_low: 100 * r.ciLow, ci_high: 100 * r.ciHigh };
}

function ablationEntry(item: PaperItem, folders: string[]): Pick<PaperEntry, 'runs' | 'rawrag' | 'delta'> {
  for (const f of folders) {
    const a = safely(() => readJson(join(f, 'ablation.json')), {}) as { benchmark?: string; table?: Array<Record<string, unknown>> };
    if (a.benchmark !== item.ablation!.benchmark) continue;
    const row = (a.table ?? []).find((r) => typeof r.variant === 'string' && item.ablation!.variant(r.variant));
    if (!row) continue;
    const d = typeof row.delta === 'number' ? 100 * row.delta : null;
    return {
      runs: [f],
      rawrag: d,
      delta:
        d === null
          ? null
          : {
              against: 'the reference variant',
              n: Number(row.paired ?? 0),
              delta: d,
              ci_low: 100 * Number(row.ci_low),
              ci_high: 100 * Number(row.ci_high),
            },
    };
  }
  return { runs: [], rawrag: null, delta: null };
}

export function buildPaperMap(paths: string[], opts: { seed?: number } = {}): PaperMap {
  const existing = paths.filter((p) => existsSync(p));
  const runs = (existing.length ? scanRunDirs(existing).dirs : []).map(runFacts).filter((r): r is RunFacts => r !== null);
  const folders = ablationDirs(existing);
  const rel = (d: string) => relative(process.cwd(), d) || '.';
  const entries = paperItems().map((item): PaperEntry => {
    let found: Pick<PaperEntry, 'runs' | 'rawrag' | 'delta'> = { runs: [], rawrag: null, delta: null };
    if (item.ablation) found = ablationEntry(item, folders);
    else if (item.match) {
      const matching = runs.filter((r) => safely(() => item.match!(r), false));
      // The first run that has the figure (a run without a reader has no accuracy), and the first pair that has scores.
      const figures = matching.map((r) => (item.figure ? safely(() => item.figure!(r), null) : null));
      const firstFigure = figures.find((f) => f !== null) ?? null;
      let delta: PaperEntry['delta'] = null;
      for (const r of item.against ? matching : []) {
        const base = runs.find((b) => b !== r && safely(() => item.against!(b, r), false) && scores(b.dir).size > 0);
        if (base) delta = pairedDelta(r, base, opts.seed ?? 0);
        if (delta) break;
      }
      found = { runs: matching.map((r) => r.dir), rawrag: firstFigure, delta };
    }
    return {
      id: item.id,
      section: item.section,
      title: item.title,
      paper: item.paper,
      paper_value: item.paperValue ?? null,
      command: item.command,
      note: item.note ?? null,
      runs: found.runs.map(rel),
      rawrag: found.rawrag,
      delta: found.delta
        ? { ...found.delta, against: found.delta.against.startsWith('/') ? rel(found.delta.against) : found.delta.against }
        : null,
      status: item.command === null ? 'not in rawrag' : found.runs.length ? 'reproduced' : 'runnable',
    };
  });
  return { searched: existing.map(rel), entries };
}

export function renderPaperMap(map: PaperMap): string {
  const out: string[] = ['# The paper, item by item: how rawrag regenerates each', ''];
  out.push(
    map.searched.length
      ? `Run directories searched: ${map.searched.join(', ')}.`
      : 'No results folder found: every item lists its command; run them, then `rawrag paper` again.',
    '',
  );
  for (const section of [...new Set(map.entries.map((e) => e.section))]) {
    out.push(`## ${section}`, '');
    const es = map.entries.filter((e) => e.section === section);
    out.push(
      markdownTable(
        ['item', 'paper', 'rawrag', 'paired Δ [95% CI]', 'runs', 'command'],
        es.map((e) => [
          e.title,
          e.paper,
          e.rawrag === null ? '—' : e.rawrag.toFixed(2),
          e.delta ? `${e.delta.delta.toFixed(2)} [${e.delta.ci_low.toFixed(2)}, ${e.delta.ci_high.toFixed(2)}] (n ${e.delta.n})` : '—',
          e.runs.length
            ? e.runs.slice(0, 2).join(', ') + (e.runs.length > 2 ? ` (+${e.runs.length - 2})` : '')
            : e.status === 'not in rawrag'
              ? 'not in rawrag'
              : 'none yet',
          e.command === null ? `— ${e.note ?? ''}` : `\`${e.command}\`${e.note ? ` (${e.note})` : ''}`,
        ]),
        ['l', 'l', 'r', 'l', 'l', 'l'],
      ),
      '',
    );
  }
  const counts = { reproduced: 0, runnable: 0, 'not in rawrag': 0 };
  for (const e of map.entries) counts[e.status]++;
  out.push(
    `${map.entries.length} items: ${counts.reproduced} with run directories here, ${counts.runnable} runnable, ${counts['not in rawrag']} not in rawrag.`,
  );
  return out.join('\n');
}
