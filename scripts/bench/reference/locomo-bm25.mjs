#!/usr/bin/env node
// The reference the offline hot path is measured against (scripts/bench/12-hot-path.mjs): the
// least a LoCoMo retrieval run must do, written plainly and on its own (it imports nothing from
// rawrag). It reads the release file, serialises every turn as rawrag does (`[date] speaker: text
// [shared an image: caption]`, one line per turn, each line encoded with its newline), cuts the
// same cl100k_base windows (256 tokens, stride 224) with js-tiktoken, builds an Okapi BM25 index
// per conversation (k1 1.2, b 0.75, lower-case word tokens: no stemming, no stop list, no rerank),
// ranks the windows for the 1,540 questions of categories 1-4, writes each question's top 15 to
// a JSONL file and prints recall_all@15 (every gold turn touched by the top 15 windows).
//
//   node scripts/bench/reference/locomo-bm25.mjs [locomo10.json] [out.jsonl]
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';

const SIZE = 256;
const STRIDE = 224;
const TOP = 15;
const K1 = 1.2;
const B = 0.75;
const CATEGORIES = new Set([1, 2, 3, 4]);

const file = process.argv[2] ?? fileURLToPath(new URL('../../../datasets/locomo/locomo10.json', import.meta.url));
const out = process.argv[3] ?? null;
const enc = new Tiktoken(cl100k);
const words = (text) =>
  text
    .toLowerCase()
    .replace(/['’]/g, '')
    .match(/[\p{L}\p{N}]+/gu) ?? [];

/** Turns in session order, each with its dia_id and serialised line. */
function turnsOf(conversation) {
  const sessions = Object.keys(conversation)
    .map((k) => /^session_(\d+)$/.exec(k))
    .filter(Boolean)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  const turns = [];
  for (const n of sessions) {
    const date = conversation[`session_${n}_date_time`] || 'unknown';
    for (const t of conversation[`session_${n}`]) {
      const caption = t.blip_caption?.trim() ? ` [shared an image: ${t.blip_caption}]` : '';
      turns.push({ id: t.dia_id, line: `[${date}] ${t.speaker}: ${t.text}${caption}` });
    }
  }
  return turns;
}

/** Windows of SIZE tokens every STRIDE tokens; each knows the first and last turn it touches. */
function windowsOf(turns) {
  const tokens = [];
  const turnOfToken = [];
  turns.forEach((t, i) => {
    for (const id of enc.encode(t.line + '\n')) {
      tokens.push(id);
      turnOfToken.push(i);
    }
  });
  const windows = [];
  for (let start = 0; tokens.length > 0; start += STRIDE) {
    const end = Math.min(start + SIZE, tokens.length);
    windows.push({ text: enc.decode(tokens.slice(start, end)), first: turnOfToken[start], last: turnOfToken[end - 1] });
    if (end === tokens.length) break;
  }
  return windows;
}

class Bm25 {
  constructor(docs) {
    this.n = docs.length;
    this.len = docs.map((d) => d.length);
    this.avg = this.len.reduce((s, l) => s + l, 0) / Math.max(1, this.n) || 1;
    this.postings = new Map();
    docs.forEach((d, i) => {
      const tf = new Map();
      for (const w of d) tf.set(w, (tf.get(w) ?? 0) + 1);
      for (const [w, f] of tf) {
        let p = this.postings.get(w);
        if (!p) this.postings.set(w, (p = []));
        p.push([i, f]);
      }
    });
  }

  /** Indexes of the `k` best documents, ties broken by the lower index. */
  top(query, k) {
    const score = new Float64Array(this.n);
    for (const w of new Set(query)) {
      const p = this.postings.get(w);
      if (!p) continue;
      const idf = Math.log(1 + (this.n - p.length + 0.5) / (p.length + 0.5));
      for (const [d, f] of p) score[d] += (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * this.len[d]) / this.avg));
    }
    return [...score.keys()].sort((a, b) => score[b] - score[a] || a - b).slice(0, k);
  }
}

const t0 = performance.now();
const samples = JSON.parse(readFileSync(file, 'utf8'));
const lines = [];
let withEvidence = 0;
let allFound = 0;
let questions = 0;
for (const sample of samples) {
  const turns = turnsOf(sample.conversation);
  const windows = windowsOf(turns);
  const index = new Bm25(windows.map((w) => words(w.text)));
  const known = new Set(turns.map((t) => t.id));
  sample.qa.forEach((qa, qi) => {
    if (!CATEGORIES.has(qa.category)) return;
    questions++;
    const top = index.top(words(qa.question), TOP);
    const shown = new Set();
    for (const w of top) for (let t = windows[w].first; t <= windows[w].last; t++) shown.add(turns[t].id);
    // `D30:05` is `D30:5`; unreadable or dangling ids are left out (rawrag's loader reports them).
    const gold = qa.evidence
      .flatMap((e) => e.split(/[;,\s]+/))
      .map((id) => /^D:?(\d+):(\d+)$/.exec(id))
      .filter(Boolean)
      .map((m) => `D${Number(m[1])}:${Number(m[2])}`)
      .filter((id) => known.has(id));
    if (gold.length > 0) {
      withEvidence++;
      if (gold.every((id) => shown.has(id))) allFound++;
    }
    lines.push(JSON.stringify({ id: `${sample.sample_id}:q${qi}`, windows: top.map((w) => `${sample.sample_id}#${w}`) }));
  });
}
if (out) writeFileSync(out, lines.join('\n') + '\n');
const seconds = (performance.now() - t0) / 1000;
console.log(
  `plain BM25 on LoCoMo: ${questions} questions, recall_all@${TOP} ${(allFound / withEvidence).toFixed(3)} (${withEvidence} with evidence), ${seconds.toFixed(2)} s`,
);
