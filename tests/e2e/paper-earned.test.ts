/**
 * Issue 41 item 1: `rawrag run --config configs/paper/locomo-gpt-4o-mini.yaml --data FILE` with a
 * two-conversation file (a whole file, no --limit) against the loopback API is not the paper's
 * 1,540-question LoCoMo row: its own summary and `rawrag paper --json` say "other data" (its
 * sha256 is not the release's, it holds fewer questions), for the row, its evidence length and
 * its judge variance alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi, defaultChat, endpointArgs, readerQuestion } from '../helpers/fake-api.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';
import type { buildPaperMap } from '../../src/paper/map.js';

const release = JSON.parse(readFileSync(join(ROOT, 'datasets/locomo/locomo10.json'), 'utf8')) as unknown[];
const dir = tempDir('rawrag-paper-earned-');
const file = join(dir, 'locomo-two.json');
writeFileSync(file, JSON.stringify(release.slice(0, 2)));
const ds = await locomo.load({ path: file, options: {} });
const gold = new Map(ds.questions.map((q) => [q.text, q.gold]));
const chat = (body: any) => {
  const q = readerQuestion(body);
  return q !== null ? (gold.get(q) ?? "I don't know") : defaultChat(body);
};

describe('a two-conversation LoCoMo file run with the paper config (loopback API)', () => {
  const api = new FakeApi({ chat });
  let run: { code: number; stdout: string; stderr: string };
  beforeAll(async () => {
    await api.start();
    run = await rawragInProcess(
      [
        'run',
        '--config',
        'configs/paper/locomo-gpt-4o-mini.yaml',
        '--data',
        file,
        '--out',
        join(dir, 'results', 'two'),
        ...endpointArgs(api),
        '--cache-dir',
        tempDir('rawrag-cache-'),
        '--no-progress',
      ],
      {
        OPENAI_API_KEY: 'sk-test-EARNED0123456789',
        COHERE_API_KEY: 'co-test-EARNED987654321',
        RAWRAG_RETRY_BASE_MS: '5',
        OPENAI_BASE_URL: undefined,
        COHERE_BASE_URL: undefined,
        RAWRAG_CACHE_DIR: undefined,
      },
    );
  }, 300_000);
  afterAll(() => api.close());

  it('is "other data" in its own summary and in rawrag paper --json, never "reproduced"', async () => {
    expect(run.code, run.stderr).toBe(0);
    const n = ds.questions.length.toLocaleString('en-US');
    expect(ds.questions.length).toBeLessThan(1540);
    const why = new RegExp(
      `other data \\(sha256 [0-9a-f]{12}… is not the pinned release's 79fa87e90f04…, ${n} questions, not the release's 1,540\\)`,
    );
    expect(run.stdout).toMatch(new RegExp(`this run is ${why.source}: not comparable with the paper's figure`));
    const r = await rawragInProcess(['paper', join(dir, 'results'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const map = JSON.parse(r.stdout) as ReturnType<typeof buildPaperMap>;
    for (const id of ['main/locomo/gpt-4o-mini/openai', 'evidence/locomo-mean-tokens', 'judge/variance']) {
      const e = map.entries.find((x) => x.id === id)!;
      expect(e.status, id).toBe('other data');
      expect(e.condition, id).toBe('data');
      expect(e.why, id).toMatch(why);
      expect(e.rawrag, id).toBeNull();
    }
    expect(map.entries.filter((e) => e.status === 'reproduced')).toEqual([]);
    // Every entry says its status and the condition that fails.
    for (const e of map.entries) expect(Object.keys(e)).toEqual(expect.arrayContaining(['status', 'condition', 'why', 'figure']));
  });
});
