/**
 * Loader tests: the real shared row (tests/fixtures/memoryagentbench/Conflict_Resolution.sample.json,
 * see SOURCE.md) and CONSTRUCTED rows for every source format (constructed/), read both as the
 * JSON list form and as Parquet written with the release's nested layout.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { loadMemoryAgentBench } from '../../../src/benchmarks/memoryagentbench/load.js';
import { memoryagentbench } from '../../../src/benchmarks/memoryagentbench/index.js';
import { MAX_TURN_CHARS, contextToTurns, lines } from '../../../src/benchmarks/memoryagentbench/context.js';
import { runs } from '../../../src/benchmarks/memoryagentbench/read.js';
import { ingest } from '../../../src/retrieval/chunk.js';
import { effectivePolicy } from '../../../src/pipeline/plan.js';
import { RunConfigSchema } from '../../../src/systems/registry.js';
import type { Dataset, LoadWarning } from '../../../src/core/schema.js';
import { tempDir } from '../../helpers/cli.js';
import { writeRowsParquet, type Row } from './parquet-fixture.js';

const FIX = join(import.meta.dirname, '..', '..', 'fixtures', 'memoryagentbench');
const SAMPLE = join(FIX, 'Conflict_Resolution.sample.json');
const CONSTRUCTED = join(FIX, 'constructed');
const cfg = RunConfigSchema.parse({ benchmark: 'memoryagentbench' });

const load = (path: string, options: Record<string, string | undefined> = {}) => loadMemoryAgentBench({ path, options });

describe('the shared real row (factconsolidation_sh_6k)', () => {
  let ds: Dataset;
  beforeAll(async () => {
    ds = await load(SAMPLE, { subset: 'all' });
  });

  test('the fixture is the unchanged shared file', () => {
    expect(createHash('sha256').update(readFileSync(SAMPLE)).digest('hex')).toBe(
      '80a005d98fdd3512283ffabd40bf36634433f1dce9bad42c5cbfd9d9e9078149',
    );
  });

  test('one episode of 455 numbered facts; the header is kept apart', () => {
    expect(ds.episodes).toHaveLength(1);
    const ep = ds.episodes[0]!;
    expect(ep.id).toBe('factconsolidation_sh_6k/0');
    expect(ep.turns).toHaveLength(455);
    expect(ep.turns[0]).toEqual({
      id: 'fact-0',
      session: 'facts',
      date: null,
      speaker: '',
      text: '0. Thomas Kyd was born in the city of London.',
      captions: [],
    });
    expect(ep.turns[454]!.text).toBe('454. The name of the current head of the Tucson government is Jonathan Rothschild.');
    ep.turns.forEach((t, i) => expect(t.text.startsWith(`${i}. `)).toBe(true));
    expect(ep.meta).toMatchObject({
      source: 'factconsolidation_sh_6k',
      split: 'Conflict_Resolution',
      header: 'Here is a list of facts:',
      facts: 455,
      context_chars: 26157,
    });
    expect(ep.policy).toEqual({ chunking: 'turn' });
  });

  test('one chunk per fact, keeping its number (the chunk count equals the fact count)', () => {
    const ep = ds.episodes[0]!;
    const policy = effectivePolicy(memoryagentbench, cfg, ep);
    expect(policy).toEqual({ chunking: 'turn', serialisation: 'plain', expandToTurns: false, order: 'rank', dedupTurns: false });
    const ing = ingest(ep, ep.turns.length, policy, cfg.chunking);
    expect(ing.chunks).toHaveLength(455);
    expect(ing.chunks[259]!.text).toBe(ep.turns[259]!.text);
    expect(ing.chunks[91]!.text).toBe('91. Nobuhiro Watsuki is famous for Rurouni Kenshin.');
    expect(ing.chunks[259]!.text).toBe('259. Nobuhiro Watsuki is famous for The Fairly OddParents.');
    // the user's flags still win over the episode's override
    const noExpand = RunConfigSchema.parse({ benchmark: 'memoryagentbench', assembly: { expand: true } });
    expect(effectivePolicy(memoryagentbench, noExpand, ep).expandToTurns).toBe(true);
  });

  test('100 questions with ids from qa_pair_ids and every acceptable answer', () => {
    expect(ds.questions).toHaveLength(100);
    const q = ds.questions[1]!;
    expect(q).toMatchObject({
      id: 'factconsolidation_sh_6k/0:factconsolidation_sh_6k_no1',
      episode: 'factconsolidation_sh_6k/0',
      type: 'factconsolidation_sh_6k',
      typeId: 'CR',
      text: 'What is Nobuhiro Watsuki famous for?',
      gold: 'The Fairly OddParents',
      acceptable: ['The Fairly OddParents'],
      evidence: [],
    });
    expect(q.meta).toMatchObject({
      qa_pair_id: 'factconsolidation_sh_6k_no1',
      competency: 'CR',
      task: 'factconsolidation_sh_6k',
      gold_list: ['The Fairly OddParents'],
    });
    expect(new Set(ds.questions.map((x) => x.id)).size).toBe(100);
  });

  test('a partial split is a warning, not an error', () => {
    expect(ds.warnings.map((w) => w.message).join('\n')).toMatch(/partial Conflict_Resolution input \(1 of 8 sources/);
  });

  test('the paper subset (default) has no 6k row: a clear error naming the way out', async () => {
    await expect(load(SAMPLE)).rejects.toThrow(/no question selected .*try -B subset=all or -B sources/);
    const bySource = await load(SAMPLE, { sources: 'factconsolidation_sh_6k' });
    expect(bySource.questions).toHaveLength(100);
  });
});

describe('constructed rows, one per source format', () => {
  let ds: Dataset;
  beforeAll(async () => {
    ds = await load(CONSTRUCTED);
  });
  const ep = (id: string) => ds.episodes.find((e) => e.id === id)!;
  const qs = (source: string) => ds.questions.filter((q) => q.type === source);

  test('the paper subset takes all four competencies, in split order', () => {
    expect(ds.episodes.map((e) => e.id)).toEqual([
      'ruler_qa1_197K/0',
      'longmemeval_s*/0',
      'eventqa_full/0',
      'icl_banking77_5900shot_balance/0',
      'recsys_redial_full/0',
      'infbench_sum_eng_shots2/0',
      'detective_qa/0',
      'factconsolidation_sh_262k/0',
      'factconsolidation_mh_262k/0',
    ]);
    expect([...new Set(ds.questions.map((q) => q.typeId))]).toEqual(['AR', 'TTL', 'LRU', 'CR']);
    expect(ds.warnings.some((w) => /subset is incomplete: no rows of ruler_qa2_421K/.test(w.message))).toBe(true);
  });

  test('window sources: the turns give back the context text exactly', () => {
    const rows = (['Accurate_Retrieval', 'Test_Time_Learning', 'Long_Range_Understanding'] as const).flatMap(
      (s) => JSON.parse(readFileSync(join(CONSTRUCTED, `${s}.constructed.json`), 'utf8')) as Row[],
    );
    for (const row of rows) {
      const e = ds.episodes.find((x) => x.meta?.source === row.metadata.source)!;
      expect(e.policy).toBeUndefined();
      expect(e.turns.map((t) => t.text + '\n').join('')).toBe(row.context);
      expect(e.turns.every((t) => t.text.trim().length > 0)).toBe(true);
    }
  });

  test('RULER: documents as sessions', () => {
    const turns = ep('ruler_qa1_197K/0').turns;
    expect(turns.map((t) => [t.id, t.session])).toEqual([
      ['L1', 'doc-1'],
      ['L5', 'doc-2'],
      ['L9', 'doc-3'],
    ]);
    expect(turns[2]!.text).toBe(
      "Document 3:\nSuper Bowl 50 was an American football game played on February 7, 2016 at Levi's Stadium in Santa Clara, California.",
    );
    expect(qs('ruler_qa1_197K')[1]!.acceptable).toEqual([
      "Levi's Stadium",
      "Levi's Stadium in Santa Clara, California",
      'Santa Clara, California',
    ]);
  });

  test('LongMemEval: chat sessions with their date; question type, id, date and abstention kept', () => {
    const turns = ep('longmemeval_s*/0').turns;
    expect(turns.map((t) => [t.session, t.date])).toEqual([
      ['chat-1', '2023/05/20 (Sat) 02:21'],
      ['chat-2', '2023/05/25 (Thu) 18:40'],
    ]);
    expect(turns[0]!.text.split('\n')[1]).toBe('user: I just adopted a rescue greyhound named Biscuit last weekend.');
    const [a, b, c] = qs('longmemeval_s*');
    expect(a!.id).toBe('longmemeval_s*/0:longmemeval_s*_no0');
    expect(a!.questionDate).toBe('2023/05/27 (Sat) 22:54');
    expect(b!.meta).toMatchObject({ question_type: 'knowledge-update', question_id: '6a1eabeb', abstention: false });
    expect(c!.meta).toMatchObject({ question_id: 'e47becba_abs', abstention: true });
  });

  test('ICL: examples (text + label line) as blocks; labels as golds', () => {
    const turns = ep('icl_banking77_5900shot_balance/0').turns;
    expect(turns.map((t) => t.session)).toEqual(['block-0', 'block-1', 'block-2']);
    expect(turns[0]!.text).toBe('how do I top up my card?\nlabel: 12\n');
    expect(qs('icl_banking77_5900shot_balance').map((q) => q.gold)).toEqual(['7', '43']);
  });

  test('recsys: golds are entity ids; entity2id.json found beside the data', () => {
    const q = qs('recsys_redial_full')[0]!;
    expect(q.acceptable).toEqual(['101', '102']);
    expect(q.meta!.entity2id).toBe(join(CONSTRUCTED, 'entity2id.json'));
  });

  test('∞Bench-Sum: the single question is scored against the whole nested answer list; keypoints kept', () => {
    const q = qs('infbench_sum_eng_shots2')[0]!;
    expect(q.acceptable).toHaveLength(1);
    expect(q.meta!.gold_list).toEqual([q.gold]);
    expect(q.meta!.keypoints).toHaveLength(3);
  });

  test('DetectiveQA and FactConsolidation mh/sh', () => {
    expect(qs('detective_qa').map((q) => q.gold)).toEqual(['C. The Brandt couple', 'B. From the outside']);
    expect(ep('factconsolidation_mh_262k/0').turns).toHaveLength(5);
    expect(ep('factconsolidation_mh_262k/0').policy).toEqual({ chunking: 'turn' });
  });

  test('-B splits and -B sources=select; unknown names are errors naming the known ones', async () => {
    const cr = await load(CONSTRUCTED, { splits: 'CR' });
    expect([...new Set(cr.questions.map((q) => q.type))]).toEqual(['factconsolidation_sh_262k', 'factconsolidation_mh_262k']);
    const two = await load(CONSTRUCTED, { sources: 'detective_qa,ruler_qa1_197K' });
    expect(two.episodes.map((e) => e.id)).toEqual(['ruler_qa1_197K/0', 'detective_qa/0']);
    await expect(load(CONSTRUCTED, { splits: 'XX' })).rejects.toThrow(/unknown split 'XX'/);
    await expect(load(CONSTRUCTED, { sources: 'nope' })).rejects.toThrow(/source\(s\) not in the data: nope/);
    await expect(load(CONSTRUCTED, { subset: 'most' })).rejects.toThrow(/unknown subset 'most'/);
  });
});

