/**
 * The one pipeline under `run` and `ablate`, with real processes (the rest: tests/e2e/pipeline.test.ts):
 * one writer per run directory (two at once, a live lock, a stale one), and signals ending a run as
 * `interrupted`, the same command resuming it. In the slow stage: processes started, raced and killed.
 */
import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { FakeApi } from '../helpers/fake-api.js';
import { BIN, ROOT, rawrag, rawragAsync, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';

const json = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const NO_KEYS = { OPENAI_API_KEY: undefined, COHERE_API_KEY: undefined, OPENAI_BASE_URL: undefined, COHERE_BASE_URL: undefined };

/** A judged LoCoMo run (1 judge run, 2 chat requests in flight) against the loopback server. */
function slowJudgedRun(api: FakeApi, out: string, cache: string, limit: number): string[] {
  return [
    'run',
    'locomo',
    '--reader',
    'gpt-4o-mini',
    '--judge-runs',
    '1',
    '--limit',
    String(limit),
    '--out',
    out,
    '--no-progress',
    '--concurrency',
    'chat=2',
    '--reader-base-url',
    `${api.url}/v1`,
    '--judge-base-url',
    `${api.url}/v1`,
    '--cache-dir',
    cache,
  ];
}

describe('one writer per run directory', () => {
  it('refuses a directory locked by a live process and takes over a stale lock', async () => {
    const out = join(tempDir(), 'run');
    expect((await rawragInProcess(['run', 'locomo', '--limit', '2', '--out', out, '--no-progress'])).code).toBe(0);
    expect(existsSync(join(out, '.rawrag.lock'))).toBe(false);
    writeFileSync(
      join(out, '.rawrag.lock'),
      JSON.stringify({ pid: process.pid, host: hostname(), started_at: 'now', command: 'run locomo' }),
    );
    const busy = rawrag(['run', 'locomo', '--limit', '2', '--out', out, '--no-progress']);
    expect(busy.code).toBe(2);
    expect(busy.stderr).toMatch(new RegExp(`in use by pid ${process.pid} on `));
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeFileSync(join(out, '.rawrag.lock'), JSON.stringify({ pid: dead, host: hostname(), started_at: 'then', command: 'run locomo' }));
    const r = rawrag(['run', 'locomo', '--limit', '2', '--out', out, '--no-progress']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`took over a stale lock of pid ${dead}`));
    expect(lines(join(out, 'items.jsonl'))).toHaveLength(2);
    expect(existsSync(join(out, '.rawrag.lock'))).toBe(false);
  });

  it('two writers at once: one is refused, no item is lost or duplicated', async () => {
    const api = await new FakeApi({ delayMs: 150 }).start();
    try {
      const out = join(tempDir(), 'run');
      const cache = tempDir();
      const args = slowJudgedRun(api, out, cache, 12);
      const env = { ...NO_KEYS, OPENAI_API_KEY: 'sk-test-x' };
      const a = rawragAsync(args, env);
      await new Promise((r) => setTimeout(r, 1500));
      const b = await rawragAsync([...args, '--retry-errors'], env);
      const ra = await a;
      expect([ra.code, b.code].sort()).toEqual([0, 2]);
      expect((ra.code === 2 ? ra : b).stderr).toMatch(/in use by pid \d+/);
      const ids = lines(join(out, 'items.jsonl')).map((i) => i.id);
      expect(ids).toHaveLength(12);
      expect(new Set(ids).size).toBe(12);
      expect(json(join(out, 'manifest.json')).status).toBe('complete');
    } finally {
      await api.close();
    }
  });
});

describe('signals', () => {
  it('SIGINT: in-flight items are written, the manifest says interrupted, exit 130; the same command resumes', async () => {
    const api = await new FakeApi({ delayMs: 200 }).start();
    try {
      const out = join(tempDir(), 'run');
      const cache = tempDir();
      const args = slowJudgedRun(api, out, cache, 30);
      const env = { ...process.env, NO_COLOR: '1', ...NO_KEYS, OPENAI_API_KEY: 'sk-test-x' };
      const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const code = await new Promise<number>((res) => {
        const poll = setInterval(() => {
          if (existsSync(join(out, 'items.jsonl')) && readFileSync(join(out, 'items.jsonl'), 'utf8').split('\n').length > 3) {
            clearInterval(poll);
            child.kill('SIGINT');
          }
        }, 50);
        child.on('close', (c) => res(c ?? -1));
      });
      expect(code, stderr).toBe(130);
      expect(stderr).toMatch(/interrupted by SIGINT: \d+ of 30 questions done/);
      const m = json(join(out, 'manifest.json'));
      const done = lines(join(out, 'items.jsonl'));
      expect(m.status).toBe('interrupted');
      expect(m.questions.done).toBe(done.length);
      expect(done.length).toBeLessThan(30);
      expect(existsSync(join(out, '.rawrag.lock'))).toBe(false);
      const resumed = await rawragInProcess(args, { ...NO_KEYS, OPENAI_API_KEY: 'sk-test-x' });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(json(join(out, 'manifest.json')).status).toBe('complete');
      expect(new Set(lines(join(out, 'items.jsonl')).map((i) => i.id)).size).toBe(30);
    } finally {
      await api.close();
    }
  }, 120_000);

  it('SIGINT during an offline run (CPU-bound, no reader): stops within 2 s, exit 130, interrupted', async () => {
    // The whole bundled LoCoMo with the embedded retriever: nothing awaits the network, so only a
    // scheduler that yields to the event loop sees the signal before the last question.
    const out = join(tempDir(), 'run');
    const child = spawn(process.execPath, [BIN, 'run', 'locomo', '--no-progress', '--out', out], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1', ...NO_KEYS },
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    let sentAt = 0;
    const { code, stoppedIn } = await new Promise<{ code: number; stoppedIn: number }>((res) => {
      const poll = setInterval(() => {
        if (sentAt === 0 && existsSync(join(out, 'items.jsonl')) && readFileSync(join(out, 'items.jsonl'), 'utf8').length > 0) {
          clearInterval(poll);
          sentAt = performance.now();
          child.kill('SIGINT');
        }
      }, 5);
      child.on('close', (c) => {
        clearInterval(poll);
        res({ code: c ?? -1, stoppedIn: performance.now() - sentAt });
      });
    });
    expect(sentAt, 'the run ended before its first item was seen').toBeGreaterThan(0);
    expect(code, stderr).toBe(130);
    expect(stoppedIn).toBeLessThan(2000);
    const m = json(join(out, 'manifest.json'));
    expect(m.status).toBe('interrupted');
    expect(m.questions.done).toBe(lines(join(out, 'items.jsonl')).length);
    expect(m.questions.done).toBeLessThan(1540);
  }, 60_000);
});
