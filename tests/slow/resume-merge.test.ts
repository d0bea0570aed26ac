/**
 * Resuming by folder (`rawrag resume DIR`, `rawrag run --out DIR` alone) with no flag restated, a
 * single run split by conversation (`--shard I/N`) and joined by `rawrag merge`, and `--ids` inline.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi, endpointArgs } from '../helpers/fake-api.js';
import { BIN, ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';

const KEY = 'sk-test-RESUME0123456789';
const env = {
  OPENAI_API_KEY: KEY,
  RAWRAG_RETRY_BASE_MS: '5',
  OPENAI_BASE_URL: undefined,
  RAWRAG_CACHE_DIR: undefined,
};

function items(dir: string): any[] {
  const f = join(dir, 'items.jsonl');
  if (!existsSync(f)) return [];
  const text = readFileSync(f, 'utf8').trim();
  return text ? text.split('\n').map((l) => JSON.parse(l)) : [];
}
const manifest = (dir: string) => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));

/** The CLI as a child, interrupted (SIGINT) once `ready` says so; resolves with its exit code. */
function interrupted(args: string[], ready: () => boolean): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', ...env } as NodeJS.ProcessEnv });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const poll = setInterval(() => {
    if (ready()) {
      clearInterval(poll);
      child.kill('SIGINT');
    }
  }, 20);
  return new Promise((res) =>
    child.on('close', (code) => {
      clearInterval(poll);
      res({ code, stderr });
    }),
  );
}

