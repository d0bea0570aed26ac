/** `rawrag run longmemeval` offline through the real CLI, on the real samples in tests/fixtures/longmemeval. */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';

const ORACLE = resolve(ROOT, 'tests/fixtures/longmemeval/longmemeval_oracle.sample.json');
const readJson = (p: string) => JSON.parse(readFileSync(p, 'utf8'));

describe('rawrag run longmemeval (offline)', () => {
  it('scores retrieval with the official metrics and writes them to the summary', async () => {
    const out = join(tempDir(), 'run');
    const r = await rawragInProcess(['run', 'longmemeval', '--data', ORACLE, '--out', out, '--no-progress']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /warning: .*longmemeval_oracle\.sample\.json: file: 7 questions, not a full release \(500\): per-type count check skipped/,
    );
    expect(r.stdout).toMatch(/RAW-RAG\/local on longmemeval — 7 questions, 0 errors/);
    expect(r.stdout).toMatch(/LongMemEval retrieval, official metrics in % \(5 questions averaged/);
    expect(r.stdout).toMatch(/\| session \| +recall_all \|/);
    expect(r.stdout).toMatch(/\| turn +\| +ndcg_any \|/);

    const manifest = readJson(join(out, 'manifest.json'));
    expect(manifest.dataset.sha256).toBe('efe292f4ed98a575978589813ac27f8405238554d20f43ae51f39691cdd82d8b');
    // The benchmark's official judge is the default judge model.
    expect(manifest.config.judge.model).toBe('gpt-4o-2024-08-06');
    // ... and the reader budget is the protocol's (800 con / 500 direct, per question), not a config number.
    expect(manifest.config.reader.maxTokens).toBeNull();

    const items = readFileSync(join(out, 'items.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(items).toHaveLength(7);
    const ku = items.find((i) => i.id === '01493427');
    expect(ku.question_date).toBe('2023/12/20 (Wed) 22:41');
    expect(ku.gold_evidence.every((id: string) => /^answer_a7b44747_[12]:\d+$/.test(id))).toBe(true);
    for (const k of [1, 3, 5, 10, 30, 50]) {
      for (const name of [`session_recall_any@${k}`, `session_recall_all@${k}`, `session_ndcg_any@${k}`, `turn_recall_all@${k}`]) {
        expect(typeof ku.metrics[name]).toBe('number');
      }
    }
    // The oracle haystack is the evidence itself: every gold session is in the top 5.
    expect(ku.metrics['session_recall_all@5']).toBe(1);
    const abs = items.find((i) => i.id === '09ba9854_abs');
    expect(abs.metrics['session_recall_all@5']).toBeNull();
    expect(abs.coverage).toBeNull();

    const summary = readJson(join(out, 'summary.json'));
    const bs = summary.benchmark_summary;
    expect(bs.retrieval_questions).toBe(5);
    expect(bs.retrieval['session_recall_all@5']).toEqual({ n: 5, mean: 1 });
    expect(bs.judged).toBe(0);
    expect(bs.missing).toBe(7);
  });

  it('lets --judge override the official judge model', async () => {
    const out = join(tempDir(), 'run');
    const r = await rawragInProcess([
      'run',
      'longmemeval',
      '--data',
      ORACLE,
      '--limit',
      '1',
      '--judge',
      'gpt-4o-mini',
      '--out',
      out,
      '--no-progress',
    ]);
    expect(r.code).toBe(0);
    expect(readJson(join(out, 'manifest.json')).config.judge.model).toBe('gpt-4o-mini');
  });

  it('names the file and the place for bad input, and the fetch command for a missing release', async () => {
    const bad = await rawragInProcess(['run', 'longmemeval', '--data', ORACLE, '-B', 'reading=fast']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/-B reading: unknown reading method 'fast'/);
    const dir = tempDir();
    const missing = await rawragInProcess(['run', 'longmemeval', '--data', dir, '-B', 'variant=m']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no longmemeval_m\.json in this folder \(variant m\)/);
  });
});
