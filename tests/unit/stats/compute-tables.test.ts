import { describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyse, binarise, type StatsOptions } from '../../../src/stats/compute-tables.js';
import { findRunDirs, loadRun, type LoadedRun, type StatItem } from '../../../src/stats/load.js';
import { holm, mcnemarExact } from '../../../src/stats/index.js';
import { InputError } from '../../../src/util/errors.js';
import { tempDir } from '../../helpers/cli.js';
import { listBenchmarks } from '../../../src/benchmarks/registry.js';

// The adapters' aggregations, as `rawrag stats` passes them.
const OPTS: StatsOptions = {
  resamples: 2000,
  seed: 0,
  allPairs: false,
  aggregation: (b) => listBenchmarks().find((x) => x.name === b)?.aggregation,
};

function item(id: string, score: number | null, type: string | null, extra: Partial<StatItem> = {}): StatItem {
  return { id, score, type, coverage: null, votes: null, episode: null, meta: null, error: null, ...extra };
}

function run(system: string, items: StatItem[], benchmark = 'locomo', setting = 'locomo/test'): LoadedRun {
  const reference = system.startsWith('RAW-RAG/');
  return {
    dir: `/runs/${system}`,
    label: system,
    system,
    reference,
    source: reference ? system.slice(8) : null,
    benchmark,
    setting,
    status: 'complete',
    items,
    notes: [],
  };
}

/** n items of a type with `right` of them scored 1 (ids type:0..n-1). */
function block(type: string, n: number, right: number): StatItem[] {
  return Array.from({ length: n }, (_, i) => item(`${type}:${i}`, i < right ? 1 : 0, type));
}

