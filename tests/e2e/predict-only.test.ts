/**
 * Predict-only runs through the real CLI against a loopback OpenAI-compatible server: `--judge none`
 * writes answers and no verdicts (no judge request is sent, also when a config file names a judge),
 * `--reader none` is retrieval only (no request at all: never one for a model called "none", also
 * over a config naming a reader); the dry run, the summary and `rawrag stats` say the items are not
 * judged instead of counting them wrong; `rawrag judge --rejudge` scores them later.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { FakeApi, isJudgeRequest } from '../helpers/fake-api.js';
import { locomoRunArgs, loopbackEnv, readItems } from '../helpers/loopback-run.js';

const env = loopbackEnv({ openai: 'sk-test-PREDICTSECRET0123456789' });

describe('predict-only: --judge none and --reader none', () => {
  const api = new FakeApi();
  const cache = tempDir('rawrag-predict-cache-');
  const root = tempDir('rawrag-predict-');
  const config = join(root, 'judged.yaml');
  const out = join(root, 'answers');
  let run: { code: number; stdout: string; stderr: string };

  beforeAll(async () => {
    await api.start();
    // A config that names a reader and a judge: the flags below override both.
    writeFileSync(config, 'reader:\n  model: gpt-4o-mini\njudge:\n  model: gpt-4o\n  runs: 3\n');
    run = await rawragInProcess(
      locomoRunArgs({ out, peer: api, chatOnly: true, cache, limit: 10, json: false, extra: ['--config', config, '--judge', 'none'] }),
      env,
    );
  }, 120_000);
  afterAll(() => api.close());

  it('--judge none (over a config naming a judge) sends the reader requests and no judge request', () => {
    expect(run.code, run.stderr).toBe(0);
    expect(api.requests.filter(isJudgeRequest)).toHaveLength(0);
    expect(api.count('/v1/chat/completions')).toBe(10);
    const items = readItems(out);
    expect(items).toHaveLength(10);
    expect(items.every((i: any) => typeof i.answer === 'string' && i.score === null && i.details.judge === undefined)).toBe(true);
    // Offline metrics are kept beside the answers.
    expect(items.every((i: any) => typeof i.metrics.f1 === 'number')).toBe(true);
    const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(m.config.judge.model).toBe('none');
    expect(m.skipped.join(' ')).toContain('no judge (--judge none)');
  });

  it('the summary says the answers are not judged: no accuracy column, no 0 %', () => {
    const s = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(s.overall.scored).toBe(0);
    expect(s.overall.accuracy).toBeNull();
    expect(s.overall.accuracy_all_n).toBeNull();
    expect(run.stdout).not.toContain('accuracy %');
    expect(run.stdout).toContain('NOTE: no judge (--judge none): answers were written without verdicts');
  });

  it('the dry run counts reader calls and no judge calls', async () => {
    const r = await rawragInProcess(
      locomoRunArgs({
        out: join(root, 'dry'),
        peer: api,
        chatOnly: true,
        cache,
        limit: 10,
        json: false,
        extra: ['--judge', 'none', '--dry-run'],
      }),
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\| reader \| gpt-4o-mini \| +10 \|/);
    expect(r.stdout).not.toMatch(/\| judge /);
    expect(r.stdout).toContain('NOTE: no judge (--judge none): answers only, no judge calls');
  });

  it('rawrag stats reports the run as not judged, never as 0 % accuracy', async () => {
    const r = await rawragInProcess(['stats', out, '--no-report', '--resamples', '200'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/not judged/);
    expect(r.stdout).not.toMatch(/\| RAW-RAG\/local[^\n]*\| 0\.00 /);
  });

  it('rawrag judge --rejudge scores the answers later with the official judge', async () => {
    api.requests.length = 0;
    const judged = join(root, 'judged');
    const r = await rawragInProcess(
      ['judge', '--rejudge', out, '--out', judged, '--judge-base-url', `${api.url}/v1`, '--cache-dir', cache, '--no-progress', '--json'],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(api.count('/v1/chat/completions')).toBe(api.requests.filter(isJudgeRequest).length);
    expect(api.requests.filter(isJudgeRequest).length).toBeGreaterThanOrEqual(30);
    const s = JSON.parse(r.stdout);
    expect(s.overall.scored).toBe(10);
    expect(readItems(judged).every((i: any) => typeof i.score === 'number' && i.details.judge.votes.length === 3)).toBe(true);
  }, 120_000);

  it('--reader none over a config naming a reader is retrieval only: no request at all, the run of no --reader', async () => {
    api.requests.length = 0;
    const none = join(root, 'retrieval');
    const r = await rawragInProcess(
      locomoRunArgs({ out: none, peer: api, chatOnly: true, cache, limit: 10, json: true, extra: ['--config', config] }).map((a) =>
        a === 'gpt-4o-mini' ? 'none' : a,
      ),
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(api.count()).toBe(0);
    const m = JSON.parse(readFileSync(join(none, 'manifest.json'), 'utf8'));
    expect(m.config.reader.model).toBeNull();
    expect(m.setting).toBe('locomo/no-reader');
    expect(readItems(none).every((i: any) => i.answer === null && i.coverage !== undefined)).toBe(true);
    // The same run as a config without a reader: same config hash, same run id.
    const noReader = join(root, 'judge-only.yaml');
    writeFileSync(noReader, 'judge:\n  model: gpt-4o\n  runs: 3\n');
    const plain = await rawragInProcess(
      ['run', 'locomo', '--limit', '10', '--config', noReader, '--json', '--no-progress', '--out', join(root, 'plain')],
      env,
    );
    expect(JSON.parse(plain.stdout).run_id).toBe(JSON.parse(r.stdout).run_id);
  }, 120_000);
});
