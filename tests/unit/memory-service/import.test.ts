/**
 * `rawrag import`: result files of EverMemOS's evaluation framework, MemOS's evaluation, mem0's
 * evaluation/ and generic JSON lines become stats-ready run directories with rawrag's ids. The
 * files here are built in each harness's own shape from the bundled LoCoMo (their question
 * order shuffled, so position alone would mismatch); an imported EverMemOS file reproduces its own
 * per-run mean accuracy in `rawrag stats`; a file of other questions is refused naming the first.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { ROOT, tempDir } from '../../helpers/cli.js';
import { importResults } from '../../../src/import/write.js';
import { RunConfigSchema } from '../../../src/systems/registry.js';
import { analyse } from '../../../src/stats/compute-tables.js';
import { loadRun } from '../../../src/stats/load.js';

const raw = JSON.parse(readFileSync(join(ROOT, 'datasets/locomo/locomo10.json'), 'utf8')) as Array<{
  qa: Array<{ question: string; answer?: unknown; category: number }>;
}>;
const cfg = RunConfigSchema.parse({ benchmark: 'locomo' });
const rng = seedrandom('import');

function shuffled<T>(xs: T[]): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

/** EverMemOS eval_results.json as its LLMJudge writes it: 3 judgments per question, grouped per conversation. */
function everMemOSFile(): { file: unknown; meanAccuracy: number; runScores: number[] } {
  const detailed: Record<string, unknown[]> = {};
  const correct = [0, 0, 0];
  let total = 0;
  raw.forEach((conv, i) => {
    const rows = conv.qa
      .map((qa, j) => ({ qa, j }))
      .filter(({ qa }) => qa.category !== 5)
      .map(({ qa, j }) => {
        const judgments = [0, 1, 2].map(() => rng() < 0.7);
        judgments.forEach((v, r) => (correct[r]! += v ? 1 : 0));
        total++;
        return {
          question_id: `locomo_${i}_qa${j}`,
          question: qa.question,
          golden_answer: String(qa.answer),
          generated_answer: `answer ${j}`,
          llm_judgments: Object.fromEntries(judgments.map((v, r) => [`judgment_${r + 1}`, v])),
          category: String(qa.category),
        };
      });
    detailed[`locomo_exp_user_${i}`] = shuffled(rows);
  });
  const runScores = correct.map((c) => c / total);
  const meanAccuracy = runScores.reduce((a, b) => a + b, 0) / 3;
  return {
    file: {
      total_questions: total,
      correct: Math.floor(meanAccuracy * total),
      accuracy: meanAccuracy,
      detailed_results: detailed,
      metadata: { model: 'gpt-4o-mini', num_runs: 3, mean_accuracy: meanAccuracy, run_scores: runScores },
    },
    meanAccuracy,
    runScores,
  };
}

