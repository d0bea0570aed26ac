// `rawrag stats` at its edges (issue 18): few items, wins of lower-ranked systems, contradictory
// input, damaged files, proportions at 0%/100%, p-values that underflow, baseline choice, macro
// notes, CSV provenance and grouping. Each case failed before the fix.
import { describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyse, type StatsOptions } from '../../../src/stats/compute-tables.js';
import { loadRun, scanRunDirs, type LoadedRun, type StatItem } from '../../../src/stats/load.js';
import { firstInvalidUtf8 } from '../../../src/util/text.js';
import {
  DEFAULT_RESAMPLES,
  holm,
  holmLog10,
  holmWithBounds,
  mcnemarExact,
  mcnemarExactLog10,
  pairedBootstrap,
  pairedBootstrapDesign,
  signFlipP,
  wilson,
} from '../../../src/stats/index.js';
import { coveragePairwiseCsv, coverageCsv, formatP, leaderboardCsv, renderReport } from '../../../src/stats/render.js';
import { statsProgress } from '../../../src/stats/progress.js';
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

function item(id: string, score: number | null, type: string | null = 't', extra: Partial<StatItem> = {}): StatItem {
  return { id, score, type, coverage: null, votes: null, episode: null, meta: null, error: null, ...extra };
}
function run(system: string, items: StatItem[], extra: Partial<LoadedRun> = {}): LoadedRun {
  return {
    dir: `/runs/${extra.label ?? system}`,
    label: system,
    system,
    // Fixtures: a RAW-RAG run is the paper's method, as rawrag's manifests record it.
    reference: system.startsWith('RAW-RAG/'),
    source: null,
    benchmark: 'locomo',
    setting: 'locomo/x',
    status: 'complete',
    items,
    notes: [],
    ...extra,
  };
}
/** Brute force: share of all 2^m sign patterns with |Σ ε c| ≥ |Σ c|. */
function bruteSignFlip(c: number[]): number {
  const t = Math.abs(c.reduce((a, b) => a + b, 0));
  let hits = 0;
  for (let mask = 0; mask < 1 << c.length; mask++) {
    const s = c.reduce((a, x, i) => a + (mask & (1 << i) ? -x : x), 0);
    if (Math.abs(s) >= t - 1e-9) hits++;
  }
  return hits / (1 << c.length);
}

describe('1. exact sign-flip p-value when few differences are non-zero', () => {
  it('a single item: +100.00 with p = 1 and no mark', () => {
    const r = pairedBootstrap([1], [0], { resamples: 5000, seed: 0 });
    expect(r.delta).toBe(1);
    expect(r.p).toBe(1);
    expect(r.pMethod).toBe('sign-flip');
    const report = analyse([run('RAW-RAG/x', [item('q', 0)]), run('Mem0', [item('q', 1)])], OPTS);
    const md = renderReport(report);
    expect(md).toMatch(/\| Mem0 +\| +1 \|.*\| +\+100\.00 \|/);
    expect(md).not.toMatch(/\+100\.00[*†]/);
  });
  it('3 of 3 discordant one way: p = 0.25 (= exact McNemar), not 1/(B+1)', () => {
    const a = [1, 1, 1, 0, 1, 0, 1, 0, 1, 0];
    const b = [0, 0, 0, 0, 1, 0, 1, 0, 1, 0];
    const r = pairedBootstrap(a, b, { resamples: 20_000, seed: 0 });
    expect(r.p).toBeCloseTo(0.25, 14);
    expect(r.p).toBeCloseTo(mcnemarExact(3, 0), 14);
    expect(r.pBootstrap).toBeLessThan(0.1); // what the bootstrap alone would have said
  });
  it('binary differences: the exact test equals exact McNemar (spec §A.1 vectors)', () => {
    for (const [b, c] of [
      [4, 2],
      [1, 5],
      [2, 8],
      [5, 15],
      [0, 5],
      [10, 10],
    ] as const) {
      expect(signFlipP([...Array(b).fill(1), ...Array(c).fill(-1)])).toBeCloseTo(mcnemarExact(b, c), 12);
    }
  });
  it('graded and macro-weighted differences agree with brute-force enumeration', () => {
    let s = 7;
    const r = () => (s = (s * 16807) % 2147483647) / 2147483647;
    for (let trial = 0; trial < 20; trial++) {
      const c = Array.from({ length: 1 + (trial % 12) }, () => (Math.floor(r() * 7) - 3) / 3 / (1 + Math.floor(r() * 3))).filter(
        (x) => x !== 0,
      );
      expect(signFlipP(c)).toBeCloseTo(bruteSignFlip(c), 12);
    }
    const design = { strata: [Int32Array.from([0, 1]), Int32Array.from([2, 3, 4])], weights: [0.5, 0.5] };
    const res = pairedBootstrapDesign([1, 2 / 3, 1, 0, 0], [0, 0, 0, 0, 0], design, { resamples: 1000, seed: 0 });
    expect(res.pMethod).toBe('sign-flip');
    expect(res.p).toBeCloseTo(bruteSignFlip([0.25, 1 / 6, 1 / 6]), 12);
  });
  it('more than 20 non-zero differences: the bootstrap p, never below 2/2^m', () => {
    const a = Array(30).fill(1);
    const b = Array(30).fill(0);
    const res = pairedBootstrap(a, b, { resamples: 1000, seed: 0 });
    expect(res.pMethod).toBe('bootstrap');
    expect(res.p).toBe(1 / 1001);
    expect(res.pBound).toBe(true);
  });
});