describe('Parquet (the released format)', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir('rawrag-mab-pq-');
    mkdirSync(join(dir, 'data'));
    for (const split of ['Accurate_Retrieval', 'Test_Time_Learning', 'Long_Range_Understanding', 'Conflict_Resolution']) {
      const rows = JSON.parse(readFileSync(join(CONSTRUCTED, `${split}.constructed.json`), 'utf8')) as Row[];
      // one row per row group, so reads cross row-group boundaries
      writeRowsParquet(join(dir, 'data', `${split}-00000-of-00001.parquet`), rows, { rowGroupSize: 1 });
    }
    writeFileSync(join(dir, 'entity2id.json'), readFileSync(join(CONSTRUCTED, 'entity2id.json')));
  });

  test('the same episodes and questions as the JSON form', async () => {
    const fromJson = await load(CONSTRUCTED, { subset: 'all' });
    const fromParquet = await load(dir, { subset: 'all' });
    expect(fromParquet.episodes).toEqual(fromJson.episodes);
    const strip = (d: Dataset) => d.questions.map((q) => ({ ...q, meta: { ...q.meta, entity2id: undefined } }));
    expect(strip(fromParquet)).toEqual(strip(fromJson));
    expect(fromParquet.questions.find((q) => q.type === 'recsys_redial_full')!.meta!.entity2id).toBe(join(dir, 'entity2id.json'));
    expect(fromParquet.source.version).toContain('Conflict_Resolution-00000-of-00001.parquet');
    expect(fromParquet.source.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  test('a split the user did not ask for is not read', async () => {
    const only = await load(join(dir, 'data'), { splits: 'TTL', subset: 'all' });
    expect([...new Set(only.questions.map((q) => q.typeId))]).toEqual(['TTL']);
  });

  test('a full split whose counts differ from the release is an error; partial ones warn', async () => {
    const sources = ['6k', '32k', '64k', '262k'].flatMap((l) => [`factconsolidation_mh_${l}`, `factconsolidation_sh_${l}`]);
    const rows: Row[] = sources.map((source, i) => {
      const n = i === 3 ? 99 : 100;
      return {
        context: 'Here is a list of facts:\n0. A is B.\n',
        questions: Array.from({ length: n }, (_, k) => `q${k}`),
        answers: Array.from({ length: n }, () => ['B']),
        metadata: { source, qa_pair_ids: Array.from({ length: n }, (_, k) => `${source}_no${k}`) },
      };
    });
    const full = join(dir, 'Conflict_Resolution-full.parquet');
    writeRowsParquet(full, rows);
    await expect(load(full, { subset: 'all' })).rejects.toThrow(
      /Conflict_Resolution does not match the release @ 7ea0669: factconsolidation_sh_32k: 1 rows \/ 99 questions, expected 1 \/ 100/,
    );
    rows[3] = {
      ...rows[3]!,
      questions: [...rows[3]!.questions, 'q99'],
      answers: [...rows[3]!.answers, ['B']],
      metadata: { ...rows[3]!.metadata, qa_pair_ids: [...(rows[3]!.metadata.qa_pair_ids as string[]), 'x_no99'] },
    };
    writeRowsParquet(full, rows);
    const ok = await load(full, { subset: 'all' });
    expect(ok.questions).toHaveLength(800);
    expect(ok.warnings.filter((w) => /partial|differs/.test(w.message))).toEqual([]);
    // the paper subset of a full CR split: the two 262k rows
    expect((await load(full)).questions).toHaveLength(200);
  });

  test('bad input names the file and the place', async () => {
    const bad = join(dir, 'Conflict_Resolution-bad.json');
    writeFileSync(bad, JSON.stringify([{ context: 'x', questions: ['q'], answers: [['a']], metadata: {} }]));
    await expect(load(bad, { subset: 'all' })).rejects.toThrow(
      /Conflict_Resolution-bad.json: row 0.metadata.source: metadata.source missing/,
    );
    writeFileSync(
      bad,
      JSON.stringify([
        {
          context: 'x',
          questions: ['q1', 'q2'],
          answers: [['a']],
          metadata: { source: 'factconsolidation_sh_6k', qa_pair_ids: ['a', 'b'] },
        },
      ]),
    );
    await expect(load(bad, { subset: 'all' })).rejects.toThrow(/row 0.answers: 2 questions but 1 answer lists/);
    const notPq = join(dir, 'Test_Time_Learning-broken.parquet');
    writeFileSync(notPq, 'not parquet');
    await expect(load(notPq, { subset: 'all' })).rejects.toThrow(/Test_Time_Learning-broken.parquet: cannot read Parquet/);
  });
});

describe('context -> turns', () => {
  test('repeated qa_pair_ids are kept apart and reported', async () => {
    const dir = tempDir('rawrag-mab-dup-');
    const f = join(dir, 'Conflict_Resolution.json');
    writeFileSync(
      f,
      JSON.stringify([
        {
          context: '0. A.\n',
          questions: ['q1', 'q2'],
          answers: [['a'], ['b']],
          metadata: { source: 'factconsolidation_sh_6k', qa_pair_ids: ['x', 'x'] },
        },
      ]),
    );
    const ds = await load(f, { subset: 'all' });
    expect(ds.questions.map((q) => q.id)).toEqual(['factconsolidation_sh_6k/0:x', 'factconsolidation_sh_6k/0:x~2']);
    expect(ds.warnings.some((w) => /qa_pair_id 'x' repeated/.test(w.message))).toBe(true);
  });

  test('fact serials that skip are reported; a non-numbered line continues its fact', () => {
    const warnings: LoadWarning[] = [];
    const r = contextToTurns('factconsolidation_sh_6k', 'Header\n0. A.\n2. B.\n   continued\n', 'p', warnings);
    expect(r.turns.map((t) => t.text)).toEqual(['0. A.', '2. B.\n   continued']);
    expect(warnings.map((w) => w.message).join('\n')).toMatch(/not contiguous from 0 \(fact 2 at position 1\)/);
  });

  test('a million-character context: lines read lazily, turns capped in size, the text reproduced', () => {
    const line = 'The quick brown fox jumps over the lazy dog near the river bank at dawn. ';
    const text = Array.from({ length: 14000 }, (_, i) => line + (i % 7 === 6 ? '\n' : '')).join('');
    expect(text.length).toBeGreaterThan(1_000_000);
    let n = 0;
    for (const _ of lines(text)) n++;
    expect(n).toBe(2000);
    const r = contextToTurns('eventqa_full', text, 'p', []);
    // 518-character lines, no blank line: three lines per turn (a fourth would pass 2,000 characters)
    expect(r.turns).toHaveLength(667);
    expect(Math.max(...r.turns.map((t) => t.text.length))).toBeLessThanOrEqual(MAX_TURN_CHARS);
    expect(r.turns.map((t) => t.text + '\n').join('')).toBe(text);
    // a single longer line is one turn, not cut
    const long = 'x'.repeat(5000);
    expect(contextToTurns('eventqa_full', `a\n${long}\nb\n`, 'p', []).turns.map((t) => t.text.length)).toEqual([1, 5000, 1]);
  });

  test('row runs are contiguous and bounded', () => {
    expect(runs([0, 1, 2, 5, 6, 9])).toEqual([
      [0, 3],
      [5, 7],
      [9, 10],
    ]);
    expect(runs([0, 1, 2, 3, 4, 5], 4)).toEqual([
      [0, 4],
      [4, 6],
    ]);
  });
});
