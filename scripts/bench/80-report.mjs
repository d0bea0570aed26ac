// `rawrag report` on a large case: 2,000 LoCoMo-format questions (a synthetic 20-conversation file,
// read by the real adapter for the evidence text) x 4 systems, each item with 60 evidence turns,
// three judge votes and their raw replies. Prints the file size, the time to write it, and in
// headless Chromium the time until every chart is drawn and the time one explorer filter takes.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findChromium, launchChromium, openReport } from '../lib/chromium.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONVERSATIONS = 20;
const SESSIONS = 30;
const TURNS_PER_SESSION = 20;
const QUESTIONS_PER_CONVERSATION = 100;
const SYSTEMS = ['RAW-RAG/local', 'Mem0', 'MemOS', 'A-Mem'];
const SHOWN = 60;
const TARGETS = { bytes: 25 * 1024 * 1024, writeMs: 30_000, loadMs: 5_000, filterMs: 500 };

let state = 4242;
const rand = () => (state = (state * 16807) % 2147483647) / 2147483647;
const pick = (n) => Math.floor(rand() * n);
const WORDS =
  'memory dinner trip garden painting concert weekend sister project museum recipe hiking camera guitar library market beach coffee school festival'.split(
    ' ',
  );
const sentence = (n) => Array.from({ length: n }, () => WORDS[pick(WORDS.length)]).join(' ');

const dir = mkdtempSync(join(tmpdir(), 'rawrag-bench-report-'));
const dataFile = join(dir, 'locomo-large.json');
const data = Array.from({ length: CONVERSATIONS }, (_, c) => {
  const conversation = { speaker_a: 'Ann', speaker_b: 'Bob' };
  for (let s = 1; s <= SESSIONS; s++) {
    conversation[`session_${s}_date_time`] = `1:00 pm on ${s} May, 2023`;
    conversation[`session_${s}`] = Array.from({ length: TURNS_PER_SESSION }, (_, t) => ({
      speaker: t % 2 ? 'Bob' : 'Ann',
      dia_id: `D${s}:${t + 1}`,
      text: `${sentence(18)} (${c}.${s}.${t})`,
    }));
  }
  const qa = Array.from({ length: QUESTIONS_PER_CONVERSATION }, (_, q) => ({
    question: `What did Ann say about the ${WORDS[q % WORDS.length]} (${c}.${q})?`,
    answer: sentence(3),
    evidence: [`D${1 + pick(SESSIONS)}:${1 + pick(TURNS_PER_SESSION)}`, `D${1 + pick(SESSIONS)}:${1 + pick(TURNS_PER_SESSION)}`],
    category: 1 + (q % 4),
  }));
  return { sample_id: `conv-${c}`, conversation, qa };
});
writeFileSync(dataFile, JSON.stringify(data));

