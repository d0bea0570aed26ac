// LongMemEval offline (embedded retriever, no reader): run time, peak memory and the official
// retrieval figures, each case in its own child process so its peak RSS is its own.
//   1. the real S-cleaned sample (2 instances, ~46 sessions each) — the only S data available here:
//      the full 500-question files are not in the project (`rawrag data pull longmemeval`);
//   2. the real oracle sample (7 instances, one per type + one abstention);
//   3. a synthetic S-sized file (500 instances = the 2 real S instances repeated under new ids,
//      ~255 MB): streamed load of all 500, then 3 questions run — memory must stay far below the
//      file size, which is what lets the 2.7 GB M file load (M itself is not available here);
//   4. the LongMemEval-S development split (100 real instances, the release's format), when the
//      data folder named by RAWRAG_SHARED_DATA holds it (else datasets/, where a user would put
//      it): the whole file end to end, offline, as a first run on a fresh machine (an empty
//      temp cache, so the GloVe cache build is included), with recall_all/any@{1,5,15,60}; 500
//      questions cost about five times as much (target: < 5 min for the release's 500).
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childFiguresAfterPriming } from '../lib/vector-store.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'rawrag-bench-lme-'));
const S_SAMPLE = join(ROOT, 'tests/fixtures/longmemeval/longmemeval_s_cleaned.sample.json');
const ORACLE_SAMPLE = join(ROOT, 'tests/fixtures/longmemeval/longmemeval_oracle.sample.json');
const SHARED = process.env.RAWRAG_SHARED_DATA ?? join(ROOT, 'datasets');
const S_DEV = join(SHARED, 'longmemeval', 'longmemeval_s_cleaned.dev100.json');

// Targets for a 2-core machine; the point is to catch regressions in scale.
const TARGETS = {
  's-sample': { seconds: 60, rssMb: 500 },
  'oracle-sample': { seconds: 30, rssMb: 400 },
  's-synthetic': { seconds: 120, rssMb: 600 },
  // 500 questions in < 5 min: 100 in < 60 s (the one-time GloVe build included, so this is strict).
  's-dev100': { seconds: 60, rssMb: 1200, recallAll15: 0.8 },
};

const CHILD = `
import { executeRun } from ${JSON.stringify(join(ROOT, 'dist/pipeline/run.js'))};
import { RunConfigSchema } from ${JSON.stringify(join(ROOT, 'dist/systems/registry.js'))};
const [data, out, limit] = process.argv.slice(1);
const cfg = RunConfigSchema.parse({ benchmark: 'longmemeval', data, limit: limit === '0' ? null : Number(limit) });
const t0 = performance.now();
const r = await executeRun({ cfg, out }, { log() {} });
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage();
const s = r.summary.benchmark_summary;
console.log(JSON.stringify({ seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, rssMb: process.resourceUsage().maxRSS / 1024,
  n: r.summary.n, timings: r.manifest.timings, retrieval: s.retrieval, averaged: s.retrieval_questions, atK: r.summary.coverage_at_k,
  retriever: r.manifest.retriever.name, notes: r.manifest.retriever.notes }));
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

/** The dev split, whole, as a first run: its own empty cache folder (GloVe cache built inside the run). */
function runDev() {
  if (!existsSync(S_DEV)) {
    console.log(
      `s-dev100      skipped: ${S_DEV} not found (set RAWRAG_SHARED_DATA to the folder holding longmemeval/longmemeval_s_cleaned.dev100.json)`,
    );
    return true;
  }
  const cache = mkdtempSync(join(tmpdir(), 'rawrag-bench-lme-cache-'));
  const t0 = performance.now();
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD, S_DEV, join(work, 'run-dev'), '0'], {
    encoding: 'utf8',
    cwd: ROOT,
    maxBuffer: 1 << 26,
    env: { ...process.env, RAWRAG_CACHE_DIR: cache, XDG_CACHE_HOME: cache },
  });
  const wall = (performance.now() - t0) / 1000;
  rmSync(cache, { recursive: true, force: true });
  if (child.status !== 0) {
    console.log(`s-dev100: FAILED\n${child.stderr}`);
    return false;
  }
  const r = JSON.parse(child.stdout.trim().split('\n').pop());
  const t = TARGETS['s-dev100'];
  const r15 = r.atK['15'].all;
  const fast = wall <= t.seconds && r.rssMb <= t.rssMb;
  const good = r15 >= t.recallAll15;
  const ok = fast && good;
  console.log(
    `s-dev100      LongMemEval-S dev split, ${r.n} questions, retriever ${r.retriever}, first run (empty cache: GloVe cache built in the run)\n` +
      `              ${wall.toFixed(1)} s wall including process start (target <= ${t.seconds} s, i.e. 500 questions < 5 min), ${r.cpuSeconds.toFixed(1)} s CPU ` +
      `(load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores: on a busy machine the CPU time is the figure to compare)  ` +
      `[load ${(r.timings.load_ms / 1000).toFixed(1)} s, ingest+index ${(r.timings.ingest_ms / 1000).toFixed(1)} s, retrieve ${(r.timings.retrieve_ms / 1000).toFixed(1)} s]\n` +
      `              peak RSS ${r.rssMb.toFixed(0)} MB (target <= ${t.rssMb} MB)  ${fast ? 'OK' : 'OVER TARGET'}\n` +
      `              evidence = the has_answer turns (${r.atK['15'].n} questions; abstentions have none)\n` +
      `              k    recall_all  recall_any\n` +
      ['1', '5', '15', '60']
        .map((k) => `              ${k.padEnd(4)} ${r.atK[k].all.toFixed(3)}       ${r.atK[k].any.toFixed(3)}`)
        .join('\n') +
      `\n              recall_all@15 = ${r15.toFixed(3)} (target >= ${t.recallAll15})  ${good ? 'OK' : 'BELOW TARGET'}\n` +
      `              session recall_all@5 ${pct(r.retrieval['session_recall_all@5'])}, turn recall_all@50 ${pct(r.retrieval['turn_recall_all@50'])} (official exclusions)`,
  );
  return ok;
}

let ok = true;
try {
  ok = runDev() && ok;
  ok = runCase('s-sample', S_SAMPLE, 0, 'real S-cleaned sample, all questions') && ok;
  ok = runCase('oracle-sample', ORACLE_SAMPLE, 0, 'real oracle sample, all questions') && ok;
  const syn = join(work, 'longmemeval_s_synthetic.json');
  await writeSynthetic(syn);
  ok = runCase('s-synthetic', syn, 3, 'synthetic 500-instance S-sized file, streamed load of all 500, first 3 run') && ok;
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(ok ? 0 : 1);
