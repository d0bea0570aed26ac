// `rawrag stats` end to end through the real CLI: run directories in rawrag's format and in the
// external minimal format, checked through the CSVs it writes.
import { beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir, type CliResult } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { mcnemarExact } from '../../src/stats/index.js';

const SETTING = 'locomo/gpt-4o-mini';
const N = 60;
const TYPES = ['single-hop', 'multi-hop', 'temporal'];

/** Deterministic pseudo-random votes: three judge runs per item. */
function votesFor(seed: number, i: number, p: number): number[] {
  let s = (seed * 7919 + i * 104729) % 2147483647 || 1;
  const r = () => (s = (s * 16807) % 2147483647) / 2147483647;
  return [0, 1, 2].map(() => (r() < p ? 1 : 0));
}

function csv(path: string): Array<Record<string, string>> {
  const [head, ...lines] = readFileSync(path, 'utf8').trim().split('\n');
  const cols = head!.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [cols[i]!, v])));
}

function buildRuns(root: string) {
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  // RAW-RAG, in rawrag's own items.jsonl format (fields as src/core/item.ts defines them).
  const raw = Array.from({ length: N }, (_, i) => {
    const votes = votesFor(1, i, 0.85);
    return {
      id: `conv-1:q${i}`,
      benchmark: 'locomo',
      episode: 'conv-1',
      type: TYPES[i % 3],
      type_id: (i % 3) + 1,
      question: `q${i}?`,
      question_date: null,
      gold: 'x',
      acceptable: ['x'],
      gold_evidence: ['D1:1'],
      retrieved: [],
      evidence_turns: [],
      evidence_tokens: 100,
      coverage: { all: i % 5 !== 0, any: true },
      coverage_at_k: {},
      answer: 'x',
      score: mean(votes),
      metrics: {},
      details: { judge: { model: 'gpt-4o-mini', votes } },
      timings: {},
      error: i === 7 ? { stage: 'read', message: 'HTTP 500' } : null,
    };
  });
  raw[7]!.score = null as unknown as number;
  mkdirSync(join(root, 'rawrag-run'), { recursive: true });
  writeFileSync(
    join(root, 'rawrag-run', 'manifest.json'),
    JSON.stringify({
      format: 'rawrag.run/1',
      run_id: 'r1',
      system: 'RAW-RAG/local',
      reference: true,
      benchmark: 'locomo',
      setting: SETTING,
      status: 'complete',
    }),
  );
  writeFileSync(join(root, 'rawrag-run', 'items.jsonl'), raw.map((r) => JSON.stringify(r) + '\n').join(''));
  // Two external systems in the minimal format, one of them nested deeper and missing 4 questions.
  const ext = (dir: string, system: string, seed: number, p: number, count: number) => {
    mkdirSync(join(root, dir), { recursive: true });
    writeFileSync(join(root, dir, 'manifest.json'), JSON.stringify({ system, benchmark: 'locomo', setting: SETTING }));
    const lines = Array.from({ length: count }, (_, i) => {
      const votes = votesFor(seed, i, p);
      return JSON.stringify({ id: `conv-1:q${i}`, score: mean(votes), judge: votes, coverage: i % 4 !== 0 });
    });
    writeFileSync(join(root, dir, 'items.jsonl'), lines.join('\n') + '\n');
  };
  ext('external/mem0', 'Mem0', 2, 0.6, N - 4);
  ext('external/more/memos', 'MemOS', 3, 0.8, N);
  return raw;
}

