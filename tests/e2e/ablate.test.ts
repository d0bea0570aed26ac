/** `rawrag ablate` offline, through the real CLI: variant run directories, table, CSV, plot, resume, stats. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseCsv } from 'csv-parse/sync';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tempDir, type CliResult } from '../helpers/cli.js';
import { FakeApi, endpointArgs } from '../helpers/fake-api.js';
import { rawragInProcess } from '../helpers/in-process.js';
import type { ItemRecord } from '../../src/core/item.js';

const LIMIT = 40;
// Grid order: the reference first, then by window size, then by k.
const VARIANTS = ['default', 'window=128,k=1', 'window=128,k=5', 'window=128,k=15', 'window=128,k=60', 'k=1', 'k=5', 'k=60'];
const items = (dir: string): Map<string, ItemRecord> =>
  new Map(
    readFileSync(join(dir, 'items.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as ItemRecord)
      .map((i) => [i.id, i]),
  );
const json = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

describe('rawrag ablate locomo --k 1,5,60 --window 128 (offline)', () => {
  const out = join(tempDir(), 'ablation');
  const args = [
    'ablate',
    'locomo',
    '--k',
    '1,5,60',
    '--window',
    '128',
    '--limit',
    String(LIMIT),
    '--out',
    out,
    '--no-png',
    '--no-progress',
    '--resamples',
    '2000',
    '--name',
    'sweep-a',
  ];
  let first: CliResult;
  let second: CliResult;

  beforeAll(async () => {
    first = await rawragInProcess(args);
    second = await rawragInProcess(args);
  });

  it('prints the paired coverage table with the reference first', async () => {
    expect(first.stderr).not.toMatch(/error/i);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(`ablation: 8 variants: ${VARIANTS.join(' | ')}`);
    expect(first.stdout).toMatch(/\| default \(reference\) \|\s+40 \|/);
    expect(first.stdout).toMatch(
      /\| variant\s+\|\s+n \| coverage % \| Δ coverage \(pts\) \|\s+95% CI \| p \(Holm\) \| evidence tokens\/q \| work s \|/,
    );
    expect(first.stdout).toMatch(/^RAW-RAG\/local \[sweep-a\] ablation on locomo/);
    expect(first.stdout).toMatch(/^work s = summed work charged to the variant, not wall time/m);
    expect(first.stdout).toMatch(/^wall time of the whole sweep: [\d.]+ s$/m);
    expect(first.stdout).toMatch(/\| k=1\s+\|\s+40 \|\s+[\d.]+ \|\s+-[\d.]+ \| \[-[\d.]+, [-+][\d.]+\] \|/);
    expect(first.stdout).toContain('shared work: 2 window size(s), 2 index builds, 80 first-stage searches');
  });

  it('writes every variant as a run directory that rawrag run would write', async () => {
    expect(readdirSync(out).sort()).toEqual(
      [...VARIANTS, 'ablation.csv', 'ablation.json', 'ablation.md', 'ablation.svg', 'report.html'].sort(),
    );
    for (const v of VARIANTS) {
      const m = json(join(out, v, 'manifest.json'));
      expect(m.schema).toBe('rawrag.run/2');
      expect(m.status).toBe('complete');
      expect(m.system).toBe(v === 'default' ? 'RAW-RAG/local' : `RAW-RAG/local ${v}`);
      expect(m.setting).toBe('locomo/no-reader');
      expect(m.name).toBe('sweep-a');
      expect(m.timings.work_ms).toBeGreaterThan(0);
      expect(m.timings.sweep_wall_ms).toBeGreaterThan(0);
      expect(m.questions).toMatchObject({ selected: LIMIT, done: LIMIT, errors: 0 });
      expect(json(join(out, v, 'summary.json')).n).toBe(LIMIT);
      expect(items(join(out, v)).size).toBe(LIMIT);
    }
    expect(json(join(out, 'window=128,k=5', 'manifest.json')).config).toMatchObject({
      chunking: { size: 128, stride: 96 },
      retrieval: { k: 5, candidates: 128 },
    });
  });

  it('loses no coverage as k grows, within each window size', async () => {
    for (const family of [
      ['k=1', 'k=5', 'default', 'k=60'],
      ['window=128,k=1', 'window=128,k=5', 'window=128,k=15', 'window=128,k=60'],
    ]) {
      const runs = family.map((v) => items(join(out, v)));
      for (const id of runs[0]!.keys()) {
        const cov = runs.map((r) => r.get(id)!.coverage);
        if (cov[0] === null) continue;
        for (let i = 1; i < cov.length; i++) expect(Number(cov[i]!.all)).toBeGreaterThanOrEqual(Number(cov[i - 1]!.all));
      }
    }
  });

  it('writes the CSV, the ablation record and a labelled SVG plot', async () => {
    const csv = readFileSync(join(out, 'ablation.csv'), 'utf8').trim().split('\n');
    expect(csv[0]).toMatch(
      /^variant,system,is_default,window,stride,candidates,k,rerank,expand,questions,errors,coverage,accuracy,metric,paired,delta,ci_low,ci_high,p,p_holm,evidence_tokens,work_s,wall_s,unchanged,compared,delta_unchanged,delta_micro,identical_to,dir$/,
    );
    expect(csv).toHaveLength(1 + VARIANTS.length);
    expect(csv[1]).toMatch(/^default,RAW-RAG\/local,true,256,224,128,15,true,true,40,0,/);
    // The unchanged-evidence share is an accuracy diagnostic: empty on this coverage-only sweep.
    for (const row of parseCsv(csv.join('\n'), { columns: true }) as Array<Record<string, string>>)
      for (const c of ['unchanged', 'compared', 'delta_unchanged', 'delta_micro']) expect(row[c], `${row.variant} ${c}`).toBe('');
    const record = json(join(out, 'ablation.json'));
    expect(record.format).toBe('rawrag.ablation/1');
    expect(record.metric).toBe('coverage');
    expect(record.name).toBe('sweep-a');
    expect(record.variants.map((v: { name: string }) => v.name)).toEqual(VARIANTS);
    const svg = readFileSync(join(out, 'ablation.svg'), 'utf8');
    expect(svg).toContain('k = evidence windows kept (log scale)');
    expect(svg.match(/<polyline /g)).toHaveLength(2);
  });

  it('resumes: the same command again retrieves nothing and reports the same table', async () => {
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('shared work: 0 window size(s), 0 index builds, 0 first-stage searches');
    const table = (s: string) =>
      s
        .split('\n')
        .filter((l) => l.startsWith('| '))
        .map((l) => l.split('|').slice(0, -2).join('|'));
    expect(table(second.stdout)).toEqual(table(first.stdout));
  });

  it('is read by rawrag stats like any other runs', async () => {
    const r = await rawragInProcess(['stats', out, '--out', join(tempDir(), 'stats'), '--resamples', '2000']);
    expect(r.code).toBe(0);
    for (const v of VARIANTS.slice(1)) expect(r.stdout).toContain(`RAW-RAG/local ${v}`);
  });
});

describe('rawrag ablate: dry run and bad input', () => {
  it('--dry-run lists per variant what it would add and writes nothing', async () => {
    const out = join(tempDir(), 'dry');
    const r = await rawragInProcess(['ablate', '--k', '5,30', '--limit', '20', '--out', out, '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('dry run: ablation on locomo — 3 variants, 20 questions each');
    expect(r.stdout).toMatch(/\| k=30\s+\|\s+0 \|\s+0 \|\s+0 \|\s+0 \|\s+\$0\.0000 \|/);
    expect(existsSync(out)).toBe(false);
  });

  it('rejects bad lists as usage errors and impossible variants as input errors', async () => {
    const zero = await rawragInProcess(['ablate', '--k', '1,0', '--limit', '5', '--out', join(tempDir(), 'x')]);
    expect(zero.code).toBe(1);
    expect(zero.stderr).toContain("'0' is not a positive whole number");
    const deep = await rawragInProcess(['ablate', '--k', '200', '--limit', '5', '--out', join(tempDir(), 'y')]);
    expect(deep.code).toBe(2);
    expect(deep.stderr).toContain('variant k=200: k must not exceed candidates');
  });
});

describe('rawrag ablate -B key=a,b (issue 43: -S and -B take value lists in ablate)', () => {
  const api = new FakeApi();
  const ORACLE = join(ROOT, 'tests/fixtures/longmemeval/longmemeval_oracle.sample.json');
  const env = {
    OPENAI_API_KEY: 'sk-test-ABLATEB0123456789',
    OPENAI_BASE_URL: undefined,
    RAWRAG_RETRY_BASE_MS: '5',
    RAWRAG_CACHE_DIR: undefined,
  };
  beforeAll(async () => {
    await api.start();
  });
  afterAll(() => api.close());

  it('sweeps an option that leaves the data alone: each variant read with its own template, paired with the reference', async () => {
    const out = join(tempDir(), 'reading');
    const r = await rawragInProcess(
      [
        'ablate',
        'longmemeval',
        '--data',
        ORACLE,
        '-B',
        'reading=con,direct',
        '--limit',
        '3',
        '--reader',
        'gpt-4o-mini',
        '--out',
        out,
        '--no-png',
        '--no-report',
        '--no-progress',
        '--resamples',
        '200',
        '--cache-dir',
        tempDir(),
        ...endpointArgs(api),
      ],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('ablation: 2 variants: default | reading=direct');
    expect(json(join(out, 'default', 'manifest.json')).config.options.reading).toBeUndefined();
    expect(json(join(out, 'reading=direct', 'manifest.json')).config.options.reading).toBe('direct');
    // The reader's prompts: three with the official chain-of-note template (800 tokens), three with the direct one (500).
    const reads = api
      .byPath('/v1/chat/completions')
      .filter((q) => /^I will give you several history chats/.test(q.body.messages[0].content));
    expect(reads.map((q) => [/Answer \(step by step\):$/.test(q.body.messages[0].content), q.body.max_tokens]).sort()).toEqual([
      [false, 500],
      [false, 500],
      [false, 500],
      [true, 800],
      [true, 800],
      [true, 800],
    ]);
    const record = json(join(out, 'ablation.json'));
    expect(record.variants.map((v: { name: string }) => v.name)).toEqual(['default', 'reading=direct']);
    expect(record.table.find((x: { variant: string }) => x.variant === 'reading=direct').paired).toBe(3);
  });

  it('an option that picks the data takes its list as one value, as in rawrag run; a bad value names -B', async () => {
    const one = await rawragInProcess([
      'ablate',
      'locomo',
      '-B',
      'categories=1,2',
      '--limit',
      '4',
      '--out',
      join(tempDir(), 'c'),
      '--dry-run',
    ]);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stderr).toContain('ablation: 1 variant: default');
    const bad = await rawragInProcess(['ablate', 'longmemeval', '--data', ORACLE, '-B', 'reading=con,fast', '--out', join(tempDir(), 'b')]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/-B reading.*fast/);
  });
});
