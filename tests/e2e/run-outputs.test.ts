/**
 * What a person takes away from a run made against the loopback OpenAI/Cohere server
 * (`--retriever openai`, a reader and a judge): the reader flags that depart from the protocol
 * (--temperature, --max-tokens, --reader-prompt) really reach the requests and are recorded as
 * deviations; --name labels the run; `rawrag show` logs each item's requests exactly as the server
 * received them; `rawrag export` gives one row per question as CSV and Parquet; `rawrag runs` lists
 * the directory; the report states embed and rerank cost beside reader and judge.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { parquetReadObjects } from 'hyparquet';
import { FakeApi, defaultChat, endpointArgs, isJudgeRequest } from '../helpers/fake-api.js';
import { tempDir, type CliResult } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { findItem, openItemLog, renderItemLog } from '../../src/pipeline/item-log.js';
import { exportCsv, exportParquet, runItems } from '../../src/cli/commands/export.js';
import { exportRows } from '../../src/run-files/export.js';
import { listRuns, renderRuns } from '../../src/cli/commands/runs.js';
import { usageOf } from '../../src/report/data.js';
import { collectInputs } from '../../src/report/collect.js';

const LIMIT = 6;
const env = {
  OPENAI_API_KEY: 'sk-test-OUTPUTS0123456789',
  COHERE_API_KEY: 'co-test-OUTPUTS987654321',
  RAWRAG_RETRY_BASE_MS: '5',
  OPENAI_BASE_URL: undefined,
  COHERE_BASE_URL: undefined,
};
const json = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

describe('a judged --retriever openai run through the loopback server', () => {
  // The reader (the user's template: "Q: ...") always answers Tom; the judge is the default one.
  const api = new FakeApi({ chat: (body) => (/\nQ: /.test(body.messages[0].content) ? 'Tom' : defaultChat(body)) });
  const root = tempDir('rawrag-outputs-');
  const out = join(root, 'results', 'labelled');
  const template = join(root, 'reader.txt');
  let run: CliResult;
  let protocol: CliResult;

  beforeAll(async () => {
    await api.start();
    writeFileSync(template, 'Use the conversation below.\n\n{{evidence}}\n\nQ: {{question}}\nA:');
    run = await rawragInProcess(
      [
        'run',
        'locomo',
        '--retriever',
        'openai',
        '--reader',
        'gpt-4o-mini',
        '--limit',
        String(LIMIT),
        '--temperature',
        '0.3',
        '--max-tokens',
        '50',
        '--reader-prompt',
        template,
        '--name',
        'my template',
        '--out',
        out,
        ...endpointArgs(api),
        '--cache-dir',
        tempDir(),
        '--no-progress',
      ],
      env,
    );
    protocol = await rawragInProcess(['protocol', 'locomo', '--temperature', '0.3', '--reader-prompt', template]);
  }, 120_000);
  afterAll(() => api.close());

  it('sends the flags and records them as deviations from the protocol (manifest, summary, output, rawrag protocol)', () => {
    expect(run.code, run.stderr).toBe(0);
    const readerRequests = api.requests.filter((r) => r.path === '/v1/chat/completions' && !isJudgeRequest(r));
    expect(readerRequests).toHaveLength(LIMIT);
    for (const r of readerRequests) {
      expect(r.body.temperature).toBe(0.3);
      expect(r.body.max_tokens).toBe(50);
      expect(r.body.messages).toHaveLength(1);
      expect(r.body.messages[0].content).toMatch(/^Use the conversation below\.\n\n\[.*\n\nQ: .+\nA:$/s);
    }
    const m = json(join(out, 'manifest.json'));
    expect(m.name).toBe('my template');
    expect(m.deviations).toEqual([
      'reader temperature 0.3 (protocol: 0)',
      "reader max_tokens 50 for every question (protocol: the benchmark's official budget)",
      expect.stringMatching(/^reader prompt replaced by .*reader\.txt \(sha256 [0-9a-f]{64}; protocol: the official prompt files\)$/),
    ]);
    expect(json(join(out, 'summary.json')).deviations).toEqual(m.deviations);
    expect(run.stdout).toMatch(/^RAW-RAG\/openai:text-embedding-3-small\+cohere:rerank-v3\.5 \[my template\] on locomo/);
    expect(run.stdout).toContain('DEVIATION from the protocol: reader temperature 0.3 (protocol: 0)');
    expect(protocol.code, protocol.stderr).toBe(0);
    expect(protocol.stdout).toMatch(/\| temperature +\| 0\.3 /);
    expect(protocol.stdout).toContain('DEVIATION (this config): reader temperature 0.3 (protocol: 0)');
    expect(protocol.stdout).toMatch(/DEVIATION \(this config\): reader prompt replaced by .*reader\.txt/);
  });

  it('rawrag show logs the reader and judge requests exactly as the server received them, with the replies', async () => {
    const { ctx, items } = await openItemLog(out);
    const item = findItem(items, items[2]!.id, out);
    const log = renderItemLog(item, ctx);
    const reader = api.requests.find(
      (r) => r.path === '/v1/chat/completions' && !isJudgeRequest(r) && r.body.messages[0].content.includes(`Q: ${item.question}\n`),
    )!;
    expect(log).toContain(reader.body.messages[0].content);
    expect(log).toMatch(/reader request: gpt-4o-mini · temperature 0\.3 · max_tokens 50/);
    const judge = api.requests.find(
      (r) => isJudgeRequest(r) && JSON.stringify(r.body.messages).includes(JSON.stringify(item.question).slice(1, -1)),
    )!;
    for (const msg of judge.body.messages) expect(log).toContain(msg.content);
    expect(log.match(/^judge run \d\/3: /gm)).toHaveLength(3);
    expect(log).toContain(String((item.details.judge as { runs: Array<{ raw: string }> }).runs[0]!.raw));
    expect(log).toMatch(/^retrieval: 15 windows kept/m);
    expect(() => findItem(items, 'conv-26:q999', out)).toThrow(/no item 'conv-26:q999' in this run \(6 items/);
  });

  it('rawrag export: one row per question as CSV and Parquet, the same values', async () => {
    const items = await runItems(out);
    const rows = exportRows(items);
    expect(rows).toHaveLength(LIMIT);
    const csv = parseCsv(exportCsv(rows), { columns: true }) as Array<Record<string, string>>;
    expect(Object.keys(csv[0]!)).toEqual([
      'id',
      'type',
      'episode',
      'question',
      'answer',
      'gold',
      'score',
      'votes',
      'judge_runs',
      'coverage_all',
      'coverage_any',
      'evidence_tokens',
      'error',
    ]);
    for (const [i, item] of items.entries()) {
      const votes = (item.details as { judge: { votes: number[] } }).judge.votes;
      expect(csv[i]).toMatchObject({
        id: item.id,
        answer: 'Tom',
        votes: JSON.stringify(votes),
        judge_runs: '3',
        score: String(item.score),
      });
      expect(csv[i]!.coverage_all).toBe(String((item.coverage as { all: boolean }).all));
      expect(Number(csv[i]!.evidence_tokens)).toBe(item.evidence_tokens);
    }
    const bytes = await exportParquet(rows);
    const back = await parquetReadObjects({
      file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
    });
    expect(back.map((r) => r.id)).toEqual(rows.map((r) => r.id));
    expect(back.map((r) => r.score)).toEqual(rows.map((r) => r.score));
    expect(back.map((r) => r.coverage_all)).toEqual(rows.map((r) => r.coverage_all));
    // Judge votes: a list column in Parquet (a list per row, as pandas reads it), JSON text in CSV.
    expect(back.map((r) => r.votes)).toEqual(items.map((i) => (i.details as { judge: { votes: number[] } }).judge.votes));
    expect(back.every((r) => Array.isArray(r.votes) && r.votes.length === 3)).toBe(true);
    const { parquetMetadata } = await import('hyparquet');
    const schema = parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer).schema;
    const at = schema.findIndex((e) => e.name === 'votes');
    expect(schema.slice(at, at + 3).map((e) => [e.name, e.converted_type ?? e.type, e.repetition_type])).toEqual([
      ['votes', 'LIST', 'OPTIONAL'],
      ['list', undefined, 'REPEATED'],
      ['element', 'DOUBLE', 'REQUIRED'],
    ]);
    // An item without votes (not judged) is a null list, not an empty one.
    const unjudged = await exportParquet(exportRows([{ id: 'x:q0', score: null }]));
    const [row] = await parquetReadObjects({
      file: unjudged.buffer.slice(unjudged.byteOffset, unjudged.byteOffset + unjudged.byteLength) as ArrayBuffer,
    });
    expect(row).toMatchObject({ id: 'x:q0', votes: null, judge_runs: 0 });
  });

  it('rawrag runs lists the directory with its label, status, size and headline', () => {
    const { runs } = listRuns([join(root, 'results')]);
    expect(runs).toHaveLength(1);
    const s = json(join(out, 'summary.json'));
    expect(runs[0]).toMatchObject({
      name: 'my template',
      benchmark: 'locomo',
      setting: 'locomo/gpt-4o-mini',
      system: 'RAW-RAG/openai:text-embedding-3-small+cohere:rerank-v3.5',
      status: 'complete',
      n: LIMIT,
      headline: { metric: 'accuracy', value: s.overall.accuracy },
    });
    expect(renderRuns(runs)).toMatch(
      /\| my template +\| locomo +\| locomo\/gpt-4o-mini +\| RAW-RAG\/openai.* \| complete +\| +6 \| accuracy \d+\.\d\d % \|/,
    );
  });

  it('the report states every cost the CLI printed: embed and rerank beside reader and judge', async () => {
    const s = json(join(out, 'summary.json'));
    expect(run.stdout).toMatch(/\| rerank +\| +\d+ \|/);
    const inputs = await collectInputs([out]);
    const usage = usageOf(inputs.runs[0]!);
    expect(Object.keys(usage).sort()).toEqual(['embed', 'judge', 'reader', 'rerank']);
    expect(usage.rerank!.cost_usd).toBe(s.usage.rerank.cost_usd_total);
    expect(usage.rerank!.cost_usd).toBeGreaterThan(0);
    expect(usage.embed!.cost_usd).toBe(s.usage.embed.cost_usd_total);
    expect(usage.embed!.requests + usage.embed!.cache_hits).toBe(s.usage.embed.requests + s.usage.embed.cache_hits);
    expect(usage.reader!.cost_usd).toBeCloseTo(s.usage_cumulative.reader.cost_usd, 12);
  });
});