describe('aggregation per benchmark (data table)', () => {
  it('micro for LoCoMo and unknown benchmarks, with Wilson intervals on 0/1 scores', () => {
    for (const bench of ['locomo', 'something-new']) {
      const r = analyse([run('RAW-RAG/x', [...block('a', 10, 9), ...block('b', 30, 6)], bench)], OPTS);
      const row = r.families[0]!.leaderboard[0]!;
      expect(row.columns.overall!.accuracy).toBeCloseTo(15 / 40, 12);
      expect(row.columns.overall!.ci_method).toBe('wilson');
      expect(row.by_type.a!.accuracy).toBeCloseTo(0.9, 12);
      expect(r.families[0]!.aggregation.columns).toEqual(['overall']);
    }
  });
  it('bootstrap intervals when scores are graded (means of judge runs)', () => {
    const items = Array.from({ length: 20 }, (_, i) => item(`q${i}`, (i % 4) / 3 > 1 ? 1 : (i % 4) / 3, 't'));
    const cell = analyse([run('RAW-RAG/x', items)], OPTS).families[0]!.leaderboard[0]!.columns.overall!;
    expect(cell.ci_method).toBe('bootstrap');
    expect(cell.ci_low).toBeLessThan(cell.accuracy);
    expect(cell.ci_high).toBeGreaterThan(cell.accuracy);
  });
  it('LongMemEval: overall micro plus task-averaged (mean of type accuracies)', () => {
    const r = analyse(
      [run('RAW-RAG/x', [...block('multi-session', 10, 9), ...block('temporal-reasoning', 30, 6)], 'longmemeval', 'lme/x')],
      OPTS,
    );
    const row = r.families[0]!.leaderboard[0]!;
    expect(row.columns.overall!.accuracy).toBeCloseTo(15 / 40, 12);
    expect(row.columns['task-averaged']!.accuracy).toBeCloseTo((0.9 + 0.2) / 2, 12);
    expect(row.columns['task-averaged']!.ci_method).toBe('bootstrap');
  });
  it('MemoryAgentBench: sources -> MCC task -> competencies -> overall macro', () => {
    const items = [
      ...block('ruler_qa1_197K', 10, 10), // AR: 1.0
      ...block('eventqa_full', 10, 0), // AR: 0.0   -> AR = 0.5
      ...block('icl_banking77_5900shot_balance', 10, 10), // MCC = (1.0 + 0.2) / 2 = 0.6
      ...block('icl_nlu_8296shot_balance', 10, 2),
      ...block('recsys_redial_full', 10, 2), // TTL = (0.6 + 0.2) / 2 = 0.4
      ...block('detective_qa', 10, 3), // LRU = 0.3
      ...block('factconsolidation_sh_262k', 10, 1), // CR = (0.1 + 0.5) / 2 = 0.3
      ...block('factconsolidation_mh_262k', 20, 10),
    ];
    const f = analyse([run('RAW-RAG/x', items, 'memoryagentbench', 'mab/x')], OPTS).families[0]!;
    const row = f.leaderboard[0]!;
    expect(f.aggregation.columns).toEqual(['AR', 'TTL', 'LRU', 'CR', 'overall']);
    expect(row.columns.AR!.accuracy).toBeCloseTo(0.5, 12);
    expect(row.columns.TTL!.accuracy).toBeCloseTo(0.4, 12);
    expect(row.columns.LRU!.accuracy).toBeCloseTo(0.3, 12);
    expect(row.columns.CR!.accuracy).toBeCloseTo(0.3, 12);
    expect(row.columns.overall!.accuracy).toBeCloseTo((0.5 + 0.4 + 0.3 + 0.3) / 4, 12);
  });
  it('MEME: mean of the six after-question tasks; Del/Cas/Abs count only real passes', () => {
    const meta = (phase: string, task: string, entity: string) => ({ phase, task, entity });
    const items: StatItem[] = [];
    for (const task of ['ER', 'Agg', 'Tr', 'Del', 'Cas', 'Abs']) {
      for (let e = 0; e < 4; e++) {
        // After-question right on entities 0-2; before-question right on entities 0-1 only.
        items.push(item(`ep1:after:${task}${e}`, e < 3 ? 1 : 0, task, { episode: 'ep1', meta: meta('after', task, `${task}-${e}`) }));
        if (task !== 'ER' && task !== 'Agg' && task !== 'Tr') {
          items.push(
            item(`ep1:before:${task}${e}`, e < 2 ? 1 : 0, `${task} (before)`, {
              episode: 'ep1',
              meta: meta('before', task, `${task}-${e}`),
            }),
          );
        }
      }
    }
    const f = analyse([run('RAW-RAG/x', items, 'meme', 'meme/x')], OPTS).families[0]!;
    const row = f.leaderboard[0]!;
    // ER/Agg/Tr: 3/4 raw; Del/Cas/Abs: 2/4 real passes.
    expect(row.by_type.Del!.accuracy).toBeCloseTo(0.5, 12);
    expect(row.by_type.ER!.accuracy).toBeCloseTo(0.75, 12);
    expect(row.columns.overall!.accuracy).toBeCloseTo((3 * 0.75 + 3 * 0.5) / 6, 12);
    // Before-questions are shown per type but not in the headline.
    expect(row.by_type['Del (before)']!.accuracy).toBeCloseTo(0.5, 12);
    expect(row.columns.overall!.n).toBe(24);
    expect(f.problems.notes.join('\n')).toMatch(/before\/after rule applied to 12/);
  });
});