describe('2. --all-pairs marks significant wins of either system', () => {
  it('a lower-ranked system that wins on the shared questions gets the mark', () => {
    // A: 60 questions, 30 right (50%, rank 1). B: the same 60 all right plus 140 extra wrong (30%, rank 2).
    const A = Array.from({ length: 60 }, (_, i) => item(`q${i}`, i < 30 ? 1 : 0));
    const B = [...Array.from({ length: 60 }, (_, i) => item(`q${i}`, 1)), ...Array.from({ length: 140 }, (_, i) => item(`x${i}`, 0))];
    const f = analyse([run('A', A), run('B', B)], { ...OPTS, allPairs: true }).families[0]!;
    expect(f.leaderboard.map((r) => r.system)).toEqual(['A', 'B']);
    const p = f.pairwise[0]!;
    expect([p.system_a, p.system_b]).toEqual(['A', 'B']);
    expect(p.delta).toBeCloseTo(-0.5, 12);
    expect(p.p_holm).toBeLessThan(0.001);
    const md = renderReport({ ...analyse([run('A', A), run('B', B)], { ...OPTS, allPairs: true }) });
    expect(md).toMatch(/\| +2 \| B +\|.*\| +1 \|\n/); // B significantly above rank 1
    expect(md).toMatch(/\| +1 \| A +\|.*\| +\|\n/); // A above nobody
    expect(md).toMatch(/\| A +\| B +\|.*\| -50\.00\*\*\*/);
  });
});

describe('3. score and judge votes must agree', () => {
  const root = tempDir('rawrag-stats-votes-');
  const m = { system: 'X', benchmark: 'locomo', setting: 'locomo/x' };
  const write = (dir: string, lines: string) => {
    mkdirSync(join(root, dir), { recursive: true });
    writeFileSync(join(root, dir, 'manifest.json'), JSON.stringify(m));
    writeFileSync(join(root, dir, 'items.jsonl'), lines);
  };
  it('external `judge` votes vs score: input error naming file and line', () => {
    write('ext', '{"id":"a","score":1,"judge":[1,1,1]}\n{"id":"b","score":0,"judge":[1,1,1]}\n');
    expect(() => loadRun(join(root, 'ext'))).toThrow(InputError);
    expect(() => loadRun(join(root, 'ext'))).toThrow(/ext\/items\.jsonl: line 2: score 0 contradicts the judge votes \[1, 1, 1\]/);
  });
  it('rawrag details.judge.votes too; a mean within 1e-6 is accepted', () => {
    write('raw', '{"id":"a","score":0.5,"details":{"judge":{"model":"j","votes":[1,0,0]}}}\n');
    expect(() => loadRun(join(root, 'raw'))).toThrow(/line 1: score 0\.5 contradicts/);
    write('ok', '{"id":"a","score":0.6666667,"judge":[1,1,0]}\n{"id":"b","score":0.5,"details":{"judge":{"votes":[]}}}\n');
    expect(loadRun(join(root, 'ok')).items).toHaveLength(2);
  });
});

