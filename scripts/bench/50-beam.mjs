// BEAM offline run time and peak memory (embedded retriever, no reader), each case in its own child
// process so its peak RSS is its own:
//   1. real100k: the real 100K conversation (tests/fixtures/beam/100K/5: 232 messages, 20 questions);
//      real100k-x20: the size of the 100K release (20 conversations, 400 questions), as that real
//      conversation under 20 folder names, as a first run on a fresh machine (an empty temp cache:
//      the GloVe cache build is included): target < 2 min;
//   2. synthetic10m: a seeded conversation in BEAM's 10M per-plan layout (plan-0..plan-9/chat.json,
//      global message ids, one time_anchor per batch) of about BEAM_BENCH_TOKENS cl100k tokens
//      (default 10,000,000), with 20 probing questions about facts planted in it. Written to a temp
//      folder by a separate child first, then run through executeRun like `rawrag run beam`.
// Figures: wall time, the runner's load/ingest/search timings, BEAM's per-conversation add/search
// times, tokens and chunks ingested, evidence coverage of the planted facts, and peak RSS.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import seedrandom from 'seedrandom';
import { measuredAfterPriming } from '../lib/vector-store.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TOKENS = Number(process.env.BEAM_BENCH_TOKENS ?? 10_000_000);
// Generous bounds for a 2-core machine; the point is to catch regressions in scale.
const TARGETS = {
  real100k: { seconds: 20, rssMb: 600 },
  'real100k-x20': { seconds: 120, rssMb: 1000 },
  synthetic10m: { seconds: 900 * (TOKENS / 10_000_000), rssMb: 400 + 1100 * (TOKENS / 10_000_000) },
};
const ABILITIES = [
  'abstention',
  'contradiction_resolution',
  'event_ordering',
  'information_extraction',
  'instruction_following',
  'knowledge_update',
  'multi_session_reasoning',
  'preference_following',
  'summarization',
  'temporal_reasoning',
];
const GOLD = {
  abstention: 'ideal_response',
  contradiction_resolution: 'ideal_answer',
  summarization: 'ideal_summary',
  instruction_following: 'expected_compliance',
  preference_following: 'expected_compliance',
};

