/** `rawrag run locomo` through the real CLI: outputs, resume, kill-safety. */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, ROOT, rawrag, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';

const readLines = (dir: string) => readFileSync(join(dir, 'items.jsonl'), 'utf8').split('\n').filter(Boolean);
const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));

describe('rawrag --help', () => {
  it('describes every command and option', async () => {
    const top = await rawragInProcess(['--help']);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/run \[options\] \[benchmark\]/);
    const run = await rawragInProcess(['run', '--help']);
    expect(run.code).toBe(0);
    for (const flag of [
      '--data',
      '--k',
      '--candidates',
      '--no-rerank',
      '--window',
      '--stride',
      '--no-expand',
      '--order',
      '--reader',
      '--limit',
      '--out',
      '--seed',
      '--config',
      '-S, --system-option',
      '-B, --benchmark-option',
      '--retry-errors',
    ]) {
      expect(run.stdout).toContain(flag);
    }
  });

  // Issue 43: per-system and per-benchmark flags live behind -S / -B, the help is grouped.
  it('run --help lists at most 60 options, in groups; ablate and judge are grouped too', async () => {
    const run = await rawragInProcess(['run', '--help']);
    const options = run.stdout.split('\n').filter((l) => /^  -/.test(l));
    expect(options.length).toBeGreaterThan(20);
    expect(options.length).toBeLessThanOrEqual(60);
    for (const group of [
      'Input:',
      'RAW-RAG method:',
      'Reader and judge:',
      'Questions:',
      'Providers, cost and cache:',
      'Output and resume:',
      'Batch API:',
    ])
      expect(run.stdout).toMatch(new RegExp(`^${group.replace(/[()]/g, '\\$&')}$`, 'm'));
    expect(run.stdout).toMatch(/^Grid \(/m);
    // No system's or benchmark's own flag, no legacy alias.
    for (const gone of [
      '--memory-items',
      '--facts-mode',
      '--graph-budget',
      '--mem0-url',
      '--memory-url',
      '--store',
      '--categories',
      '--gold',
      '--beam-official-defects',
      '--concurrency-chat',
    ])
      expect(run.stdout).not.toContain(gone);
    for (const cmd of ['ablate', 'judge']) {
      const help = await rawragInProcess([cmd, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/^Input:$/m);
      expect(help.stdout).toMatch(/^Providers, cost and cache:$/m);
      expect(help.stdout).toContain('-B, --benchmark-option');
    }
  });
});

describe('rawrag run locomo (offline)', () => {
  // A child process, as a user runs it: the report on stdout, notes on stderr, exit 0.
  it('writes a complete run directory and prints coverage per category', () => {
    const out = join(tempDir(), 'run');
    const r = rawrag(['run', 'locomo', '--limit', '60', '--out', out, '--no-progress']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\| multi-hop\s+\|\s+1 \|\s+23 \|/);
    expect(r.stdout).toMatch(/\| overall/);
    expect(r.stdout + r.stderr).toMatch(/no reader configured/);
    const m = manifestOf(out);
    expect(m.status).toBe('complete');
    expect(m.benchmark).toBe('locomo');
    expect(m.config.retrieval).toEqual({ retriever: 'local', candidates: 128, k: 15, rerank: true });
    // Nothing skipped; the one note says this is not the paper's retriever.
    expect(m.retriever).toEqual({
      name: 'local',
      notes: [expect.stringMatching(/^retriever 'local' is an offline lexical stand-in/)],
      stand_in: true,
    });
    expect(m.config.chunking).toEqual({ tokenizer: 'cl100k_base', size: 256, stride: 224 });
    expect(m.dataset.sha256).toBe('79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4');
    expect(m.tool.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(m.questions).toEqual({ selected: 60, done: 60, errors: 0 });
    expect(m.timings.total_ms).toBeGreaterThan(0);
    const items = readLines(out).map((l) => JSON.parse(l));
    expect(items).toHaveLength(60);
    const first = items.find((i) => i.id === 'conv-26:q0');
    expect(first).toMatchObject({
      benchmark: 'locomo',
      type: 'temporal',
      type_id: 2,
      gold: '7 May 2023',
      answer: null,
      score: null,
      error: null,
    });
    expect(first.retrieved).toHaveLength(15);
    expect(first.retrieved[0]).toEqual(expect.objectContaining({ rank: 1, chunk: expect.stringMatching(/^conv-26#\d+$/) }));
    expect(first.evidence_turns.length).toBeGreaterThan(15);
    // Evidence turns are exactly the turns of the selected windows (expansion on).
    expect(new Set(first.evidence_turns)).toEqual(new Set(first.retrieved.flatMap((c: { turns: string[] }) => c.turns)));
    expect(first.coverage).toEqual({ all: first.evidence_turns.includes('D1:3'), any: first.evidence_turns.includes('D1:3') });
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary.n).toBe(60);
    expect(Object.keys(summary.coverage_at_k)).toEqual(['1', '5', '15', '60']);
    expect(summary.coverage_at_k['15'].all).toBeCloseTo(summary.overall.coverage.all, 10);
  });

  it('flags override the config file; a window size alone keeps the 32-token overlap', async () => {
    const dir = tempDir();
    const cfgPath = join(dir, 'c.yaml');
    writeFileSync(cfgPath, 'retrieval:\n  k: 5\n  candidates: 64\nseed: 7\n');
    const out = join(dir, 'run');
    const r = await rawragInProcess([
      'run',
      '--config',
      cfgPath,
      '--k',
      '7',
      '--window',
      '512',
      '--limit',
      '3',
      '--out',
      out,
      '--no-progress',
    ]);
    expect(r.code).toBe(0);
    const m = manifestOf(out);
    expect(m.config.retrieval).toMatchObject({ k: 7, candidates: 64 });
    expect(m.config.chunking).toMatchObject({ size: 512, stride: 480 });
    expect(m.config.seed).toBe(7);
    expect(JSON.parse(readLines(out)[0]!).retrieved).toHaveLength(7);
  });

  it('re-running into the same directory resumes: finished items kept, nothing duplicated', async () => {
    const out = join(tempDir(), 'run');
    expect((await rawragInProcess(['run', '--limit', '30', '--out', out, '--no-progress'])).code).toBe(0);
    const before = readLines(out);
    // Simulate a crash: drop the last 8 items and leave a torn line behind.
    writeFileSync(join(out, 'items.jsonl'), before.slice(0, 22).join('\n') + '\n' + before[22]!.slice(0, 40));
    const again = await rawragInProcess(['run', '--limit', '30', '--out', out, '--no-progress']);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/resuming .*: 22 of 30 questions already done/);
    const after = readLines(out);
    expect(after).toHaveLength(30);
    expect(after.slice(0, 22)).toEqual(before.slice(0, 22));
    expect(new Set(after.map((l) => JSON.parse(l).id)).size).toBe(30);
    // Same input, same ranking: the redone items equal the originals except for timings.
    const strip = (l: string) => ({ ...JSON.parse(l), timings: null });
    expect(after.map(strip).sort((a, b) => a.id.localeCompare(b.id))).toEqual(before.map(strip).sort((a, b) => a.id.localeCompare(b.id)));
    expect(manifestOf(out).status).toBe('complete');
  });

  it('refuses to resume a directory that holds a different configuration', async () => {
    const out = join(tempDir(), 'run');
    expect((await rawragInProcess(['run', '--limit', '5', '--out', out, '--no-progress'])).code).toBe(0);
    const r = await rawragInProcess(['run', '--limit', '5', '--k', '5', '--out', out, '--no-progress']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/manifest\.json: this run directory holds a different run:\n  - configuration: retrieval\.k 15 \(now 5\)\n/);
    expect(manifestOf(out).config.retrieval.k).toBe(15);
  });

  it('a killed run loses at most the item in flight and never claims to be complete', async () => {
    const out = join(tempDir(), 'run');
    // The runner's safety is under test, not the ranking; local-lexical (the old name of the
    // default) must still be accepted.
    const args = ['run', 'locomo', '--retriever', 'local-lexical', '--out', out, '--no-progress'];
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: 'ignore' });
    const items = join(out, 'items.jsonl');
    await new Promise<void>((resolve, reject) => {
      const started = Date.now();
      const poll = setInterval(() => {
        if (existsSync(items) && statSync(items).size > 200_000) {
          clearInterval(poll);
          child.kill('SIGKILL');
          resolve();
        } else if (Date.now() - started > 60_000) {
          clearInterval(poll);
          reject(new Error('run wrote nothing in 60 s'));
        }
      }, 5);
    });
    await new Promise((r) => child.on('close', r));
    const m = manifestOf(out);
    expect(m.status).toBe('running');
    const text = readFileSync(items, 'utf8');
    const whole = text
      .slice(0, text.lastIndexOf('\n') + 1)
      .split('\n')
      .filter(Boolean);
    for (const line of whole) expect(() => JSON.parse(line)).not.toThrow();
    expect(whole.length).toBeGreaterThan(0);
    expect(whole.length).toBeLessThan(1540);
    const r = await rawragInProcess(args);
    expect(r.code).toBe(0);
    const ids = readLines(out).map((l) => JSON.parse(l).id);
    expect(ids).toHaveLength(1540);
    expect(new Set(ids).size).toBe(1540);
    expect(manifestOf(out).status).toBe('complete');
  });
});