describe('4. strict input: UTF-8, BOM, final line, skipped folders', () => {
  const root = tempDir('rawrag-stats-input-');
  const m = JSON.stringify({ system: 'X', benchmark: 'locomo', setting: 'locomo/x' });
  const write = (dir: string, items: string | Buffer | null, manifest: string | Buffer | null = m) => {
    mkdirSync(join(root, dir), { recursive: true });
    if (manifest !== null) writeFileSync(join(root, dir, 'manifest.json'), manifest);
    if (items !== null) writeFileSync(join(root, dir, 'items.jsonl'), items);
  };
  it('a valid last line without a newline is used', () => {
    write('nonl', ['{"id":"a","score":1}', '{"id":"b","score":0}'].join('\n'));
    const r = loadRun(join(root, 'nonl'));
    expect(r.items.map((i) => i.id)).toEqual(['a', 'b']);
    expect(r.notes).toEqual([]);
  });
  it('a torn last line (not JSON) is skipped and reported', () => {
    write('torn', '{"id":"a","score":1}\n{"id":"b","sc');
    const r = loadRun(join(root, 'torn'));
    expect(r.items.map((i) => i.id)).toEqual(['a']);
    expect(r.notes.join('\n')).toMatch(/last line 2 is incomplete/);
  });
  it('a last line torn inside a character (a write in progress) is a torn line, not invalid UTF-8', () => {
    const euro = Buffer.from('€'); // three bytes: the writer stopped after the first
    write('torn8', Buffer.concat([Buffer.from('{"id":"a","score":1}\n{"id":"b","answer":"5 '), euro.subarray(0, 1)]));
    const r = loadRun(join(root, 'torn8'));
    expect(r.items.map((i) => i.id)).toEqual(['a']);
    expect(r.notes.join('\n')).toMatch(/last line 2 is incomplete/);
  });
  it('invalid UTF-8 stops with the file, line and byte offset (ids are never merged)', () => {
    const good = Buffer.from('{"id":"a","score":1}\n');
    write('bad8', Buffer.concat([good, Buffer.from('{"id":"caf'), Buffer.from([0xe9]), Buffer.from('","score":1}\n')]));
    expect(() => loadRun(join(root, 'bad8'))).toThrow(InputError);
    expect(() => loadRun(join(root, 'bad8'))).toThrow(
      new RegExp(`bad8/items\\.jsonl: line 2: not valid UTF-8: byte ${good.length + 10} \\(0xe9\\)`),
    );
    write('bad8m', '{"id":"a","score":1}\n', Buffer.from([0x7b, 0xff, 0x7d]));
    expect(() => loadRun(join(root, 'bad8m'))).toThrow(/manifest\.json: line 1: not valid UTF-8: byte 1 /);
  });
  it('first invalid offset follows the well-formed UTF-8 table', () => {
    expect(firstInvalidUtf8(Buffer.from('héllo €😀', 'utf8'))).toBe(-1);
    expect(firstInvalidUtf8(Uint8Array.from([0x61, 0xc0, 0x80]))).toBe(1); // overlong
    expect(firstInvalidUtf8(Uint8Array.from([0x61, 0xed, 0xa0, 0x80]))).toBe(1); // surrogate
    expect(firstInvalidUtf8(Uint8Array.from([0x61, 0x62, 0xe2, 0x82]))).toBe(2); // truncated
  });
  it('a UTF-8 BOM is dropped in manifest.json and items.jsonl', () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    write('bom', Buffer.concat([bom, Buffer.from('{"id":"a","score":1}\n')]), Buffer.concat([bom, Buffer.from(m)]));
    const r = loadRun(join(root, 'bom'));
    expect(r.system).toBe('X');
    expect(r.items.map((i) => i.id)).toEqual(['a']);
  });
  it('every folder skipped is listed with the reason', () => {
    const top = join(root, 'tree');
    mkdirSync(join(top, 'nomanifest'), { recursive: true });
    writeFileSync(join(top, 'nomanifest', 'items.jsonl'), '{"id":"a","score":1}\n');
    for (const [dir, items] of [
      ['empty', ''],
      ['good', '{"id":"a","score":1}\n'],
      ['other', '{"id":"a","score":0}\n'],
    ] as const) {
      mkdirSync(join(top, dir), { recursive: true });
      writeFileSync(join(top, dir, 'manifest.json'), JSON.stringify({ system: dir, benchmark: 'locomo', setting: 'locomo/x' }));
      writeFileSync(join(top, dir, 'items.jsonl'), items);
    }
    mkdirSync(join(top, 'noitems'), { recursive: true });
    writeFileSync(join(top, 'noitems', 'manifest.json'), JSON.stringify({ system: 'n', benchmark: 'locomo', setting: 'locomo/x' }));
    const scan = scanRunDirs([top]);
    expect(scan.skipped.map((s) => s.reason)).toEqual(['items.jsonl but no manifest.json']);
    const report = analyse(scan.dirs.map(loadRun), { ...OPTS, skipped: scan.skipped });
    const reasons = Object.fromEntries(report.skipped.map((s) => [s.dir.split('/').pop(), s.reason]));
    expect(reasons).toEqual({
      nomanifest: 'items.jsonl but no manifest.json',
      empty: 'items.jsonl is empty',
      noitems: 'no items.jsonl: the run has no questions',
    });
    expect(renderReport(report)).toMatch(/## Folders skipped\n\n- .*empty: items\.jsonl is empty/);
  });
});