/** Writes the synthetic 10M-layout conversation under `dir`/10M/1 (runs in its own child). */
async function generate(dir) {
  const { getTokenizer } = await import(join(ROOT, 'dist/retrieval/tokenizer.js'));
  const rng = seedrandom('beam-10m');
  const syll = ['ka', 'lo', 'mi', 'ra', 'tu', 'ven', 'sor', 'pel', 'dan', 'quo', 'ith', 'ber', 'nal', 'fo', 'gre', 'shi'];
  const vocab = Array.from({ length: 6000 }, () =>
    Array.from({ length: 2 + Math.floor(rng() * 3) }, () => syll[Math.floor(rng() * syll.length)]).join(''),
  );
  const common = [
    'the',
    'and',
    'to',
    'of',
    'a',
    'in',
    'we',
    'you',
    'it',
    'is',
    'for',
    'that',
    'on',
    'with',
    'plan',
    'step',
    'next',
    'budget',
  ];
  // Zipf-like draw: common words often, the long tail rarely (BM25 postings of realistic shape).
  const word = () => (rng() < 0.45 ? common[Math.floor(rng() * common.length)] : vocab[Math.floor(vocab.length * rng() ** 2)]);
  const text = (n) => Array.from({ length: n }, word).join(' ');
  const months = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
  const conv = join(dir, '10M', '1');
  const planted = [];
  // ~3 characters per cl100k token for this text: aim the character count at the token target.
  const perPlanChars = (TOKENS * 3) / 10;
  let id = 0;
  for (let p = 0; p < 10; p++) {
    const batches = [];
    let chars = 0;
    for (let b = 1; chars < perPlanChars; b++) {
      const turns = [];
      for (let t = 0; t < 20 && chars < perPlanChars; t++) {
        const user = {
          role: 'user',
          id: id++,
          index: `${b},${t + 1}`,
          question_type: 'main_question',
          content: `${text(60)} ->-> ${b},${t + 1}`,
        };
        if (t === 0)
          user.time_anchor = `${months[(p + b) % 12]}-${String(1 + ((b * 7) % 28)).padStart(2, '0')}-${2024 + Math.floor(p / 4)}`;
        // 20 facts: plan k % 10, batch 1 or 2, fourth exchange.
        const k = t === 3 && b <= 2 ? (b === 1 ? p : 10 + p) : -1;
        if (k >= 0) {
          user.content = `My tenant code for warehouse Zed${k}quay is ${1000 + k * 37}. ${user.content}`;
          planted.push({ k, id: user.id });
        }
        const reply = { role: 'assistant', id: id++, content: text(520) };
        chars += user.content.length + reply.content.length;
        turns.push([user, reply]);
      }
      batches.push({ batch_number: b, turns, time_anchor: null });
    }
    mkdirSync(join(conv, `plan-${p}`), { recursive: true });
    writeFileSync(join(conv, `plan-${p}`, 'chat.json'), JSON.stringify(batches));
  }
  const probing = {};
  ABILITIES.forEach((a, ai) => {
    probing[a] = [0, 1].map((i) => {
      const f = planted.find((x) => x.k === 2 * ai + i);
      return {
        question: `What is my tenant code for warehouse Zed${f.k}quay?`,
        [GOLD[a] ?? 'answer']: String(1000 + f.k * 37),
        difficulty: 'easy',
        rubric: [`LLM response should state: ${1000 + f.k * 37}`],
        source_chat_ids: [f.id],
      };
    });
  });
  mkdirSync(join(conv, 'probing_questions'), { recursive: true });
  writeFileSync(join(conv, 'probing_questions', 'probing_questions.json'), JSON.stringify(probing));
  // cl100k tokens, estimated from every 50th message (tokenising all 10 M here would double the bench).
  const enc = getTokenizer('cl100k_base');
  let sampleChars = 0;
  let sampleTokens = 0;
  let totalChars = 0;
  for (const { file } of chatFilesOf(conv)) {
    for (const batch of JSON.parse(readFileSync(file, 'utf8'))) {
      for (const m of batch.turns.flat()) {
        totalChars += m.content.length;
        if (m.id % 50 === 0) {
          sampleChars += m.content.length;
          sampleTokens += enc.encode(m.content).length;
        }
      }
    }
  }
  console.log(JSON.stringify({ messages: id, planted: planted.length, tokens: Math.round((totalChars * sampleTokens) / sampleChars) }));
}

function chatFilesOf(conv) {
  return Array.from({ length: 10 }, (_, p) => ({ file: join(conv, `plan-${p}`, 'chat.json') }));
}

/** Runs one offline BEAM run in this process and prints its figures (runs in its own child). */
async function measure(data, size) {
  // The run's own timings exclude nothing: load, ingest and search all happen inside executeRun.
  const { executeRun } = await import(join(ROOT, 'dist/pipeline/run.js'));
  const { resolveConfig } = await import(join(ROOT, 'dist/config/load.js'));
  const { RunConfigSchema } = await import(join(ROOT, 'dist/systems/registry.js'));
  const out = mkdtempSync(join(tmpdir(), 'rawrag-bench-beam-run-'));
  const cfg = resolveConfig({ benchmark: 'beam', data, options: { size } }, 'bench', RunConfigSchema);
  const t0 = performance.now();
  const { manifest, summary } = await executeRun({ cfg, out: join(out, 'run') }, { log: () => {} });
  const seconds = (performance.now() - t0) / 1000;
  rmSync(out, { recursive: true, force: true });
  const convs = summary.benchmark_summary.efficiency.conversations;
  const sum = (f) => convs.reduce((s, c) => s + c[f], 0);
  const eff =
    convs.length === 1
      ? convs[0]
      : { messages: sum('messages'), questions: sum('questions'), add_ms: sum('add_ms'), search_ms: sum('search_ms') };
  eff.add_ms_per_message = eff.add_ms / eff.messages;
  eff.search_ms_per_question = eff.search_ms / eff.questions;
  eff.conversations = convs.length;
  console.log(
    JSON.stringify({
      seconds,
      timings: manifest.timings,
      conversation: eff,
      coverage_all: summary.overall.coverage.all,
      peakRssMb: process.resourceUsage().maxRSS / 1024,
      // CPU time is what a busy machine does not inflate (wall time does).
      cpuSeconds: (process.resourceUsage().userCPUTime + process.resourceUsage().systemCPUTime) / 1e6,
    }),
  );
}

