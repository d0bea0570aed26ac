// Pathological text at ingest: one message of 1 MB of a single repeated character (no spaces, so
// one pre-token for the BPE). js-tiktoken's own merge is quadratic there (5k chars 13 s, 20k 135 s);
// rawrag's tokenizer merges long pre-tokens with a heap. Target: the whole ingest() < 5 s.
// Also checked: the same ids as js-tiktoken on ordinary text (the bundled LoCoMo conversations).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dist = (p) => join(ROOT, 'dist', p);
const { ingest } = await import(dist('retrieval/chunk.js'));
const { getTokenizer } = await import(dist('retrieval/tokenizer.js'));
const { DEFAULT_POLICY } = await import(dist('core/policy.js'));

const TARGET_SECONDS = 5;
const cfg = { tokenizer: 'cl100k_base', size: 256, stride: 224 };
let failed = 0;

for (const [label, ch] of [
  ['a', 'a'],
  ['.', '.'],
  ['é', 'é'],
]) {
  const text = ch.repeat(1_000_000);
  const episode = { id: 'bench', turns: [{ id: 'D1:1', session: '1', date: '1 May 2023', speaker: 'Ann', text, captions: [] }] };
  const t = performance.now();
  const ep = ingest(episode, 1, DEFAULT_POLICY, cfg);
  const s = (performance.now() - t) / 1000;
  const ok = s < TARGET_SECONDS;
  if (!ok) failed++;
  console.log(
    `ingest of 1 MB of '${label}': ${s.toFixed(2)} s, ${ep.turnTokenStart.at(-1)} tokens, ${ep.chunks.length} windows  (target < ${TARGET_SECONDS} s)  ${ok ? 'PASS' : 'FAIL'}`,
  );
}

// Exactness on ordinary text: every LoCoMo conversation as one string, against js-tiktoken itself.
const reference = new Tiktoken(cl100k);
const enc = getTokenizer('cl100k_base');
const data = JSON.parse(readFileSync(join(ROOT, 'datasets/locomo/locomo10.json'), 'utf8'));
let same = 0;
for (const s of data) {
  const text = JSON.stringify(s.conversation);
  const a = reference.encode(text, [], []);
  const b = enc.encode(text);
  if (a.length === b.length && a.every((x, i) => x === b[i])) same++;
}
const exact = same === data.length;
if (!exact) failed++;
console.log(`identical token ids on ${same}/${data.length} LoCoMo conversations  ${exact ? 'PASS' : 'FAIL'}`);
console.log(failed ? `\n${failed} target(s) missed` : '\nall targets met');
process.exit(failed ? 1 : 0);
