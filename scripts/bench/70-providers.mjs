// Provider layer overhead: the full LoCoMo protocol (1,540 questions: openai retriever, reader,
// 3x judge = 7,700 chat/rerank calls + embeddings) against an in-process loopback server that
// answers instantly, so the figures are rawrag's own cost per call. Then the identical rerun,
// which must be served entirely from the cache. Targets:
//   first run  < 40 s (loopback, concurrency 8)     cached rerun < 10 s and 0 requests
// (measured 26.3 s and 2.5 s on 2 shared cores)
//   LoCoMo F1: > 50,000 answers/s
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dist = (p) => join(ROOT, 'dist', p);
const { executeRun } = await import(dist('pipeline/run.js'));
const { resolveConfig } = await import(dist('config/load.js'));
const { RunConfigSchema } = await import(dist('systems/registry.js'));
const { locomoF1 } = await import(dist('benchmarks/locomo/metrics.js'));

const TARGETS = { firstRunS: 40, cachedRunS: 10, f1PerS: 50_000 };
let failed = 0;
const check = (ok) => (ok ? 'PASS' : (failed++, 'FAIL'));

let requests = 0;
const server = createServer(async (req, res) => {
  let body = '';
  for await (const c of req) body += c;
  requests++;
  const b = JSON.parse(body);
  let out;
  if (req.url === '/v1/embeddings') {
    const inputs = Array.isArray(b.input) ? b.input : [b.input];
    out = {
      object: 'list',
      data: inputs.map((t, index) => ({ index, embedding: vec(t) })),
      usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
    };
  } else if (req.url === '/v2/rerank') {
    out = {
      results: b.documents.map((d, index) => ({ index, relevance_score: 1 / (1 + index) })).slice(0, b.top_n),
      meta: { billed_units: { search_units: 1 } },
    };
  } else {
    const judge = JSON.stringify(b.messages).includes('Gold answer:');
    out = {
      choices: [{ index: 0, message: { role: 'assistant', content: judge ? '{"label":"WRONG"}' : 'I do not know' } }],
      usage: { prompt_tokens: 100, completion_tokens: 5 },
    };
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(out));
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}`;

function vec(t) {
  const v = new Array(32).fill(0);
  for (const w of t.toLowerCase().split(/\W+/)) if (w) v[[...w].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % 32] += 1;
  return v;
}

const work = mkdtempSync(join(tmpdir(), 'rawrag-bench-providers-'));
const cfg = resolveConfig(
  { benchmark: 'locomo', retrieval: { retriever: 'openai' }, reader: { model: 'gpt-4o-mini' } },
  'bench',
  RunConfigSchema,
);
const env = { ...process.env, OPENAI_API_KEY: 'sk-bench-000000', COHERE_API_KEY: 'co-bench-000000' };
const transport = {
  cacheDir: join(work, 'cache'),
  baseUrls: { reader: `${url}/v1`, judge: `${url}/v1`, embed: `${url}/v1`, rerank: url },
  env,
};
const hooks = { log() {} };

let t = performance.now();
const first = await executeRun({ cfg, out: join(work, 'a'), transport }, hooks);
const firstS = (performance.now() - t) / 1000;
const firstRequests = requests;
t = performance.now();
const second = await executeRun({ cfg, out: join(work, 'b'), transport }, hooks);
const cachedS = (performance.now() - t) / 1000;
const cachedRequests = requests - firstRequests;

const n = 200_000;
t = performance.now();
for (let i = 0; i < n; i++)
  locomoF1('Weight training, yoga and the kickboxing class', 'Weight training, Circuit training, Kickboxing, yoga', 1 + (i % 4));
const f1PerS = n / ((performance.now() - t) / 1000);

console.log(`questions: ${first.summary.n} (errors ${first.summary.errors}), requests sent: ${firstRequests}`);
console.log(
  `first run:    ${firstS.toFixed(1)} s  (${((firstS * 1000) / firstRequests).toFixed(2)} ms per request)   target < ${TARGETS.firstRunS} s  ${check(firstS < TARGETS.firstRunS && first.summary.errors === 0)}`,
);
console.log(
  `cached rerun: ${cachedS.toFixed(1)} s, ${cachedRequests} requests                  target < ${TARGETS.cachedRunS} s, 0 requests  ${check(cachedS < TARGETS.cachedRunS && cachedRequests === 0 && second.summary.errors === 0)}`,
);
console.log(
  `LoCoMo F1:    ${Math.round(f1PerS).toLocaleString('en')} answers/s                    target > ${TARGETS.f1PerS.toLocaleString('en')}  ${check(f1PerS > TARGETS.f1PerS)}`,
);
server.close();
rmSync(work, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
