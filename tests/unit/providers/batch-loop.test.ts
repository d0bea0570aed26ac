/**
 * The --batch driver over a two-stage "pipeline" (a reader, then 3 judge runs on its answer)
 * against the loopback Files/Batches peer: pending items stay pending while their requests are
 * in batches; the finished items equal an interactive run's; --no-wait resumes without resubmitting.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ProviderSession } from '../../../src/providers/session.js';
import { chatModel } from '../../../src/providers/clients.js';
import { isDeferred, type DeferSink } from '../../../src/providers/batch/defer.js';
import { BatchJobs } from '../../../src/providers/batch/jobs.js';
import { runWithBatches } from '../../../src/providers/batch/loop.js';
import { FakeBatchApi } from '../../helpers/fake-batch-api.js';
import { tempDir } from '../../helpers/cli.js';

const servers: FakeBatchApi[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const QUESTIONS = Array.from({ length: 7 }, (_, i) => `q${i}: what happened on day ${i}?`);

/** A judge that says CORRECT for even days; a reader that echoes the question. */
function reply(body: any): string {
  const last: string = body.messages.at(-1).content;
  if (last.startsWith('Judge:')) return JSON.stringify({ label: /day \d*[02468]\?/.test(last) ? 'CORRECT' : 'WRONG' });
  return `answer for ${last}`;
}

interface Item {
  id: string;
  answer: string;
  votes: string[];
  error: string | null;
}

/** A tiny pipeline with the real contract: a deferred stage leaves the item unwritten. */
function pipeline(s: ProviderSession, written: Map<string, Item>): (defer?: DeferSink) => Promise<number> {
  return async (defer) => {
    s.transport.defer = defer;
    const reader = chatModel(s, 'reader', 'gpt-4o-mini');
    const judge = chatModel(s, 'judge', 'gpt-4o-mini');
    let deferred = 0;
    await Promise.all(
      QUESTIONS.filter((q) => !written.has(q)).map(async (q) => {
        try {
          const a = await reader.complete({ messages: [{ role: 'user', content: q }], temperature: 0, maxTokens: 64, jsonMode: false }, 0);
          const votes = await Promise.all(
            [1, 2, 3].map(
              async (r) =>
                (
                  await judge.complete(
                    { messages: [{ role: 'user', content: `Judge: ${q} -> ${a.text}` }], temperature: 0, maxTokens: 16, jsonMode: true },
                    r,
                  )
                ).text,
            ),
          );
          written.set(q, { id: q, answer: a.text, votes, error: null });
        } catch (e) {
          if (isDeferred(e)) deferred++;
          else written.set(q, { id: q, answer: '', votes: [], error: (e as Error).message });
        }
      }),
    );
    s.transport.defer = undefined;
    return deferred;
  };
}

async function setup(): Promise<{ api: FakeBatchApi; session: (cache: string) => ProviderSession }> {
  const api = await new FakeBatchApi({ chat: reply }).start();
  servers.push(api);
  const session = (cacheDir: string) =>
    new ProviderSession({
      cacheDir,
      baseUrls: { reader: `${api.url}/v1`, judge: `${api.url}/v1` },
      env: {},
      retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 2 },
    });
  return { api, session };
}

const sorted = (m: Map<string, Item>) => [...m.values()].sort((a, b) => a.id.localeCompare(b.id));

describe('runWithBatches', () => {
  it('reader requests go first, judge requests in the next round; the items equal an interactive run', async () => {
    const { api, session } = await setup();
    const s = session(tempDir());
    const items = new Map<string, Item>();
    const log: string[] = [];
    const jobs = new BatchJobs({ dir: tempDir(), runId: 'loop', session: s, log: (l) => log.push(l), pollMs: { initial: 1, max: 2 } });
    const out = await runWithBatches({ jobs, pass: pipeline(s, items), wait: true, log: (l) => log.push(l) });
    expect(out).toMatchObject({ complete: true, passes: 3, submitted: 2, last: 0 });
    expect(log).toContain('pass 1: 7 requests go out as batch jobs (7 reader)');
    expect(log).toContain('pass 2: 21 requests go out as batch jobs (21 judge)');
    expect(api.batches.size).toBe(2);
    expect(api.interactiveChats()).toBe(0);
    const i2 = new Map<string, Item>();
    const s2 = session(tempDir());
    await pipeline(s2, i2)();
    expect(sorted(items)).toEqual(sorted(i2));
    expect(sorted(items)[2]!.votes).toEqual(['{"label":"CORRECT"}', '{"label":"CORRECT"}', '{"label":"CORRECT"}']);
    // Batch prices: the run's reader and judge replies cost half of the interactive run's.
    expect(out.collected.usage.reader!.replies).toBe(7);
    expect(out.collected.usage.judge!.replies).toBe(21);
    const batchCost = out.collected.usage.reader!.cost_usd! + out.collected.usage.judge!.cost_usd!;
    expect(batchCost).toBeGreaterThan(0);
    expect(batchCost).toBeCloseTo(s2.usage.total().cost_usd_spent! / 2, 12);
    s2.close();
    s.close();
  });

  it('--no-wait exits after submitting; a later invocation resumes without submitting again', async () => {
    const { api, session } = await setup();
    const cache = tempDir();
    const dir = tempDir();
    api.scriptFor = () => ({ validatingPolls: 3 });
    const items = new Map<string, Item>();
    const run = async () => {
      const s = session(cache);
      const jobs = new BatchJobs({ dir, runId: 'loop', session: s, log: () => {}, pollMs: { initial: 1, max: 2 } });
      const out = await runWithBatches({ jobs, pass: pipeline(s, items), wait: false, log: () => {} });
      s.close();
      return out;
    };
    expect(await run()).toMatchObject({ complete: false, passes: 1, submitted: 1 });
    expect(items.size).toBe(0);
    // Still validating: no pass, nothing submitted.
    expect(await run()).toMatchObject({ complete: false, passes: 0, submitted: 0 });
    expect(api.batches.size).toBe(1);
    let out;
    for (let i = 0; i < 20 && !(out = await run()).complete; i++);
    expect(out!.complete).toBe(true);
    expect(items.size).toBe(7);
    expect(api.batches.size).toBe(2); // readers, then judges: never the same request twice
    const ran = api.chat.requests.filter((r) => r.headers['x-fake-batch']).length;
    expect(ran).toBe(7 + 21);
  });

  it('a request already in a live batch is not sent in another one, whatever the new set', async () => {
    const { api, session } = await setup();
    const s = session(tempDir());
    api.scriptFor = () => ({ validatingPolls: 50 });
    const jobs = new BatchJobs({ dir: tempDir(), runId: 'loop', session: s, log: () => {} });
    const reader = chatModel(s, 'reader', 'gpt-4o-mini');
    const { DeferCollector } = await import('../../../src/providers/batch/defer.js');
    const defer = async (qs: string[]) => {
      const sink = new DeferCollector();
      s.transport.defer = sink;
      await Promise.allSettled(
        qs.map((q) => reader.complete({ messages: [{ role: 'user', content: q }], temperature: 0, maxTokens: 8, jsonMode: false }, 0)),
      );
      return sink.requests();
    };
    await jobs.submit(await defer(QUESTIONS.slice(0, 4)));
    await jobs.submit(await defer(QUESTIONS));
    const [a, b] = [...api.batches.values()];
    expect(a!.lines).toHaveLength(4);
    expect(b!.lines).toHaveLength(3);
    s.close();
  });
});