describe('5. coverage intervals are Wilson', () => {
  it('20/20 covered: 83.89–100, not 100–100', () => {
    const items = Array.from({ length: 20 }, (_, i) => item(`q${i}`, 1, 't', { coverage: true }));
    const c = analyse([run('RAW-RAG/x', items)], OPTS).families[0]!.coverage[0]!;
    expect(c.coverage).toBe(1);
    expect(c.coverage_ci_low).toBeCloseTo(wilson(20, 20).low, 15);
    expect(c.coverage_ci_low).toBeCloseTo(0.8389, 4);
    expect(c.coverage_ci_high).toBe(1);
    // Utilization over 0/1 scores is an accuracy cell too: Wilson.
    expect(c.utilization_ci_method).toBe('wilson');
    expect(c.utilization_ci_low).toBeCloseTo(wilson(20, 20).low, 15);
  });
});

describe('6. tiny p-values', () => {
  it('McNemar 0 vs 1,171: p underflows, log10 p is kept, the table prints "< 1e-300"', () => {
    expect(mcnemarExact(0, 1171)).toBe(0);
    expect(mcnemarExactLog10(0, 1171)).toBeCloseTo(Math.log10(2) - 1171 * Math.log10(2), 9);
    const n = 1171;
    const base = Array.from({ length: n }, (_, i) => item(`q${i}`, 1));
    const weak = Array.from({ length: n }, (_, i) => item(`q${i}`, 0));
    const report = analyse([run('RAW-RAG/x', base), run('Weak', weak)], OPTS);
    const p = report.families[0]!.pairwise[0]!;
    expect(p.p_mcnemar).toBe(0);
    expect(p.log10_p_mcnemar).toBeCloseTo(-352.2, 1);
    expect(p.log10_p_holm).toBeCloseTo(p.log10_p_mcnemar, 12);
    const md = renderReport(report);
    expect(md).toMatch(/\| 0 \/ 1171 \| +< 1e-300 \| +< 1e-300 \|/);
    expect(md).not.toMatch(/\| 0 \|/);
  });
  it('log10 McNemar and Holm agree with the plain versions where they do not underflow', () => {
    for (const [b, c] of [
      [0, 0],
      [3, 3],
      [1, 5],
      [10, 30],
      [121, 59],
      [600, 700],
      [0, 1074],
    ] as const) {
      const p = mcnemarExact(b, c);
      expect(Math.abs(mcnemarExactLog10(b, c) - Math.log10(p))).toBeLessThan(1e-9);
    }
    const ps = [0.01, 0.04, 0.03, 0.005, 0.2];
    holmLog10(ps.map(Math.log10)).forEach((l, i) => expect(10 ** l).toBeCloseTo(holm(ps)[i]!, 12));
  });
  it('Holm keeps track of bounds: an adjusted p set by a floored p is a bound', () => {
    const ps = [0.01, 0.04, 0.03, 0.005, 0.2];
    expect(
      holmWithBounds(
        ps,
        ps.map(() => false),
      ).adjusted,
    ).toEqual(holm(ps));
    expect(holmWithBounds([1 / 1001, 0.3], [true, false])).toEqual({ adjusted: [2 / 1001, 0.3], bound: [true, false] });
  });
  it('the bootstrap floor prints as a bound: "< 2.0e-5"', () => {
    expect(formatP(1 / 50_001, true)).toBe('< 2.0e-5');
    expect(formatP(0)).toBe('< 1e-300');
    expect(formatP(0.01234)).toBe('0.0123');
    const n = 400;
    const base = Array.from({ length: n }, (_, i) => item(`q${i}`, i % 10 === 0 ? 0 : 1));
    const weak = Array.from({ length: n }, (_, i) => item(`q${i}`, i % 2));
    const f = analyse([run('RAW-RAG/x', base), run('Weak', weak)], { ...OPTS, resamples: 999 }).families[0]!;
    expect(f.pairwise[0]!.p_bootstrap).toBe(1 / 1000);
    expect(f.pairwise[0]!.p_bootstrap_bound).toBe(true);
    expect(renderReport({ ...analyse([run('RAW-RAG/x', base), run('Weak', weak)], { ...OPTS, resamples: 999 }) })).toMatch(
      /\| < 0\.0010 \|/,
    );
  });
});

