// LongMemEval offline (embedded retriever, no reader): run time, peak memory and the official
// retrieval figures, each case in its own child process so its peak RSS is its own.
//   1. the real S-cleaned sample (2 instances, ~46 sessions each) — the only S data available here:
//      the full 500-question files are not in the project (`rawrag data pull longmemeval`);
//   2. the real oracle sample (7 instances, one per type + one abstention);
//   3. a synthetic S-sized file (500 instances = the 2 real S instances repeated under new ids,
//      ~255 MB): streamed load of all 500, then 3 questions run — memory must stay far below the
//      file size, which is what lets the 2.7 GB M file load (M itself is not available here).
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childFiguresAfterPriming } from '../lib/vector-store.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'rawrag-bench-lme-'));
const S_SAMPLE = join(ROOT, 'tests/fixtures/longmemeval/longmemeval_s_cleaned.sample.json');
const ORACLE_SAMPLE = join(ROOT, 'tests/fixtures/longmemeval/longmemeval_oracle.sample.json');

// Targets for a 2-core machine; the point is to catch regressions in scale.
const TARGETS = {
  's-sample': { seconds: 60, rssMb: 500 },
  'oracle-sample': { seconds: 30, rssMb: 400 },
  's-synthetic': { seconds: 120, rssMb: 600 },
};

const CHILD = `
import { executeRun } from ${JSON.stringify(join(ROOT, 'dist/pipeline/run.js'))};
import { RunConfigSchema } from ${JSON.stringify(join(ROOT, 'dist/config/schema.js'))};
const [data, out, limit] = process.argv.slice(1);
const cfg = RunConfigSchema.parse({ benchmark: 'longmemeval', data, limit: limit === '0' ? null : Number(limit) });
const t0 = performance.now();
const r = await executeRun({ cfg, out }, { log() {} });
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage();
const s = r.summary.benchmark_summary;
console.log(JSON.stringify({ seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, rssMb: process.resourceUsage().maxRSS / 1024,
  n: r.summary.n, timings: r.manifest.timings, retrieval: s.retrieval, averaged: s.retrieval_questions }));
`;

const pct = (r) => (r && r.mean !== null ? `${(100 * r.mean).toFixed(1)} % (n=${r.n})` : '— (not reached)');

function runCase(name, data, limit, note) {
  const r = childFiguresAfterPriming(name, CHILD, (i) => [data, join(work, `run-${name}-${i}`), String(limit)]);
  if (r.failed !== undefined) {
    console.log(`${name}: FAILED\n${r.failed}`);
    return false;
  }
  const t = TARGETS[name];
  const ok = r.seconds <= t.seconds && r.rssMb <= t.rssMb;
  const mb = (statSync(data).size / 1e6).toFixed(1);
  console.log(
    `${name.padEnd(13)} ${note} (${mb} MB file)\n` +
      `              ${r.n} questions run  total ${r.seconds.toFixed(1)} s wall (target <= ${t.seconds} s), ${r.cpuSeconds.toFixed(1)} s CPU  ` +
      `[load ${(r.timings.load_ms / 1000).toFixed(1)} s, ingest+index ${(r.timings.ingest_ms / 1000).toFixed(1)} s, retrieve ${(r.timings.retrieve_ms / 1000).toFixed(1)} s]\n` +
      `              peak RSS ${r.rssMb.toFixed(0)} MB (target <= ${t.rssMb} MB)  ${ok ? 'OK' : 'OVER TARGET'}\n` +
      `              session recall_all@5 ${pct(r.retrieval['session_recall_all@5'])}, turn recall_all@50 ${pct(r.retrieval['turn_recall_all@50'])} ` +
      `(${r.averaged} question(s) averaged; official exclusions applied)`,
  );
  return ok;
}

/** 500 instances cycling through the real S sample's two, each under a new question id. */
async function writeSynthetic(path) {
  const base = JSON.parse(readFileSync(S_SAMPLE, 'utf8'));
  const out = createWriteStream(path);
  const write = (s) => new Promise((res) => (out.write(s) ? res() : out.once('drain', res)));
  await write('[\n');
  for (let i = 0; i < 500; i++) {
    const inst = { ...base[i % base.length], question_id: `syn${String(i).padStart(3, '0')}_${base[i % base.length].question_id}` };
    await write((i ? ',\n' : '') + JSON.stringify(inst));
  }
  await write('\n]\n');
  await new Promise((res) => out.end(res));
}

let ok = true;
try {
  ok = runCase('s-sample', S_SAMPLE, 0, 'real S-cleaned sample, all questions') && ok;
  ok = runCase('oracle-sample', ORACLE_SAMPLE, 0, 'real oracle sample, all questions') && ok;
  const syn = join(work, 'longmemeval_s_synthetic.json');
  await writeSynthetic(syn);
  ok = runCase('s-synthetic', syn, 3, 'synthetic 500-instance S-sized file, streamed load of all 500, first 3 run') && ok;
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(ok ? 0 : 1);
