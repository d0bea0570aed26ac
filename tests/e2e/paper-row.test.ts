/**
 * A paper-row config (configs/paper/locomo-gpt-4o-mini.yaml) run through a loopback API: the
 * printed summary ends with the paper's figure beside the run's, a failed item shows up as
 * accuracy over all N and as a failure by stage, and a lower-case judge label counts WRONG and is
 * counted (Mem0: `label == "CORRECT"`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { FakeApi, defaultChat, readerQuestion, type RecordedRequest, endpointArgs } from '../helpers/fake-api.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';

const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
const LIMIT = 10;
const selected = ds.questions.slice(0, LIMIT);
const gold = new Map(selected.map((q) => [q.text, q.gold]));
const failing = selected[3]!.text;
const lowerCase = selected[5]!.text;

function chat(body: any): string {
  const q = readerQuestion(body);
  if (q !== null) return gold.get(q) ?? "I don't know";
  const text = JSON.stringify(body.messages);
  // The judge answers one question with a lower-case label: Mem0 scores that WRONG.
  if (text.includes(JSON.stringify(lowerCase).slice(1, -1))) return '{"label": "correct"}';
  return defaultChat(body);
}

describe('rawrag run --config configs/paper/locomo-gpt-4o-mini.yaml (loopback API)', () => {
  const api = new FakeApi({ chat });
  let r: { code: number; stdout: string; stderr: string };

  beforeAll(async () => {
    await api.start();
    // One reader request is refused for good (400): that item fails at the read stage.
    api.inject({
      kind: 'status',
      status: 400,
      times: Infinity,
      match: (req: RecordedRequest) => req.path.endsWith('/chat/completions') && readerQuestion(req.body) === failing,
    });
    r = await rawragInProcess(
      [
        'run',
        '--config',
        'configs/paper/locomo-gpt-4o-mini.yaml',
        '--limit',
        String(LIMIT),
        '--out',
        join(tempDir(), 'run'),
        ...endpointArgs(api),
        '--cache-dir',
        tempDir('rawrag-cache-'),
        '--no-progress',
        '--max-error-rate',
        '0.2',
      ],
      {
        OPENAI_API_KEY: 'sk-test-PAPER0123456789',
        COHERE_API_KEY: 'co-test-PAPER987654321',
        RAWRAG_RETRY_BASE_MS: '5',
        OPENAI_BASE_URL: undefined,
        COHERE_BASE_URL: undefined,
        RAWRAG_CACHE_DIR: undefined,
      },
    );
  }, 120_000);
  afterAll(() => api.close());

  it("prints the paper's figure beside the run's, and accuracy over all N beside accuracy over scored items", () => {
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/on locomo — 10 questions, 1 errors \(read 1\)/);
    expect(r.stdout).toMatch(/\| accuracy % \| accuracy all N % \|/);
    // 8 of the 9 answered are judged CORRECT (one lower-case label is WRONG): 88.89 over scored, 80.00 over all 10.
    expect(r.stdout).toContain(
      "paper (RAW-RAG, openai retriever, reader gpt-4o-mini): 89.07 — accuracy, 1,540 questions; this run: 88.89 (over all questions, failed count 0: 80.00); this run is partial (10 of 1,540): not comparable with the paper's figure; strongest other system in the paper: MemMachine 88.12",
    );
    expect(r.stdout).toMatch(/Judge labels other than exactly CORRECT \/ WRONG .*: 3 of 27 replies/);
    expect(r.stdout).toMatch(/\| "correct" +\| +3 \|/);
    // Mem0 sends no max_tokens.
    expect(api.byPath('/v1/chat/completions').every((x) => !('max_tokens' in x.body))).toBe(true);
  });
});
