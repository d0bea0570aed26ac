/**
 * `--system letta -S mode=agent`: the script's own agent answers (letta-ai/letta-leaderboard@802a7942
 * locomo_benchmark.py: the answer is the answer_question tool's return, L536-542). Through the CLI
 * against the loopback Letta server (tests/helpers/fake-letta.ts, whose agents answer as the loopback
 * LLM responder makes Letta's real agent answer) and a loopback judge: each item's answer is the
 * agent's, judged; no reader request is sent; the run says who answered (summary's reader, the
 * manifest's `skipped`) and its setting names the agent's LLM, so it pairs with readers of that model.
 * The same flag without the capability (mode=search) still calls the reader.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi } from '../helpers/fake-api.js';
import { FakeLetta } from '../helpers/fake-letta.js';
import { tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { locomoRunArgs, loopbackEnv, readItems } from '../helpers/loopback-run.js';

const LIMIT = 6;
/** The LoCoMo reader prompt's marker: a request that carries it is a reader request. */
const isReader = (r: any) => JSON.stringify(r.body?.messages ?? []).includes('# Question: ');

describe('letta -S mode=agent: the agent answers, the judge scores its answer, no reader is called', () => {
  const api = new FakeApi();
  const letta = new FakeLetta();
  const root = tempDir('rawrag-letta-agent-');
  const env = loopbackEnv({ openai: 'sk-test-LETTAAGENT0123456789' });
  const run = (out: string, mode: string) =>
    rawragInProcess(
      locomoRunArgs({
        system: 'letta',
        out: join(root, out),
        peer: api,
        chatOnly: true,
        cache: join(root, 'cache'),
        limit: LIMIT,
        extra: ['-S', `url=${letta.url}`, '-S', `mode=${mode}`],
      }),
      env,
    );

  beforeAll(async () => {
    await api.start();
    await letta.start();
  });
  afterAll(async () => {
    await api.close();
    await letta.close();
  });

  it("records each agent's answer_question return as the item's answer, judged; the reader is never called", async () => {
    const r = await run('agent', 'agent');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ n: LIMIT, errors: 0 });
    const items = readItems(join(root, 'agent'));
    expect(items).toHaveLength(LIMIT);
    // Each question's agent answered once; its answer is the item's, as written.
    expect(letta.answers).toHaveLength(LIMIT);
    const byQuestion = new Map(letta.answers.map((a) => [a.question, a.answer]));
    for (const item of items) {
      expect(item.answer).toBe(byQuestion.get(item.question));
      expect(item.details.answer).toEqual({ by: 'Letta', raw: item.answer });
      expect(item.details.reader).toBeUndefined();
      expect(item.score).not.toBeNull();
    }
    expect(items.some((i) => i.answer !== 'No information found.')).toBe(true);
    // The agent's passages are the item's evidence (coverage from their sessions' turns).
    expect(items.some((i) => i.evidence_turns.length > 0)).toBe(true);
    // No reader request reached the API; the judge's did (one per item).
    const chats = api.requests.filter((q) => q.path === '/v1/chat/completions');
    expect(chats.filter(isReader)).toEqual([]);
    expect(chats.length).toBeGreaterThanOrEqual(LIMIT);

    const manifest = JSON.parse(readFileSync(join(root, 'agent', 'manifest.json'), 'utf8'));
    expect(manifest.setting).toBe('locomo/gpt-4o-mini');
    expect(manifest.skipped.join('\n')).toMatch(/no reader: Letta's own agent \(LLM gpt-4o-mini\) answered each question/);
    const summary = JSON.parse(readFileSync(join(root, 'agent', 'summary.json'), 'utf8'));
    expect(summary.reader).toEqual({ model: null, answered_by: "Letta's own agent", agent_model: 'gpt-4o-mini' });
  }, 300_000);

  it('--dry-run in mode=agent prices no reader call and says the agent answers', async () => {
    const before = letta.requests.length;
    const r = await rawragInProcess(
      [
        ...locomoRunArgs({
          system: 'letta',
          out: join(root, 'dry'),
          peer: api,
          chatOnly: true,
          cache: join(root, 'cache'),
          limit: LIMIT,
          json: false,
          extra: ['-S', `url=${letta.url}`, '-S', 'mode=agent'],
        }),
        '--dry-run',
      ],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout + r.stderr;
    expect(out).toMatch(/Letta's own agent \(LLM gpt-4o-mini\) answers each question: no reader calls/);
    expect(out).not.toMatch(/\| reader +\|/);
    expect(out).toMatch(/\| judge +\|/);
    expect(letta.requests.length).toBe(before);
  }, 300_000);

  it('mode=search on the same server: the reader answers from the passages (no answer_question tool)', async () => {
    const before = api.requests.length;
    const answered = letta.answers.length;
    const r = await run('search', 'search');
    expect(r.code, r.stderr).toBe(0);
    expect(letta.answers).toHaveLength(answered);
    const readers = api.requests.slice(before).filter((q) => q.path === '/v1/chat/completions' && isReader(q));
    expect(readers).toHaveLength(LIMIT);
    const items = readItems(join(root, 'search'));
    expect(items.every((i) => i.details.reader?.model === 'gpt-4o-mini' && i.details.answer === undefined)).toBe(true);
  }, 300_000);
});