const TYPES = ['multi-hop', 'temporal', 'open-domain', 'single-hop'];
// The first turn the first system shows for the first question: its text must be on the page
// (per-question detail is embedded for every run's first questions, under the page's size cap).
let firstShown = null;
for (const [s, system] of SYSTEMS.entries()) {
  const run = join(dir, 'runs', `s${s}`);
  mkdirSync(run, { recursive: true });
  writeFileSync(
    join(run, 'manifest.json'),
    JSON.stringify({
      format: 'rawrag.run/1',
      run_id: `s${s}`,
      system,
      benchmark: 'locomo',
      setting: 'locomo/gpt-4o-mini',
      status: 'complete',
      config: { benchmark: 'locomo', data: dataFile, options: {}, reader: { model: 'gpt-4o-mini' }, judge: { model: 'gpt-4o-mini' } },
      policy: { serialisation: 'message' },
      timings: { load_ms: 300, ingest_ms: 20_000, retrieve_ms: 60_000, stages_ms: 400_000, total_ms: 480_300 },
    }),
  );
  const lines = [];
  for (const [c, conv] of data.entries()) {
    for (const [q, qa] of conv.qa.entries()) {
      const votes = [0, 1, 2].map(() => (rand() < 0.8 - 0.1 * s ? 1 : 0));
      const shown = Array.from({ length: SHOWN }, () => `D${1 + pick(SESSIONS)}:${1 + pick(TURNS_PER_SESSION)}`);
      firstShown ??= { c, turn: shown[0] };
      const all = qa.evidence.every((e) => shown.includes(e));
      lines.push(
        JSON.stringify({
          id: `conv-${c}:q${q}`,
          benchmark: 'locomo',
          episode: `conv-${c}`,
          type: TYPES[qa.category - 1],
          type_id: qa.category,
          question: qa.question,
          gold: qa.answer,
          gold_evidence: qa.evidence,
          evidence_turns: [...new Set(shown)],
          evidence_tokens: 4000,
          coverage: { all, any: all || rand() < 0.5 },
          answer: votes[0] ? qa.answer : "I don't know",
          score: votes.reduce((a, b) => a + b) / 3,
          details: {
            judge: {
              model: 'gpt-4o-mini',
              votes,
              runs: votes.map((v) => ({ verdict: v, raw: JSON.stringify({ label: v ? 'CORRECT' : 'WRONG' }) })),
            },
            usage: {
              reader: { prompt_tokens: 4200, completion_tokens: 12, cost_usd: 0.0006, requests: 1, cache_hits: 0 },
              judge: { prompt_tokens: 900, completion_tokens: 6, cost_usd: 0.0001, requests: 3, cache_hits: 0 },
            },
          },
          metrics: {},
          timings: {},
          error: null,
        }),
      );
    }
  }
  writeFileSync(join(run, 'items.jsonl'), lines.join('\n') + '\n');
}

const out = join(dir, 'report.html');
const t0 = performance.now();
const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'rawrag.js'), 'report', join(dir, 'runs'), '--out', out], { encoding: 'utf8' });
const writeMs = performance.now() - t0;
if (r.status !== 0) {
  console.error(r.stderr);
  process.exit(1);
}
const bytes = statSync(out).size;
const html = readFileSync(out, 'utf8');
const [session, turn] = firstShown.turn.slice(1).split(':').map(Number);
const sample = data[firstShown.c].conversation[`session_${session}`][turn - 1].text;
if (!html.includes(sample)) {
  console.error('the evidence text is missing from the report');
  process.exit(1);
}
const questions = CONVERSATIONS * QUESTIONS_PER_CONVERSATION;
console.log(`case: ${questions} questions x ${SYSTEMS.length} systems, ${SHOWN} evidence turns per item, 3 judge votes with raw replies`);
console.log(`  ${r.stdout.trim()}`);
const ok = (v, t) => (v < t ? 'PASS' : 'FAIL');
let fail = false;
const line = (label, value, unit, target) => {
  console.log(
    `  ${label}: ${value.toFixed(unit === 'MB' ? 1 : 0)} ${unit}  target < ${unit === 'MB' ? (target / 1024 / 1024).toFixed(0) : target} ${unit}  ${ok(unit === 'MB' ? value * 1024 * 1024 : value, target)}`,
  );
  fail ||= (unit === 'MB' ? value * 1024 * 1024 : value) >= target;
};
line('file size', bytes / 1024 / 1024, 'MB', TARGETS.bytes);
line('rawrag report (write)', writeMs, 'ms', TARGETS.writeMs);

const chromium = findChromium();
if (!chromium) {
  console.log('  load time in Chromium: SKIPPED (no Chromium: apt-get install -y chromium)');
} else {
  const { browser, close } = await launchChromium(chromium);
  try {
    const opened = await openReport(browser, out);
    line('load in Chromium until every chart is drawn', opened.loadMs, 'ms', TARGETS.loadMs);
    const t1 = performance.now();
    await opened.page.select('#x-outcome', 'incorrect');
    await opened.page.$eval('#x-count', (e) => e.textContent);
    line('explorer filter (incorrect) over 2,000 questions', performance.now() - t1, 'ms', TARGETS.filterMs);
    const errors = opened.consoleMessages.filter((m) => m.type === 'error').length + opened.pageErrors.length;
    console.log(`  console errors: ${errors}; network requests: ${opened.requests.length}`);
    fail ||= errors > 0 || opened.requests.length > 0;
  } finally {
    await close();
  }
}
if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true });
else console.log(dir);
if (fail) process.exitCode = 1;
