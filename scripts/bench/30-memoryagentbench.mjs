// MemoryAgentBench offline run time and peak memory (embedded retriever, no reader), each case in
// its own child process so its peak RSS is its own:
//   1. the shared real row (factconsolidation_sh_6k: 455 facts, 100 Qs);
//   2. a synthetic 1.1 M-character novel (EventQA-like: window chunking), read from Parquet;
//   3. a synthetic 18,332-fact FactConsolidation pool (the 262k rows' size, one chunk per fact);
//   4. when `rawrag data pull memoryagentbench` has fetched the release: its largest rows
//      (factconsolidation_sh_262k, 1.1 M chars; ruler_qa2_421K, the longest RULER context).
// Synthetic data is seeded (seedrandom) and written to a temp folder; nothing is downloaded.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import seedrandom from 'seedrandom';
import { childFiguresAfterPriming } from '../lib/vector-store.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'rawrag-bench-mab-'));

// Targets: generous bounds for a 2-core machine; the point is to catch regressions in scale.
const TARGETS = {
  sample: { seconds: 30, rssMb: 400 },
  novel: { seconds: 60, rssMb: 600 },
  facts: { seconds: 60, rssMb: 600 },
  sh_262k: { seconds: 60, rssMb: 800 },
  qa2_421K: { seconds: 120, rssMb: 1200 },
};

function words(rng, n) {
  const vocab = [
    'the',
    'river',
    'lantern',
    'mara',
    'stranger',
    'coat',
    'letter',
    'tower',
    'stairs',
    'green',
    'wax',
    'harbour',
    'night',
    'brother',
    'ship',
    'storm',
    'quiet',
    'village',
    'map',
    'bell',
    'garden',
    'stone',
    'winter',
    'road',
    'candle',
  ];
  return Array.from({ length: n }, () => vocab[Math.floor(rng() * vocab.length)]).join(' ');
}

function novelRows() {
  const rng = seedrandom('mab-novel');
  const paras = [];
  let len = 0;
  const facts = [];
  for (let i = 0; len < 1_100_000; i++) {
    const fact = `Captain Number${i} sailed to Port${i} in the year ${1700 + (i % 300)}.`;
    if (i % 100 === 0) facts.push([i, fact]);
    const p = `${words(rng, 40)}. ${fact} ${words(rng, 30)}.`;
    paras.push(p);
    len += p.length + 2;
  }
  const context = paras.join('\n\n') + '\n';
  const qs = facts.slice(0, 20);
  return [
    {
      context,
      questions: qs.map(([i]) => `Where did Captain Number${i} sail to?`),
      answers: qs.map(([i]) => [`Port${i}`]),
      metadata: { source: 'eventqa_full', qa_pair_ids: qs.map((_, k) => `eventqa_full_no${k}`) },
    },
  ];
}

function factRows() {
  const rng = seedrandom('mab-facts');
  const lines = ['Here is a list of facts:'];
  for (let i = 0; i < 18332; i++)
    lines.push(`${i}. The ${words(rng, 2)} of Entity${i % 9000} in ${words(rng, 2)} is Value${Math.floor(rng() * 100000)}.`);
  const context = lines.join('\n') + '\n';
  const asked = Array.from({ length: 100 }, (_, k) => k * 91);
  return [
    {
      context,
      questions: asked.map((i) => `What is the ${lines[i + 1].split(' is ')[0].split(' ').slice(2).join(' ')}?`),
      answers: asked.map((i) => [lines[i + 1].split(' is ').pop().replace(/\.$/, '')]),
      metadata: { source: 'factconsolidation_sh_262k', qa_pair_ids: asked.map((_, k) => `factconsolidation_sh_262k_no${k}`) },
    },
  ];
}