describe('rawrag stats (CLI)', () => {
  const root = tempDir('rawrag-stats-e2e-');
  const raw = buildRuns(root);
  const out = join(root, 'stats');
  let res: CliResult;
  beforeAll(async () => {
    res = await rawragInProcess(['stats', root, '--resamples', '5000']);
  });

  it('exits 0, prints the leaderboard and writes every table under <first DIR>/stats/', async () => {
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    for (const f of [
      'leaderboard.md',
      'leaderboard.csv',
      'pairwise.csv',
      'omnibus.csv',
      'coverage.csv',
      'coverage-pairwise.csv',
      'agreement.csv',
      'stats.json',
    ]) {
      expect(existsSync(join(out, f)), f).toBe(true);
    }
    expect(res.stdout).toContain('## locomo — locomo/gpt-4o-mini — judge gpt-4o-mini');
    expect(res.stdout).toMatch(/Mem0 \(\S*external\/mem0\): judge model not stated; grouped with the runs judged by gpt-4o-mini/);
    expect(res.stdout).toMatch(/\| +1 \| MemOS|\| +1 \| RAW-RAG\/local/);
    expect(res.stdout).toContain('Mem0: 4 question(s) missing (present in another run): conv-1:q56, conv-1:q57, conv-1:q58, conv-1:q59');
    expect(res.stdout).toContain('RAW-RAG/local: 1 failed item(s), not scored and not counted as wrong: conv-1:q7');
  });

  it('pairwise.csv: each system against RAW-RAG on the shared questions, with exact McNemar and Holm', async () => {
    const rows = csv(join(out, 'pairwise.csv'));
    expect(Object.keys(rows[0]!)).toEqual(
      expect.arrayContaining([
        'benchmark',
        'setting',
        'system_a',
        'system_b',
        'n',
        'delta',
        'ci_low',
        'ci_high',
        'p_bootstrap',
        'p_mcnemar',
        'p_holm',
      ]),
    );
    expect(rows.map((r) => r.system_b)).toEqual(['RAW-RAG/local', 'RAW-RAG/local']);
    const mem0 = rows.find((r) => r.system_a === 'Mem0')!;
    // Mem0 has q0..q55; RAW-RAG failed q7: 55 shared questions.
    expect(Number(mem0.n)).toBe(55);
    const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
    const shared = Array.from({ length: 56 }, (_, i) => i).filter((i) => i !== 7);
    const delta = mean(shared.map((i) => mean(votesFor(2, i, 0.6)) - raw[i]!.score));
    expect(Number(mem0.delta)).toBeCloseTo(delta, 12);
    let b = 0;
    let c = 0;
    for (const i of shared) {
      const x = mean(votesFor(2, i, 0.6)) >= 0.5;
      const y = raw[i]!.score >= 0.5;
      if (x && !y) b++;
      if (!x && y) c++;
    }
    expect(Number(mem0.p_mcnemar)).toBeCloseTo(mcnemarExact(b, c), 14);
    expect(Number(mem0.ci_low)).toBeLessThanOrEqual(delta);
    expect(Number(mem0.ci_high)).toBeGreaterThanOrEqual(delta);
    for (const r of rows) expect(Number(r.p_holm)).toBeGreaterThanOrEqual(Number(r.p_mcnemar));
  });

  it('omnibus.csv and coverage.csv', async () => {
    const [omni] = csv(join(out, 'omnibus.csv'));
    expect(omni).toMatchObject({ benchmark: 'locomo', setting: SETTING, k: '3', n: '55', df: '2' });
    expect(Number(omni!.p)).toBeGreaterThan(0);
    expect(Number(omni!.p)).toBeLessThanOrEqual(1);
    const cov = csv(join(out, 'coverage.csv'));
    expect(Object.keys(cov[0]!)).toEqual(expect.arrayContaining(['benchmark', 'setting', 'system', 'n', 'coverage', 'utilization']));
    const rr = cov.find((r) => r.system === 'RAW-RAG/local')!;
    // All 60 items: item 7 failed at reading, after retrieval, so its coverage counts (issue 32);
    // coverage.all false on every 5th. Utilization is over the covered items that were scored.
    const all = Array.from({ length: N }, (_, i) => i);
    expect(Number(rr.n)).toBe(60);
    expect(Number(rr.coverage)).toBeCloseTo(all.filter((i) => i % 5 !== 0).length / 60, 12);
    const covered = all.filter((i) => i % 5 !== 0 && i !== 7);
    expect(Number(rr.utilization)).toBeCloseTo(covered.reduce((s, i) => s + raw[i]!.score, 0) / covered.length, 12);
  });

  it('leaderboard.csv ranks systems by overall and keeps the failed/missing counts', async () => {
    const rows = csv(join(out, 'leaderboard.csv')).filter((r) => r.column === 'overall');
    expect(rows.map((r) => Number(r.rank))).toEqual([1, 2, 3]);
    const acc = rows.map((r) => Number(r.accuracy));
    expect(acc).toEqual([...acc].sort((x, y) => y - x));
    const mem0 = rows.find((r) => r.system === 'Mem0')!;
    expect([mem0.n, mem0.missing, mem0.failed]).toEqual(['56', '4', '0']);
    expect(rows.find((r) => r.system === 'RAW-RAG/local')!.failed).toBe('1');
    expect(
      csv(join(out, 'leaderboard.csv'))
        .filter((r) => r.kind === 'type')
        .map((r) => r.column),
    ).toEqual(expect.arrayContaining(TYPES));
  });

  it('is deterministic (same seed, same files) and --all-pairs / --out work', async () => {
    const other = tempDir('rawrag-stats-out-');
    const again = await rawragInProcess(['stats', root, '--resamples', '5000', '--out', other]);
    expect(again.code).toBe(0);
    expect(readFileSync(join(other, 'pairwise.csv'), 'utf8')).toBe(readFileSync(join(out, 'pairwise.csv'), 'utf8'));
    const all = await rawragInProcess(['stats', root, '--resamples', '500', '--all-pairs', '--out', other]);
    expect(all.code).toBe(0);
    expect(csv(join(other, 'pairwise.csv'))).toHaveLength(3);
  });

  it('bad input: exit 2 naming the file and the line', async () => {
    const bad = tempDir('rawrag-stats-bad-');
    writeFileSync(join(bad, 'manifest.json'), JSON.stringify({ system: 'X', benchmark: 'locomo', setting: SETTING }));
    writeFileSync(join(bad, 'items.jsonl'), '{"id":"a","score":1}\n{"id":"b","score":"yes"}\n');
    const r = await rawragInProcess(['stats', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/items\.jsonl: line 2: score/);
    expect((await rawragInProcess(['stats', join(bad, 'nope')])).code).toBe(2);
  });
});

describe('rawrag stats: damaged and contradictory input (CLI)', () => {
  const manifest = (system: string) => JSON.stringify({ system, benchmark: 'locomo', setting: SETTING });
  const lines = (n: number, p: number, seed: number) =>
    Array.from({ length: n }, (_, i) => {
      const votes = votesFor(seed, i, p);
      return JSON.stringify({ id: `conv-1:q${i}`, score: votes.reduce((a, b) => a + b, 0) / 3, judge: votes });
    });

  it('BOM, a last line without newline, and every skipped folder listed', async () => {
    const root = tempDir('rawrag-stats-bom-');
    mkdirSync(join(root, 'raw'));
    writeFileSync(
      join(root, 'raw', 'manifest.json'),
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(manifest('RAW-RAG/local'))]),
    );
    writeFileSync(join(root, 'raw', 'items.jsonl'), lines(20, 0.8, 1).join('\n')); // "\n".join: no final newline
    mkdirSync(join(root, 'mem0'));
    writeFileSync(join(root, 'mem0', 'manifest.json'), manifest('Mem0'));
    writeFileSync(
      join(root, 'mem0', 'items.jsonl'),
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(lines(20, 0.5, 2).join('\n') + '\n')]),
    );
    mkdirSync(join(root, 'orphan'));
    writeFileSync(join(root, 'orphan', 'items.jsonl'), lines(3, 0.5, 3).join('\n') + '\n');
    mkdirSync(join(root, 'empty'));
    writeFileSync(join(root, 'empty', 'manifest.json'), manifest('Empty'));
    writeFileSync(join(root, 'empty', 'items.jsonl'), '');
    const res = await rawragInProcess(['stats', root, '--resamples', '1000']);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const board = csv(join(root, 'stats', 'leaderboard.csv')).filter((r) => r.column === 'overall');
    expect(board.map((r) => [r.system, r.n, r.resamples, r.seed]).sort()).toEqual([
      ['Mem0', '20', '1000', '0'],
      ['RAW-RAG/local', '20', '1000', '0'],
    ]);
    expect(res.stdout).toMatch(/## Folders skipped\n\n- \S*empty: items\.jsonl is empty\n- \S*orphan: items\.jsonl but no manifest\.json/);
  });

  it('invalid UTF-8, a score contradicting its votes, an ambiguous --baseline: exit 2 with the place', async () => {
    const root = tempDir('rawrag-stats-bad8-');
    mkdirSync(join(root, 'a'));
    writeFileSync(join(root, 'a', 'manifest.json'), manifest('Mem0'));
    writeFileSync(
      join(root, 'a', 'items.jsonl'),
      Buffer.concat([Buffer.from('{"id":"x","score":1}\n{"id":"caf'), Buffer.from([0xe9]), Buffer.from('","score":1}\n')]),
    );
    const bad8 = await rawragInProcess(['stats', root]);
    expect(bad8.code).toBe(2);
    expect(bad8.stderr).toMatch(/a\/items\.jsonl: line 2: not valid UTF-8: byte 31 /);

    writeFileSync(join(root, 'a', 'items.jsonl'), '{"id":"x","score":0,"judge":[1,1,1]}\n');
    const votes = await rawragInProcess(['stats', root]);
    expect(votes.code).toBe(2);
    expect(votes.stderr).toMatch(/a\/items\.jsonl: line 1: score 0 contradicts the judge votes \[1, 1, 1\]/);

    writeFileSync(join(root, 'a', 'items.jsonl'), lines(10, 0.5, 1).join('\n') + '\n');
    mkdirSync(join(root, 'b'));
    writeFileSync(join(root, 'b', 'manifest.json'), manifest('Mem0'));
    writeFileSync(join(root, 'b', 'items.jsonl'), lines(10, 0.6, 2).join('\n') + '\n');
    const amb = await rawragInProcess(['stats', root, '--baseline', 'Mem0', '--resamples', '200']);
    expect(amb.code).toBe(2);
    expect(amb.stderr).toMatch(/--baseline 'Mem0' is ambiguous .*'Mem0 \[\S*a\]', 'Mem0 \[\S*b\]'/);
  });

  it('one default resample count for stats and ablate', async () => {
    expect((await rawragInProcess(['stats', '--help'])).stdout).toMatch(/--resamples <n>\s+bootstrap resamples \(default: 50000\)/);
    expect((await rawragInProcess(['ablate', '--help'])).stdout).toMatch(
      /--resamples <n>\s+paired-bootstrap resamples \(default\s+50000\)/,
    );
  });
});

describe('rawrag stats on a real offline run (coverage only)', () => {
  it('reads what `rawrag run` writes: coverage matches summary.json, unjudged items are reported', async () => {
    const root = tempDir('rawrag-stats-real-');
    const dir = join(root, 'run');
    const run = await rawragInProcess(['run', 'locomo', '--limit', '12', '--out', dir, '--no-progress']);
    expect(run.code).toBe(0);
    const res = await rawragInProcess(['stats', root, '--resamples', '1000']);
    expect(res.code).toBe(0);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    const [cov] = csv(join(root, 'stats', 'coverage.csv'));
    expect(Number(cov!.n)).toBe(summary.overall.coverage.n);
    expect(Number(cov!.coverage)).toBeCloseTo(summary.overall.coverage.all, 12);
    expect(cov!.utilization).toBe('');
    expect(res.stdout).toMatch(/12 item\(s\) without a score \(not judged\)/);
  });
});
