/**
 * `--max-cost USD` through the real CLI against a loopback OpenAI-compatible server: a cap below the
 * estimate is refused before anything is sent (exit 6); a cap above the estimate but below what the
 * run really costs (the server's reader answers at length) stops the run before a request could
 * cross it (exit 6, `stopped-cost-cap`, the items so far kept, the spend recorded under the cap);
 * the same command with a higher cap resumes and finishes, sending nothing twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { FakeApi, defaultChat, isJudgeRequest } from '../helpers/fake-api.js';
import { locomoRunArgs, loopbackEnv, readItems } from '../helpers/loopback-run.js';

const env = loopbackEnv({ openai: 'sk-test-MAXCOSTSECRET0123456789' });

/** A reader that answers with 1,500 words (far above the estimate's 30 tokens); the judge as usual. */
function verbose(body: any): string {
  const text = JSON.stringify(body.messages);
  return text.includes('Gold answer:') ? defaultChat(body) : `I don't know. ${'maybe '.repeat(1500)}`;
}

describe('rawrag run --max-cost', () => {
  const api = new FakeApi({ chat: verbose });
  const cache = tempDir('rawrag-cap-cache-');
  const root = tempDir('rawrag-cap-runs-');
  const out = join(root, 'capped');
  const args = (cap: string, ...extra: string[]) =>
    locomoRunArgs({ out, peer: api, chatOnly: true, cache, limit: 10, json: false, extra: ['--max-cost', cap, ...extra] });
  let estimate = 0;

  beforeAll(async () => {
    await api.start();
    const dry = await rawragInProcess(args('1', '--dry-run'), env);
    expect(dry.code, dry.stderr).toBe(0);
    estimate = Number(/estimated total: \$(\d+\.\d+)/.exec(dry.stdout)![1]);
    expect(dry.stdout).toContain('NOTE: --max-cost $1.0000: the estimate is within the cap');
  }, 120_000);
  afterAll(() => api.close());

  it('a cap below the estimate is refused before anything is sent or written (exit 6, the estimate named)', async () => {
    const cap = (estimate / 2).toFixed(4);
    const r = await rawragInProcess(args(cap), env);
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(
      new RegExp(`--max-cost \\$${cap}: the estimate for the 10 questions still to do is \\$${estimate.toFixed(4)}`),
    );
    expect(r.stderr).toContain('nothing was sent');
    expect(api.count()).toBe(0);
    expect(() => readFileSync(join(out, 'manifest.json'))).toThrow();
  }, 120_000);

  it('a cap above the estimate but below the real cost stops the run before crossing it; a higher cap finishes it', async () => {
    const cap = estimate * 1.5;
    const first = await rawragInProcess(args(cap.toFixed(4)), env);
    expect(first.code, first.stderr).toBe(6);
    expect(first.stderr).toMatch(
      /stopped before crossing --max-cost \$\d+\.\d{4}: spent \$\d+\.\d{4} in all \(held back: (reader|judge) request to gpt-4o-mini\)/,
    );
    expect(first.stderr).toContain('the same command with a higher --max-cost resumes');
    const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(m.status).toBe('stopped-cost-cap');
    expect(m.spent_usd).toBeGreaterThan(0);
    expect(m.spent_usd).toBeLessThanOrEqual(cap);
    const kept = readItems(out);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(10);
    expect(kept.every((i: any) => i.error === null && typeof i.score === 'number')).toBe(true);
    const sentFirst = api.count();

    api.requests.length = 0;
    const second = await rawragInProcess(args('1'), env);
    expect(second.code, second.stderr).toBe(0);
    const m2 = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(m2.status).toBe('complete');
    expect(readItems(out)).toHaveLength(10);
    expect(m2.spent_usd).toBeGreaterThan(m.spent_usd);
    // Nothing answered before is asked again: the resumed run sends only the questions left (reader + 3 judge runs each).
    const readerAsked = api.requests
      .filter((r) => r.path === '/v1/chat/completions' && !isJudgeRequest(r))
      .map((r) => JSON.stringify(r.body.messages));
    const doneQuestions = kept.map((i: any) => i.question);
    expect(readerAsked.some((b) => doneQuestions.some((q: string) => b.includes(q)))).toBe(false);
    // Every request of the run was sent once over the two processes: as many as an uncapped run on an empty cache sends.
    const sentSecond = api.count();
    api.requests.length = 0;
    const fresh = await rawragInProcess(
      locomoRunArgs({
        out: join(root, 'uncapped'),
        peer: api,
        chatOnly: true,
        cache: tempDir('rawrag-cap-fresh-'),
        limit: 10,
        json: false,
      }),
      env,
    );
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(sentFirst + sentSecond).toBe(api.count());
  }, 240_000);
});