describe('7. default baseline and --baseline', () => {
  const scored = Array.from({ length: 20 }, (_, i) => item(`q${i}`, i % 3 ? 1 : 0, 't', { coverage: true }));
  const unjudged = Array.from({ length: 20 }, (_, i) => item(`q${i}`, null, 't', { coverage: i % 2 === 0 }));
  it('an unjudged RAW-RAG run is never the default baseline', () => {
    const f = analyse(
      [
        run('RAW-RAG/local', unjudged),
        run('RAW-RAG/local k=5', scored),
        run(
          'Mem0',
          scored.map((i) => ({ ...i, score: 1 })),
        ),
      ],
      OPTS,
    ).families[0]!;
    expect(f.baseline).toBe('RAW-RAG/local k=5');
    expect(f.pairwise.length).toBeGreaterThan(0);
  });
  it('several RAW-RAG/local runs: the default configuration (plain name) wins over a variant, chosen before suffixing', () => {
    const runs = [
      run('RAW-RAG/local', scored, { label: 'results/a' }),
      run('RAW-RAG/local', scored.slice(0, 10), { label: 'results/b' }),
      run('RAW-RAG/local k=1', scored, { label: 'results/k1' }),
    ];
    const f = analyse(runs, OPTS).families[0]!;
    expect(f.baseline).toBe('RAW-RAG/local [results/a]');
  });
  it('an ambiguous --baseline is an input error listing the candidates', () => {
    const runs = [run('RAW-RAG/local', scored), run('Mem0', scored, { label: 'ext/m1' }), run('Mem0', scored, { label: 'ext/m2' })];
    expect(() => analyse(runs, { ...OPTS, baseline: 'Mem0' })).toThrow(InputError);
    expect(() => analyse(runs, { ...OPTS, baseline: 'Mem0' })).toThrow(/ambiguous.*'Mem0 \[ext\/m1\]', 'Mem0 \[ext\/m2\]'/);
    expect(analyse(runs, { ...OPTS, baseline: 'Mem0 [ext/m2]' }).families[0]!.baseline).toBe('Mem0 [ext/m2]');
  });
});