async function writeParquet(path, rows) {
  try {
    const { parquetWriteBuffer } = await import('hyparquet-writer');
    const str = (name) => ({ name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' });
    const list = (name, children) => [
      { name, repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
      { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
      ...children,
    ];
    const schema = [
      { name: 'root', num_children: 4 },
      str('context'),
      ...list('questions', [str('element')]),
      ...list('answers', [
        { name: 'element', repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
        { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
        str('element'),
      ]),
      { name: 'metadata', repetition_type: 'OPTIONAL', num_children: 2 },
      ...list('qa_pair_ids', [str('element')]),
      str('source'),
    ];
    const buf = parquetWriteBuffer({
      schema,
      columnData: [
        { name: 'context', data: rows.map((r) => r.context) },
        { name: 'questions', data: rows.map((r) => r.questions) },
        { name: 'answers', data: rows.map((r) => r.answers) },
        { name: 'metadata', data: rows.map((r) => r.metadata) },
      ],
    });
    writeFileSync(path, new Uint8Array(buf));
    return true;
  } catch {
    return false; // hyparquet-writer is a dev dependency; fall back to the JSON form
  }
}

// The child: one offline run through the real runner, reporting time, peak RSS and chunk counts.
const CHILD = `
import { executeRun } from ${JSON.stringify(join(ROOT, 'dist/pipeline/run.js'))};
import { RunConfigSchema } from ${JSON.stringify(join(ROOT, 'dist/systems/registry.js'))};
const [data, out, subset, sources] = process.argv.slice(1);
const cfg = RunConfigSchema.parse({ benchmark: 'memoryagentbench', data, options: sources ? { sources } : { subset } });
const t0 = performance.now();
const r = await executeRun({ cfg, out }, { log() {} });
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage();
const s = r.summary.benchmark_summary;
console.log(JSON.stringify({ seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, rssMb: process.resourceUsage().maxRSS / 1024,
  n: r.summary.n, timings: r.manifest.timings, answer_in_evidence: s.overall.answer_in_evidence }));
`;

function runCase(name, data, extra = '', sources = '') {
  const r = childFiguresAfterPriming(name, CHILD, (i) => [data, join(work, `run-${name}-${i}`), 'all', sources]);
  if (r.failed !== undefined) {
    console.log(`${name}: FAILED\n${r.failed}`);
    return false;
  }
  const t = TARGETS[name];
  const ok = r.seconds <= t.seconds && r.rssMb <= t.rssMb;
  console.log(
    `${name.padEnd(7)} ${extra}\n` +
      `        ${r.n} questions  total ${r.seconds.toFixed(1)} s wall (target <= ${t.seconds} s), ${r.cpuSeconds.toFixed(1)} s CPU  ` +
      `[load ${(r.timings.load_ms / 1000).toFixed(1)} s, ingest+index ${(r.timings.ingest_ms / 1000).toFixed(1)} s, retrieve ${(r.timings.retrieve_ms / 1000).toFixed(1)} s]\n` +
      `        peak RSS ${r.rssMb.toFixed(0)} MB (target <= ${t.rssMb} MB), answer-in-evidence ${r.answer_in_evidence?.toFixed(1)} %  ${ok ? 'OK' : 'OVER TARGET'}`,
  );
  return ok;
}

let ok = true;
try {
  ok =
    runCase(
      'sample',
      join(ROOT, 'tests/fixtures/memoryagentbench/Conflict_Resolution.sample.json'),
      'real row: factconsolidation_sh_6k, 455 facts (26,157 chars), one chunk per fact',
    ) && ok;

  const novel = novelRows();
  const novelDir = join(work, 'novel');
  spawnSync('mkdir', ['-p', novelDir]);
  const pq = await writeParquet(join(novelDir, 'Accurate_Retrieval-00000-of-00001.parquet'), novel);
  if (!pq) writeFileSync(join(novelDir, 'Accurate_Retrieval.synthetic.json'), JSON.stringify(novel));
  ok =
    runCase(
      'novel',
      novelDir,
      `synthetic ${novel[0].context.length.toLocaleString('en')}-char novel, 256/224 windows, read from ${pq ? 'Parquet' : 'JSON'}`,
    ) && ok;

  const facts = factRows();
  const factsDir = join(work, 'facts');
  spawnSync('mkdir', ['-p', factsDir]);
  writeFileSync(join(factsDir, 'Conflict_Resolution.synthetic.json'), JSON.stringify(facts));
  ok =
    runCase('facts', factsDir, `synthetic 18,332-fact pool (${facts[0].context.length.toLocaleString('en')} chars), one chunk per fact`) &&
    ok;

  const release = join(ROOT, 'datasets/memoryagentbench');
  const cr = join(release, 'Conflict_Resolution-00000-of-00001.parquet');
  const ar = join(release, 'Accurate_Retrieval-00000-of-00001.parquet');
  if (existsSync(cr))
    ok = runCase('sh_262k', cr, 'release row factconsolidation_sh_262k (18,332 facts)', 'factconsolidation_sh_262k') && ok;
  if (existsSync(ar)) ok = runCase('qa2_421K', ar, 'release row ruler_qa2_421K (256/224 windows)', 'ruler_qa2_421K') && ok;
  if (!existsSync(cr) && !existsSync(ar))
    console.log('release  not present (rawrag data pull memoryagentbench): largest available row = the shared sample');
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(ok ? 0 : 1);
