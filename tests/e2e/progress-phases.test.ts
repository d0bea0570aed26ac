/**
 * The progress line by phase (issue 43.4) of a run whose system calls an LLM at ingest:
 * `rawrag run locomo --system agentic-memory` through the real CLI (its stderr not a terminal, one
 * line per step: RAWRAG_PROGRESS_EVERY=0) against a loopback OpenAI-compatible server that plays the
 * extractor, the reader and the judge, each reply 150 ms late. The lines show ingest (turns), index
 * (episodes), answer and judge (questions) in that order with done/total, a rate and an ETA once
 * measurable, and the money of each phase (gpt-4o-mini's price is known); the manifest keeps the
 * last figures for `rawrag view`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, rawragAsync, tempDir } from '../helpers/cli.js';
import { FakeExtractor } from '../helpers/fake-extractor.js';
import { FakeApi, endpointArgs } from '../helpers/fake-api.js';
import { evidenceReader, locomoRunArgs, loopbackEnv } from '../helpers/loopback-run.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';

const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
const LIMIT = 20;
// The first 20 questions are all of conv-26's: one episode to ingest.
const conv26 = ds.episodes.find((e) => e.id === 'conv-26')!;

/** `phase done/total unit ...` segments of one progress line, in the order printed. */
function phasesOf(line: string): { phase: string; done: number; total: number; unit: string; rest: string }[] {
  return line
    .split(' | ')
    .map((part) => /^(?:\S+: \d+\/\d+ questions \(\S+\) )?(ingest|index|answer|judge) (\d+)\/(\d+) (\w+)(.*)$/.exec(part))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ phase: m[1]!, done: Number(m[2]), total: Number(m[3]), unit: m[4]!, rest: m[5]! }));
}

describe('rawrag run: the progress line by phase (agentic memory, loopback extractor)', () => {
  const fake = new FakeExtractor({ chat: evidenceReader(ds.questions), delayMs: 150 });
  const cache = tempDir('rawrag-phases-cache-');
  const out = join(tempDir('rawrag-phases-runs-'), 'memory');
  let res: { code: number; stdout: string; stderr: string };
  let lines: string[];

  beforeAll(async () => {
    await fake.start();
    const args = locomoRunArgs({ system: 'agentic-memory', retriever: 'openai', out, peer: fake, cache, limit: LIMIT }).filter(
      (a) => a !== '--no-progress',
    );
    res = await rawragAsync(args, loopbackEnv({ openai: 'sk-test-PHASESECRET0123456789' }, { RAWRAG_PROGRESS_EVERY: '0' }));
    lines = res.stderr.split('\n').filter((l) => l.startsWith('locomo: '));
  }, 300_000);
  afterAll(() => fake.close());

  it('shows ingest, index, answer and judge in that order, each with done/total and its unit', () => {
    expect(res.code, res.stderr).toBe(0);
    expect(lines.length).toBeGreaterThan(10);
    const order = ['ingest', 'index', 'answer', 'judge'];
    for (const line of lines) {
      const shown = phasesOf(line).map((p) => p.phase);
      expect(shown, line).toEqual(order.filter((p) => shown.includes(p)));
    }
    // Ingest is seen before any question is answered (the extraction is not a silent 0 %).
    const firstIngest = lines.findIndex((l) => phasesOf(l).some((p) => p.phase === 'ingest' && p.done < p.total));
    const firstAnswer = lines.findIndex((l) => phasesOf(l).some((p) => p.phase === 'answer'));
    expect(firstIngest).toBeGreaterThanOrEqual(0);
    expect(firstIngest).toBeLessThan(firstAnswer);
    expect(lines[firstIngest]).toMatch(new RegExp(`^locomo: 0/${LIMIT} questions`));
    // The question count follows the items written: the last line says every question is done.
    expect(lines[lines.length - 1]).toMatch(new RegExp(`^locomo: ${LIMIT}/${LIMIT} questions \\(100\\.0%\\)`));
    const last = phasesOf(lines[lines.length - 1]!);
    expect(last.map((p) => [p.phase, p.done, p.total, p.unit])).toEqual([
      ['ingest', conv26.turns.length, conv26.turns.length, 'turns'],
      ['index', 1, 1, 'episodes'],
      ['answer', LIMIT, LIMIT, 'questions'],
      ['judge', LIMIT, LIMIT, 'questions'],
    ]);
    // done never goes backwards, phase by phase.
    const seen = new Map<string, number>();
    for (const line of lines)
      for (const p of phasesOf(line)) {
        expect(p.done, line).toBeGreaterThanOrEqual(seen.get(p.phase) ?? 0);
        seen.set(p.phase, p.done);
      }
  });

  it('gives a rate and an ETA once measurable, and the money of each phase', () => {
    const measured = lines.flatMap(phasesOf).filter((p) => /^ [\d.]+\/s ETA \d+(s|m \d\ds)/.test(p.rest));
    expect(measured.length, lines.join('\n')).toBeGreaterThan(0);
    // The extractor, reader and judge all priced (gpt-4o-mini): each phase that sent requests has its dollars.
    const last = phasesOf(lines[lines.length - 1]!);
    for (const phase of ['ingest', 'answer', 'judge']) expect(last.find((p) => p.phase === phase)!.rest, phase).toMatch(/ \$\d+\.\d{4}$/);
  });

  it('keeps the last phases in the manifest (what rawrag view shows)', () => {
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(manifest.progress.phases.map((p: any) => [p.phase, p.done, p.total])).toEqual([
      ['ingest', conv26.turns.length, conv26.turns.length],
      ['index', 1, 1],
      ['answer', LIMIT, LIMIT],
      ['judge', LIMIT, LIMIT],
    ]);
    expect(manifest.progress.phases.find((p: any) => p.phase === 'ingest').cost_usd).toBeGreaterThan(0);
  });
});