describe('pairing, missing and failed questions', () => {
  const base = [...block('a', 20, 16), ...block('b', 20, 10)];
  const other = base
    .filter((i) => i.id !== 'a:0' && i.id !== 'b:19') // two missing
    .map((i, k) => ({ ...i, type: null, score: k % 3 === 0 ? 1 - (i.score ?? 0) : i.score })); // untyped external run
  other[5] = { ...other[5]!, error: 'read: timeout' };
  other[6] = { ...other[6]!, score: null };
  const third = base.map((i) => ({ ...i, score: 1 }));
  const runs = [run('Mem0', other), run('RAW-RAG/local', base), run('Oracle', third)];

  it('reports missing, failed and unscored questions and pairs on the intersection', () => {
    const f = analyse(runs, OPTS).families[0]!;
    expect(f.baseline).toBe('RAW-RAG/local');
    expect(f.problems.missing.Mem0).toEqual(['a:0', 'b:19']);
    expect(f.problems.failed.Mem0).toEqual([other[5]!.id]);
    expect(f.problems.unscored.Mem0).toEqual([other[6]!.id]);
    const p = f.pairwise.find((x) => x.system_a === 'Mem0')!;
    expect(p.system_b).toBe('RAW-RAG/local');
    expect(p.n).toBe(36);
    expect(p.excluded).toBe(4);
    const row = f.leaderboard.find((r) => r.system === 'Mem0')!;
    expect([row.scored, row.failed, row.unscored, row.missing]).toEqual([36, 1, 1, 2]);
  });
  it('external runs without types inherit the types of the RAW-RAG run', () => {
    const row = analyse(runs, OPTS).families[0]!.leaderboard.find((r) => r.system === 'Mem0')!;
    expect(Object.keys(row.by_type)).toEqual(['a', 'b']);
    expect(row.by_type.a!.n + row.by_type.b!.n).toBe(36);
  });
  it('McNemar on binarised outcomes and Holm across the family, checked independently', () => {
    const f = analyse(runs, OPTS).families[0]!;
    const baseById = new Map(base.map((i) => [i.id, i]));
    for (const p of f.pairwise) {
      const sys = runs.find((r) => r.system === p.system_a)!;
      let b = 0;
      let c = 0;
      for (const it of sys.items) {
        const ref = baseById.get(it.id);
        if (!ref || it.error || it.score === null) continue;
        if (it.score >= 0.5 && ref.score! < 0.5) b++;
        if (it.score < 0.5 && ref.score! >= 0.5) c++;
      }
      expect([p.mcnemar_b, p.mcnemar_c]).toEqual([b, c]);
      expect(p.p_mcnemar).toBe(mcnemarExact(b, c));
    }
    expect(f.pairwise.map((p) => p.p_holm)).toEqual(holm(f.pairwise.map((p) => p.p_mcnemar)));
    expect(f.omnibus!.n).toBe(36);
    expect(f.omnibus!.df).toBe(2);
  });
  it('--all-pairs compares every pair, higher-ranked first; --baseline picks the reference', () => {
    const all = analyse(runs, { ...OPTS, allPairs: true }).families[0]!;
    expect(all.pairwise).toHaveLength(3);
    expect(all.pairwise[0]!.system_a).toBe('Oracle');
    const mem0 = analyse(runs, { ...OPTS, baseline: 'Mem0' }).families[0]!;
    expect(mem0.pairwise.every((p) => p.system_b === 'Mem0')).toBe(true);
  });
  it("the default baseline is the paper's retriever, not the offline stand-in, when both ran", () => {
    const paper = 'RAW-RAG/openai:text-embedding-3-small+cohere:rerank-v3.5';
    const local = { ...run('RAW-RAG/local', base), standIn: true };
    const both = [
      local,
      run(
        paper,
        base.map((i) => ({ ...i, score: 1 - (i.score ?? 0) })),
      ),
      run('Mem0', other),
    ];
    expect(analyse(both, OPTS).families[0]!.baseline).toBe(paper);
    // Alone, the stand-in is still the baseline.
    expect(analyse([local, run('Mem0', other)], OPTS).families[0]!.baseline).toBe('RAW-RAG/local');
  });
  it('same seed, same report', () => {
    expect(analyse(runs, OPTS)).toEqual(analyse(runs, OPTS));
  });
  it('binarises by majority of judge votes, else score >= 0.5', () => {
    expect(binarise(item('x', 0.34, null, { votes: [1, 0, 0] }))).toBe(0);
    expect(binarise(item('x', 0.67, null, { votes: [1, 1, 0] }))).toBe(1);
    expect(binarise(item('x', 0.5, null))).toBe(1);
    expect(binarise(item('x', 0.49, null))).toBe(0);
  });
});