describe('8. MEME: Cochran note and macro note', () => {
  it('before-questions are not counted as "not scored by every system"; macro headlines say the tests pool items', () => {
    const meta = (phase: string, task: string, entity: string) => ({ phase, task, entity });
    const items = (flip: number): StatItem[] => {
      const out: StatItem[] = [];
      for (const task of ['ER', 'Agg', 'Tr', 'Del', 'Cas', 'Abs']) {
        for (let e = 0; e < 4; e++) {
          out.push(
            item(`ep:after:${task}${e}`, (e + flip) % 3 ? 1 : 0, task, { episode: 'ep', meta: meta('after', task, `${task}-${e}`) }),
          );
          if (['Del', 'Cas', 'Abs'].includes(task))
            out.push(item(`ep:before:${task}${e}`, 1, `${task} (before)`, { episode: 'ep', meta: meta('before', task, `${task}-${e}`) }));
        }
      }
      return out;
    };
    const report = analyse([run('RAW-RAG/x', items(0), { benchmark: 'meme' }), run('Mem0', items(1), { benchmark: 'meme' })], OPTS);
    const f = report.families[0]!;
    expect(f.omnibus!.n).toBe(24);
    expect(f.headline_questions).toBe(24);
    const md = renderReport(report);
    expect(md).not.toMatch(/Cochran's Q uses the/);
    expect(md).toMatch(/Δ is the macro headline; McNemar and Cochran's Q test the pooled headline questions/);
  });
});

describe('9. CSV provenance and the coverage-pairwise heading', () => {
  it('resamples and seed in every bootstrap CSV; a heading over the coverage differences', () => {
    const a = Array.from({ length: 30 }, (_, i) => item(`q${i}`, i % 2, 't', { coverage: i % 3 !== 0 }));
    const b = Array.from({ length: 30 }, (_, i) => item(`q${i}`, i % 3 ? 1 : 0, 't', { coverage: i % 4 !== 0 }));
    const report = analyse([run('RAW-RAG/x', a), run('Mem0', b)], { ...OPTS, resamples: 1234, seed: 9 });
    for (const csv of [leaderboardCsv(report), coverageCsv(report), coveragePairwiseCsv(report)]) {
      const [head, first] = csv.split('\n');
      expect(head!.endsWith(',resamples,seed,judge')).toBe(true);
      expect(first!.endsWith(',1234,9,')).toBe(true);
    }
    expect(renderReport(report)).toMatch(/#### Coverage and utilization differences \(A − B\)\n\| measure/);
  });
});

describe('10. grouping', () => {
  const items = (p: number, n = 30, judge?: string) =>
    Array.from({ length: n }, (_, i) => item(`q${i}`, (i * 7) % 10 < p * 10 ? 1 : 0, 't', { coverage: i % 2 === 0 }));
  it('the judge model is part of the family key', () => {
    const runs = [
      run('RAW-RAG/local', items(0.8), { judge: 'gpt-4o-mini' }),
      run('Mem0', items(0.5), { judge: 'gpt-4.1' }),
      run('MemOS', items(0.6), { judge: 'gpt-4o-mini' }),
    ];
    const r = analyse(runs, OPTS);
    expect(r.families.map((f) => [f.judge, f.leaderboard.map((x) => x.system)])).toEqual([
      ['gpt-4.1', ['Mem0']],
      ['gpt-4o-mini', ['RAW-RAG/local', 'MemOS']],
    ]);
    expect(r.families[1]!.problems.notes.join('\n')).toMatch(/judged by different models \(gpt-4\.1, gpt-4o-mini\)/);
    expect(renderReport(r)).toContain('## locomo — locomo/x — judge gpt-4o-mini');
    // A run that does not state its judge joins the only judge seen, said so.
    const one = analyse([run('RAW-RAG/local', items(0.8), { judge: 'gpt-4o-mini' }), run('Mem0', items(0.5))], OPTS);
    expect(one.families).toHaveLength(1);
    expect(one.families[0]!.problems.notes.join('\n')).toMatch(
      /Mem0 \(Mem0\): judge model not stated; grouped with the runs judged by gpt-4o-mini/,
    );
  });
  it('the judge model is read from the items (rawrag) or the manifest (external)', () => {
    const root = tempDir('rawrag-stats-judge-');
    const w = (dir: string, manifest: object, lines: string) => {
      mkdirSync(join(root, dir));
      writeFileSync(join(root, dir, 'manifest.json'), JSON.stringify({ benchmark: 'locomo', setting: 'locomo/x', ...manifest }));
      writeFileSync(join(root, dir, 'items.jsonl'), lines);
    };
    w(
      'raw',
      { system: 'RAW-RAG/local', config_hash: 'abc', config: { judge: { model: 'cfg-judge' } } },
      '{"id":"a","score":1,"details":{"judge":{"model":"gpt-4o-mini","votes":[1]}}}\n',
    );
    w('ext', { system: 'Mem0', judge: 'gpt-4.1' }, '{"id":"a","score":1}\n');
    w('offline', { system: 'RAW-RAG/local', config: { judge: { model: 'cfg-judge' } } }, '{"id":"a","score":null}\n');
    expect(['raw', 'ext', 'offline'].map((d) => loadRun(join(root, d))).map((r) => [r.judge, r.configHash ?? null])).toEqual([
      ['gpt-4o-mini', 'abc'],
      ['gpt-4.1', null],
      [null, null],
    ]);
  });
  it('different question sets in one family give a warning', () => {
    const f = analyse([run('RAW-RAG/local', items(0.8, 100)), run('RAW-RAG/local k=1', items(0.5, 30))], OPTS).families[0]!;
    expect(f.problems.notes.join('\n')).toMatch(
      /warning: the runs do not cover the same questions \(RAW-RAG\/local: 100, RAW-RAG\/local k=1: 30; 100 in all\)/,
    );
  });
  it('directories with the same config hash are one run, said so', () => {
    const runs = ['a', 'b', 'c'].map((d, i) =>
      run('RAW-RAG/local', items(0.8, i === 1 ? 30 : 20), { label: `res/${d}`, configHash: 'h1' }),
    );
    const r = analyse([...runs, run('Mem0', items(0.5))], OPTS);
    expect(r.families[0]!.leaderboard.map((x) => x.system)).toEqual(['RAW-RAG/local', 'Mem0']);
    expect(r.families[0]!.leaderboard[0]!.dir).toBe('res/b');
    expect(r.skipped).toEqual([
      { dir: 'res/a', reason: 'same config hash as res/b (a duplicate run; res/b used)' },
      { dir: 'res/c', reason: 'same config hash as res/b (a duplicate run; res/b used)' },
    ]);
  });
  it('a coverage-only family prints no leaderboard of n = 0', () => {
    const offline = Array.from({ length: 10 }, (_, i) => item(`q${i}`, null, 't', { coverage: i < 6 }));
    const md = renderReport(analyse([run('RAW-RAG/local', offline)], OPTS));
    expect(md).toContain('No run here has judged scores: no accuracy leaderboard (coverage only).');
    expect(md).not.toMatch(/\| +1 \| RAW-RAG\/local +\| +0 \|/);
    expect(md).toContain('### Coverage × utilization');
  });
  it('long system labels are shortened in tables, with a legend', () => {
    const long = 'RAW-RAG/local window=128 stride=112 candidates=256 k=30 no-rerank no-expand (ablation of everything at once)';
    const md = renderReport(analyse([run('RAW-RAG/local', items(0.8)), run(long, items(0.5))], OPTS));
    const tableLines = md.split('\n').filter((l) => l.startsWith('|'));
    expect(Math.max(...tableLines.map((l) => l.length))).toBeLessThan(200);
    expect(tableLines.some((l) => l.includes(long))).toBe(false);
    expect(md).toContain(`Systems: (1) ${long}`);
    expect(md).toMatch(/\| RAW-RAG\/local window=128 stride=11… \(1\) \|/);
  });
  it('one default resample count for stats and ablate', () => {
    expect(DEFAULT_RESAMPLES).toBe(50_000);
  });
});

describe('progress display', () => {
  const sink = () => {
    const lines: string[] = [];
    return { lines, stream: { isTTY: false, write: (s: string) => lines.push(s) } as unknown as NodeJS.WriteStream };
  };
  it('nothing for short analyses; a line every ~10 s when not a terminal', () => {
    const quick = sink();
    const p = statsProgress(1e6, quick.stream);
    p.update(5e5, 1e6);
    p.stop();
    expect(quick.lines).toEqual([]);
    const slow = sink();
    let t = 0;
    const q = statsProgress(1e10, slow.stream, () => t);
    for (let i = 1; i <= 100; i++) {
      t = i * 500;
      q.update(i * 1e8, 1e10);
    }
    q.stop();
    expect(slow.lines).toHaveLength(5);
    expect(slow.lines[0]).toBe('rawrag stats: resampling 20% done (10 s)\n');
  });
});
