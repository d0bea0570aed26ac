#!/usr/bin/env node
/**
 * The tests' loopback OpenAI-compatible API (tests/helpers/fake-api.ts) as a process of its own, with
 * every library's responder (tests/helpers/loopback-llm/): deterministic chat completions (JSON,
 * json_schema, tool calls, logprobs), /v1/responses, /v1/embeddings (honouring `dimensions`, real
 * sizes otherwise), /v1/rerank. For trying a memory system's real library by hand, offline:
 *
 *   node scripts/loopback-openai.mjs --port 0            # prints: loopback OpenAI-compatible API on http://127.0.0.1:PORT/v1
 *   OPENAI_BASE_URL=http://127.0.0.1:PORT/v1 OPENAI_API_KEY=sk-loopback \
 *     npx rawrag run locomo --system mem0 --reader gpt-4o-mini --limit 20 \
 *     --reader-base-url http://127.0.0.1:PORT/v1 --judge-base-url http://127.0.0.1:PORT/v1
 *
 * `--log FILE` appends one JSON line per request (path, model, which library's responder answered).
 * Loaded through Vite's module runner (a dev dependency), so the TypeScript helpers run as they are.
 */
import { appendFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runnerImport } from 'vite';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { port: { type: 'string', default: '0' }, log: { type: 'string' } } });
const load = async (path) => (await runnerImport(join(root, path), { logLevel: 'error', configFile: false })).module;
const { FakeApi, responders } = await load('tests/helpers/loopback-openai-entry.ts');
const api = new FakeApi({ responders, nativeDims: true });
await api.start(Number(values.port));
process.stdout.write(`loopback OpenAI-compatible API on ${api.url}/v1\n`);
if (values.log) {
  let seen = 0;
  setInterval(() => {
    for (const r of api.requests.slice(seen))
      appendFileSync(values.log, JSON.stringify({ path: r.path, model: r.body?.model ?? null, responder: r.responder ?? null }) + '\n');
    seen = api.requests.length;
  }, 200).unref();
}
const stop = async () => {
  await api.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