describe('coverage x utilization and judge agreement', () => {
  it('coverage = mean coverage.all; utilization = accuracy on covered items', () => {
    const items = Array.from({ length: 10 }, (_, i) =>
      item(`q${i}`, i < 4 ? 1 : 0, 't', { coverage: i < 6, votes: i < 4 ? [1, 1, 1] : [0, 0, i === 9 ? 1 : 0] }),
    );
    const f = analyse([run('RAW-RAG/x', items)], OPTS).families[0]!;
    const c = f.coverage[0]!;
    expect(c.coverage).toBeCloseTo(0.6, 12);
    expect(c.utilization).toBeCloseTo(4 / 6, 12);
    expect(c.utilization_ci_low!).toBeLessThanOrEqual(4 / 6);
    const a = f.agreement[0]!;
    expect(a.raters).toBe(3);
    expect(a.n).toBe(10);
    expect(a.kappa).toBeGreaterThan(0.5);
    expect(a.kappa).toBeLessThan(1);
  });
});

describe('loading run directories', () => {
  const root = tempDir('rawrag-stats-load-');
  const write = (dir: string, manifest: unknown, lines: string) => {
    mkdirSync(join(root, dir), { recursive: true });
    writeFileSync(join(root, dir, 'manifest.json'), JSON.stringify(manifest));
    writeFileSync(join(root, dir, 'items.jsonl'), lines);
  };
  const m = { system: 'Mem0', benchmark: 'locomo', setting: 'locomo/x' };

  it('finds run directories at any depth and reads the external format', () => {
    write('deep/a/b/ext', m, '{"id":"q1","score":1,"type":"t","coverage":true,"judge":[1,1,1]}\n{"id":2,"score":0}\n');
    const dirs = findRunDirs([join(root, 'deep')]);
    expect(dirs).toEqual([join(root, 'deep/a/b/ext')]);
    const r = loadRun(dirs[0]!);
    expect(r.items).toEqual([item('q1', 1, 't', { coverage: true, votes: [1, 1, 1] }), item('2', 0, null)]);
  });
  it('bad items name the file and the line', () => {
    write('bad', m, '{"id":"q1","score":1}\n{"id":"q2","score":1.5}\n');
    expect(() => loadRun(join(root, 'bad'))).toThrow(InputError);
    expect(() => loadRun(join(root, 'bad'))).toThrow(/bad\/items\.jsonl: line 2: score/);
    write('notjson', m, '{"id":"q1","score":1}\n{oops\n');
    expect(() => loadRun(join(root, 'notjson'))).toThrow(/line 2: not JSON/);
  });
  it('bad manifests name the file and the field', () => {
    write('nosetting', { system: 'x', benchmark: 'locomo' }, '');
    expect(() => loadRun(join(root, 'nosetting'))).toThrow(/manifest\.json: setting/);
  });
  it('a torn last line and repeated ids are reported, last line per id wins', () => {
    write('torn', m, '{"id":"q1","score":0}\n{"id":"q1","score":1}\n{"id":"q2","sc');
    const r = loadRun(join(root, 'torn'));
    expect(r.items).toEqual([item('q1', 1, null)]);
    expect(r.notes.join('\n')).toMatch(/last line 3 is incomplete/);
    expect(r.notes.join('\n')).toMatch(/1 repeated id/);
  });
});

describe('run labels (--name)', () => {
  const labelled = (system: string, name: string | null, right: number): LoadedRun => ({
    ...run(system, block('a', 20, right)),
    name,
    label: `runs/${name ?? system}`,
    dir: `/runs/${name ?? system}`,
  });

  it('names a labelled run "<system> [<label>]"; two runs of one system are told apart by their labels, not directories', () => {
    const r = analyse([labelled('RAW-RAG/local', 'bm25', 15), labelled('RAW-RAG/local', 'bm25-k5', 10), labelled('Mem0', null, 12)], OPTS);
    const names = r.families[0]!.leaderboard.map((x) => x.system).sort();
    expect(names).toEqual(['Mem0', 'RAW-RAG/local [bm25-k5]', 'RAW-RAG/local [bm25]']);
    expect(r.families[0]!.baseline).toBe('RAW-RAG/local [bm25]');
  });

  it('--baseline accepts the label', () => {
    const r = analyse([labelled('RAW-RAG/local', 'bm25', 15), labelled('RAW-RAG/local', 'bm25-k5', 10)], { ...OPTS, baseline: 'bm25-k5' });
    expect(r.families[0]!.baseline).toBe('RAW-RAG/local [bm25-k5]');
  });
});