function child(args, env = process.env) {
  const r = spawnSync(process.execPath, ['--max-old-space-size=6144', fileURLToPath(import.meta.url), ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
    env,
  });
  if (r.status !== 0) throw new Error(`child ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1));
}

function report(name, fig, tokens) {
  const t = TARGETS[name];
  const ok = fig.seconds <= t.seconds && fig.peakRssMb <= t.rssMb;
  const c = fig.conversation;
  console.log(
    `${name}: ${c.conversations > 1 ? `${c.conversations} conversations, ` : ''}${c.messages} messages${tokens ? `, ~${(tokens / 1e6).toFixed(2)} M tokens` : ''}, ${c.questions} questions`,
  );
  console.log(
    `  wall ${fig.seconds.toFixed(1)} s (target <= ${t.seconds.toFixed(0)} s), CPU ${fig.cpuSeconds.toFixed(1)} s; runner load ${(fig.timings.load_ms / 1000).toFixed(1)} s, ingest ${(fig.timings.ingest_ms / 1000).toFixed(1)} s, search ${fig.timings.retrieve_ms} ms`,
  );
  console.log(
    `  BEAM efficiency: add ${(c.add_ms / 1000).toFixed(2)} s (${c.add_ms_per_message.toFixed(3)} ms/message), search ${(c.search_ms / 1000).toFixed(2)} s (${c.search_ms_per_question.toFixed(1)} ms/question)`,
  );
  console.log(`  coverage_all of the gold messages: ${(100 * fig.coverage_all).toFixed(1)}%`);
  console.log(`  peak RSS ${fig.peakRssMb.toFixed(0)} MB (target <= ${t.rssMb.toFixed(0)} MB)  ${ok ? 'OK' : 'OVER TARGET'}`);
  return ok;
}

const [mode, a, b] = process.argv.slice(2);
if (mode === '--generate') await generate(a);
else if (mode === '--measure') await measure(a, b);
else {
  let ok = report(
    'real100k',
    measuredAfterPriming('real100k', () => child(['--measure', join(ROOT, 'tests/fixtures/beam/100K/5'), '100K']), ''),
  );
  const work = mkdtempSync(join(tmpdir(), 'rawrag-bench-beam-'));
  try {
    const sizeDir = join(work, 'x20', '100K');
    mkdirSync(sizeDir, { recursive: true });
    for (let i = 1; i <= 20; i++) symlinkSync(join(ROOT, 'tests/fixtures/beam/100K/5'), join(sizeDir, String(i)), 'dir');
    const cache = join(work, 'empty-cache');
    mkdirSync(cache);
    const t20 = performance.now();
    const x20 = child(['--measure', sizeDir, '100K'], { ...process.env, RAWRAG_CACHE_DIR: cache, XDG_CACHE_HOME: cache });
    console.log(`real100k-x20: first run on an empty cache, ${((performance.now() - t20) / 1000).toFixed(1)} s including process start`);
    ok = report('real100k-x20', x20) && ok;
    const tg = performance.now();
    const gen = child(['--generate', work]);
    console.log(
      `synthetic10m: generated ${gen.messages} messages (~${(gen.tokens / 1e6).toFixed(2)} M cl100k tokens), ${gen.planted} planted facts in ${((performance.now() - tg) / 1000).toFixed(1)} s (not timed below)`,
    );
    const fig = measuredAfterPriming('synthetic10m', () => child(['--measure', work, '10M']), '');
    ok = report('synthetic10m', fig, gen.tokens) && ok;
    console.log(`paper: BEAM-1M (1,710 messages, ~1 M tokens) streaming ingest 0.33 h for RAW-RAG (MemOS 3.25 h, Memora 26.95 h)`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  process.exit(ok ? 0 : 1);
}