describe("rawrag run (a grid): one progress line, its total known from the start, the cells' phases summed", () => {
  const api = new FakeApi({ delayMs: 30 });
  let res: { code: number; stdout: string; stderr: string };
  let lines: string[];

  beforeAll(async () => {
    await api.start();
    const out = join(tempDir('rawrag-grid-phases-'), 'grid');
    const args = ['run', 'locomo', '--reader', 'gpt-4o-mini,gpt-4.1-mini', '--limit', '4', '--parallel-cells', '1'];
    res = await rawragAsync(
      [...args, '--concurrency', 'chat=1', '--out', out, '--cache-dir', tempDir('rawrag-grid-phases-cache-'), ...endpointArgs(api)],
      loopbackEnv({ openai: 'sk-test-GRIDPHASES0123456789' }, { RAWRAG_PROGRESS_EVERY: '0' }),
    );
    lines = res.stderr.split('\n').filter((l) => l.startsWith('grid (2 cells): '));
  }, 120_000);
  afterAll(() => api.close());

  it('counts 8 questions (4 in each cell) from the first line, the share never falling as the second cell starts', () => {
    expect(res.code, res.stderr).toBe(0);
    expect(lines.length).toBeGreaterThan(4);
    const figures = lines.map((l) => /^grid \(2 cells\): (\d+)\/(\d+) questions/.exec(l)!).map((m) => [Number(m[1]), Number(m[2])]);
    for (const [, total] of figures) expect(total).toBe(8);
    for (let i = 1; i < figures.length; i++) expect(figures[i]![0]).toBeGreaterThanOrEqual(figures[i - 1]![0]!);
    expect(figures.at(-1)).toEqual([8, 8]);
  });

  it('shows answer and judge summed over the cells, each with its money', () => {
    const last = phasesOf(lines[lines.length - 1]!);
    expect(last.filter((p) => p.phase === 'answer' || p.phase === 'judge').map((p) => [p.phase, p.done, p.total, p.unit])).toEqual([
      ['answer', 8, 8, 'questions'],
      ['judge', 8, 8, 'questions'],
    ]);
    for (const phase of ['answer', 'judge']) expect(last.find((p) => p.phase === phase)!.rest, phase).toMatch(/ \$\d+\.\d{4}$/);
  });

  it("knows every phase's total for both cells from the first line: each phase's total on the first line is the last line's", () => {
    // A line shows the phases that have started; each shows the total over both cells from the first.
    const last = new Map(phasesOf(lines[lines.length - 1]!).map((p) => [p.phase, p.total]));
    expect([...last]).toEqual([
      ['ingest', 2 * conv26.turns.length],
      ['index', 2],
      ['answer', 8],
      ['judge', 8],
    ]);
    expect(phasesOf(lines[0]!).length, lines[0]).toBeGreaterThan(0);
    for (const line of lines) for (const p of phasesOf(line)) expect([p.phase, p.total], line).toEqual([p.phase, last.get(p.phase)]);
  });
});