describe('rawrag import', () => {
  it('an EverMemOS eval_results.json: every question matched by conversation and text, votes kept, its mean accuracy reproduced by stats', async () => {
    const dir = tempDir('rawrag-import-');
    const { file, meanAccuracy } = everMemOSFile();
    const path = join(dir, 'eval_results.json');
    writeFileSync(path, JSON.stringify(file));
    const out = join(dir, 'evermemos');
    const r = await importResults({ format: 'evermemos', file: path, cfg, system: 'EverMemOS', setting: 'locomo/gpt-4.1-mini', out });
    expect(r.items).toHaveLength(1540);
    const items = readFileSync(join(out, 'items.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // locomo_0_qa5 is rawrag's conv-26:q5, wherever it sat in the file.
    const q5 = items.find((i) => i.id === 'conv-26:q5');
    expect(q5.answer).toBe('answer 5');
    expect(q5.details.judge.votes).toHaveLength(3);
    expect(q5.details.judge.model).toBe('gpt-4o-mini');
    const run = loadRun(out);
    expect(run.system).toBe('EverMemOS');
    expect(run.judge).toBe('gpt-4o-mini');
    const report = analyse([run], { resamples: 200, seed: 1, allPairs: false });
    const overall = JSON.stringify(report);
    const row = report.families[0]!.leaderboard[0]!;
    const acc = (row.columns.overall ?? Object.values(row.columns)[0])!.accuracy;
    expect(Math.abs(acc - meanAccuracy)).toBeLessThan(1e-9);
    expect(overall).toContain('EverMemOS');
    expect(r.text).toContain(`the file's own accuracy: ${(meanAccuracy * 100).toFixed(2)} %`);
    expect(r.text).toMatch(
      new RegExp(`\\| single-hop +\\| +841 \\|[\\s\\S]*\\| overall +\\| +1540 \\| +${(meanAccuracy * 100).toFixed(2)} \\|`),
    );
  });

  it("a file whose question is not the benchmark's is refused naming the first mismatch, and nothing is written", async () => {
    const dir = tempDir('rawrag-import-');
    const { file } = everMemOSFile();
    const f = file as { detailed_results: Record<string, Array<{ question: string }>> };
    f.detailed_results.locomo_exp_user_2![3]!.question = 'What is the capital of Atlantis?';
    const path = join(dir, 'eval_results.json');
    writeFileSync(path, JSON.stringify(file));
    const out = join(dir, 'bad');
    await expect(importResults({ format: 'evermemos', file: path, cfg, system: 'EverMemOS', out })).rejects.toThrow(
      /eval_results\.json: detailed_results\.locomo_exp_user_2\[3\]: the question "What is the capital of Atlantis\?" is not a selected locomo question of conversation 2 \(conv-41\); nearest there: conv-41:q\d+/,
    );
    expect(existsSync(out)).toBe(false);
    // The same questions under the wrong conversation do not match either: never position alone.
    const { file: swapped } = everMemOSFile();
    const s = swapped as { detailed_results: Record<string, unknown[]> };
    [s.detailed_results.locomo_exp_user_0, s.detailed_results.locomo_exp_user_1] = [
      s.detailed_results.locomo_exp_user_1!,
      s.detailed_results.locomo_exp_user_0!,
    ];
    for (const [g, list] of Object.entries(s.detailed_results))
      for (const row of list as Array<{ question_id: string }>)
        row.question_id = row.question_id.replace(/^locomo_\d+/, `locomo_${/\d+$/.exec(g)![0]}`);
    writeFileSync(path, JSON.stringify(swapped));
    await expect(importResults({ format: 'evermemos', file: path, cfg, system: 'E', out })).rejects.toThrow(
      /is not a selected locomo question of conversation 0 \(conv-26\)/,
    );
  });

  it('MemOS judged files, mem0 evals.py output and JSON lines', async () => {
    const dir = tempDir('rawrag-import-');
    const memos: Record<string, unknown[]> = {};
    const mem0: Record<string, unknown[]> = {};
    raw.slice(0, 2).forEach((conv, i) => {
      const qs = conv.qa.filter((q) => q.category !== 5);
      memos[`locomo_exp_user_${i}`] = shuffled(qs).map((q) => ({
        question: q.question,
        answer: 'memos says',
        golden_answer: String(q.answer),
        category: q.category,
        llm_judgments: { judgment_1: true, judgment_2: false },
      }));
      mem0[String(i)] = qs.map((q) => ({
        question: q.question,
        answer: String(q.answer),
        response: 'mem0 says',
        category: String(q.category),
        llm_score: 1,
        f1_score: 0.5,
      }));
    });
    writeFileSync(join(dir, 'memos.json'), JSON.stringify(memos));
    writeFileSync(join(dir, 'mem0.json'), JSON.stringify(mem0));
    const m = await importResults({
      format: 'memos',
      file: join(dir, 'memos.json'),
      cfg,
      system: 'MemOS',
      out: join(dir, 'm'),
    });
    expect(m.items.every((i) => i.score === 0.5 && i.answer === 'memos says')).toBe(true);
    expect(m.items[0]!.id).toBe('conv-26:q0');
    const z = await importResults({
      format: 'mem0-eval',
      file: join(dir, 'mem0.json'),
      cfg,
      system: 'mem0',
      out: join(dir, 'z'),
    });
    expect(z.items.every((i) => i.score === 1 && (i.details.judge as { votes: number[] }).votes.length === 1)).toBe(true);
    // JSON lines without votes: imported unjudged, with the rawrag judge command to score them.
    writeFileSync(join(dir, 'a.jsonl'), `{"episode": "conv-26", "question": "${raw[0]!.qa[0]!.question}", "answer": "x"}\n`);
    const j = await importResults({ format: 'jsonl', file: join(dir, 'a.jsonl'), cfg, system: 'mine', out: join(dir, 'j') });
    expect(j.items[0]!.score).toBeNull();
    expect(j.text).toMatch(
      /1 answers carry no judge votes; judge them as rawrag does with: rawrag judge .*answers\.jsonl --benchmark locomo --system mine/,
    );
    expect(readFileSync(join(dir, 'j', 'answers.jsonl'), 'utf8')).toBe('{"id":"conv-26:q0","answer":"x"}\n');
    // A repeated question is refused.
    writeFileSync(join(dir, 'b.jsonl'), readFileSync(join(dir, 'a.jsonl'), 'utf8').repeat(2));
    await expect(importResults({ format: 'jsonl', file: join(dir, 'b.jsonl'), cfg, system: 'mine', out: join(dir, 'k') })).rejects.toThrow(
      /b\.jsonl: line 2: the question .* appears more often than in locomo \(first taken at line 1\)/,
    );
  });
});