describe('rawrag resume DIR finishes an interrupted grid with no flag restated', () => {
  const api = new FakeApi({ delayMs: 150 });
  const set = join(tempDir(), 'set');
  const cache = tempDir();
  let first: { code: number | null; stderr: string };
  beforeAll(async () => {
    await api.start();
    const args = [
      'run',
      'locomo',
      '--reader',
      'gpt-4o-mini,gpt-4.1-mini',
      '--limit',
      '4',
      '--parallel-cells',
      '1',
      '--concurrency',
      'chat=1',
    ];
    first = await interrupted(
      [...args, '--out', set, '--cache-dir', cache, '--no-progress', ...endpointArgs(api)],
      () => items(join(set, 'locomo-raw-rag-local-gpt-4o-mini')).length >= 1,
    );
  }, 120_000);
  afterAll(() => api.close());

  it('the interrupted grid left cells to do', () => {
    expect(first.code).toBe(130);
    const done = items(join(set, 'locomo-raw-rag-local-gpt-4o-mini')).length + items(join(set, 'locomo-raw-rag-local-gpt-4.1-mini')).length;
    expect(done).toBeGreaterThanOrEqual(1);
    expect(done).toBeLessThan(8);
  });

  it('resume with only the folder: every cell complete, requests to the recorded endpoint', async () => {
    const before = api.count();
    const r = await rawragInProcess(['resume', set, '--no-progress'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/resuming grid of 2 cells from what .* recorded \(options: .*--reader-base-url/);
    for (const cell of ['locomo-raw-rag-local-gpt-4o-mini', 'locomo-raw-rag-local-gpt-4.1-mini']) {
      expect(manifest(join(set, cell)).status).toBe('complete');
      expect(items(join(set, cell))).toHaveLength(4);
    }
    expect(api.count()).toBeGreaterThan(before);
    // The recorded options never hold the key.
    expect(readFileSync(join(set, 'set.json'), 'utf8')).not.toContain(KEY);
  }, 120_000);

  it('show, export and judge --rejudge take the grid folder too', async () => {
    const show = await rawragInProcess(['show', set], env);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain('locomo-raw-rag-local-gpt-4o-mini');
    expect(show.stdout).toContain('locomo-raw-rag-local-gpt-4.1-mini');
    const csv = join(tempDir(), 'export.csv');
    const exp = await rawragInProcess(['export', set, '--out', csv], env);
    expect(exp.code, exp.stderr).toBe(0);
    const rows = readFileSync(csv, 'utf8').trim().split('\n');
    expect(rows[0]).toMatch(/^run,id,type,/);
    expect(rows).toHaveLength(1 + 8);
    const wrong = await rawragInProcess(['show', set, '--wrong', '--json'], env);
    expect(wrong.code, wrong.stderr).toBe(0);
    expect(JSON.parse(wrong.stdout)).toHaveLength(2);
    const rejudged = join(tempDir(), 'strict');
    const judge = await rawragInProcess(
      [
        'judge',
        '--rejudge',
        set,
        '--judge-prompt',
        'strict',
        '--out',
        rejudged,
        '--judge-base-url',
        `${api.url}/v1`,
        '--cache-dir',
        cache,
        '--no-progress',
      ],
      env,
    );
    expect(judge.code, judge.stderr).toBe(0);
    for (const cell of ['locomo-raw-rag-local-gpt-4o-mini', 'locomo-raw-rag-local-gpt-4.1-mini'])
      expect(manifest(join(rejudged, cell)).status).toBe('complete');
  }, 120_000);
});

describe('rawrag run --out RUN alone goes on with the recorded run', () => {
  const api = new FakeApi();
  beforeAll(async () => {
    await api.start();
  });
  afterAll(() => api.close());

  it('redoes a missing item at the recorded endpoint; resume refuses run-defining flags', async () => {
    const out = join(tempDir(), 'run');
    const cache = tempDir();
    const r1 = await rawragInProcess(
      [
        'run',
        'locomo',
        '--reader',
        'gpt-4o-mini',
        '--limit',
        '3',
        '--no-progress',
        '--out',
        out,
        '--cache-dir',
        cache,
        ...endpointArgs(api),
      ],
      env,
    );
    expect(r1.code, r1.stderr).toBe(0);
    // As after a kill -9 before the last item was written.
    const lines = readFileSync(join(out, 'items.jsonl'), 'utf8').trim().split('\n');
    writeFileSync(join(out, 'items.jsonl'), lines.slice(0, 2).join('\n') + '\n');
    const r2 = await rawragInProcess(['run', '--out', out, '--no-progress', '--no-cache'], env);
    expect(r2.code, r2.stderr).toBe(0);
    expect(r2.stderr).toMatch(/resuming run locomo-local-gpt-4o-mini-[0-9a-f]+ from what .* recorded \(options: .*--reader-base-url/);
    expect(items(out)).toHaveLength(3);
    expect(manifest(out).status).toBe('complete');
    const refused = await rawragInProcess(['resume', out, '--k', '5'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/--k would define another run/);
  }, 120_000);
});

describe('--shard I/N on a single run, joined by rawrag merge', () => {
  const root = tempDir();
  const common = ['run', 'locomo', '--sample', '24', '--seed', '3', '--no-progress', '--cache-dir', join(root, 'cache')];
  const [a, b, whole] = ['a', 'b', 'whole'].map((x) => join(root, x)) as [string, string, string];
  beforeAll(async () => {
    for (const [dir, shard] of [
      [a, '1/2'],
      [b, '2/2'],
    ] as const) {
      const r = await rawragInProcess([...common, '--shard', shard, '--out', dir], env);
      expect(r.code, r.stderr).toBe(0);
    }
    const r = await rawragInProcess([...common, '--out', whole], env);
    expect(r.code, r.stderr).toBe(0);
  }, 300_000);

  it('each shard holds whole conversations, none in both', () => {
    const ea = new Set(items(a).map((i) => i.episode));
    const eb = new Set(items(b).map((i) => i.episode));
    expect(ea.size).toBeGreaterThan(0);
    expect(eb.size).toBeGreaterThan(0);
    expect([...ea].filter((e) => eb.has(e))).toEqual([]);
    expect(items(a).length + items(b).length).toBe(24);
    expect(manifest(a).shard).toEqual({ index: 1, count: 2 });
  });

  it('merge joins them into the run the unsharded command makes', async () => {
    const m = join(root, 'merged');
    const r = await rawragInProcess(['merge', a, b, '--out', m], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/merged 2 shards into .*: 24 questions/);
    expect(items(m).map((i) => i.id)).toEqual(items(whole).map((i) => i.id));
    const strip = (i: any) => ({ id: i.id, metrics: i.metrics, evidence: i.evidence });
    expect(items(m).map(strip)).toEqual(items(whole).map(strip));
    const mm = manifest(m);
    expect([mm.status, mm.shard, mm.merged_from.length, mm.config_hash]).toEqual(['complete', undefined, 2, manifest(whole).config_hash]);
    const sm = JSON.parse(readFileSync(join(m, 'summary.json'), 'utf8'));
    const sw = JSON.parse(readFileSync(join(whole, 'summary.json'), 'utf8'));
    expect(sm.n).toBe(sw.n);
    expect(sm.headline).toEqual(sw.headline);
  });

  it('merge refuses overlapping shards, a missing shard and another run', async () => {
    const overlap = await rawragInProcess(['merge', a, a, '--out', join(root, 'x1')], env);
    expect(overlap.code).toBe(2);
    expect(overlap.stderr).toMatch(/is in two shards .*: they overlap/);
    const partial = await rawragInProcess(['merge', a, '--out', join(root, 'x2')], env);
    expect(partial.code).toBe(2);
    expect(partial.stderr).toMatch(/questions of the selection are in no shard/);
    const other = join(root, 'other');
    expect(
      (
        await rawragInProcess(
          ['run', 'locomo', '--sample', '24', '--seed', '3', '--k', '5', '--shard', '2/2', '--no-progress', '--out', other],
          env,
        )
      ).code,
    ).toBe(0);
    const mixed = await rawragInProcess(['merge', a, other, '--out', join(root, 'x3')], env);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(/not a shard of the same run as .*\n {2}- configuration: retrieval.k/);
    expect(existsSync(join(root, 'x3'))).toBe(false);
  }, 120_000);

  it('a shard folder is not resumed as another shard', async () => {
    const r = await rawragInProcess([...common, '--shard', '2/2', '--out', a], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/holds shard 1\/2, not shard 2\/2/);
  });
});

describe('--ids inline', () => {
  it('takes ids comma-separated, and names an unknown one', async () => {
    const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
    const picked = [ds.questions[0]!.id, ds.questions[200]!.id];
    const out = join(tempDir(), 'ids');
    const r = await rawragInProcess(['run', 'locomo', '--ids', picked.join(','), '--no-progress', '--out', out], env);
    expect(r.code, r.stderr).toBe(0);
    expect(items(out).map((i) => i.id)).toEqual(picked);
    const bad = await rawragInProcess(
      ['run', 'locomo', '--ids', `${picked[0]},nope-1`, '--no-progress', '--out', join(tempDir(), 'x')],
      env,
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--ids.*'nope-1'/);
  }, 120_000);
});
