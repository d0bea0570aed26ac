import { it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { FakeBatchApi } from './helpers/fake-batch-api.js';
import { defaultChat } from './helpers/fake-api.js';
import { rawragAsync, tempDir } from './helpers/cli.js';

it('full locomo batch vs interactive', async () => {
  const api = await new FakeBatchApi({ chat: defaultChat }).start();
  api.scriptFor = () => ({ validatingPolls: 1, linesPerPoll: 2000 });
  const env = { OPENAI_API_KEY: 'sk-x', COHERE_API_KEY: 'co-x', RAWRAG_BATCH_POLL_MS: '200', OPENAI_BASE_URL: undefined, COHERE_BASE_URL: undefined, RAWRAG_CACHE_DIR: undefined };
  const base = (cache: string, out: string) => ['run', 'locomo', '--reader', 'gpt-4o-mini', '--retriever', 'openai', '--reader-base-url', `${api.url}/v1`, '--judge-base-url', `${api.url}/v1`, '--embed-base-url', `${api.url}/v1`, '--rerank-base-url', api.url, '--cache-dir', cache, '--out', out, '--no-progress'];
  const t0 = Date.now();
  const nw = await rawragAsync([...base(tempDir(), '/tmp/wt15-scratch/nowait'), '--batch', '--no-wait', '--limit', '20'], env);
  const b = await rawragAsync([...base(tempDir(), '/tmp/wt15-scratch/batch'), '--batch'], env);
  const t1 = Date.now();
  const l = await rawragAsync(base(tempDir(), '/tmp/wt15-scratch/live'), env);
  const t2 = Date.now();
  const st = await rawragAsync(['batch', 'status', '/tmp/wt15-scratch/batch'], env);
  const st2 = await rawragAsync(['batch', 'status', '/tmp/wt15-scratch/nowait'], env);
  const col = await rawragAsync(['batch', 'collect', '/tmp/wt15-scratch/nowait', '--wait'], env);
  writeFileSync('/tmp/wt15-scratch/out.txt', ['NOWAIT', nw.stdout, nw.stderr.split('\n').filter((x) => !x.startsWith('warning')).join('\n'), `batch ${t1 - t0} ms code ${b.code}`, b.stdout, b.stderr.split('\n').filter((x) => !x.startsWith('warning')).join('\n'), `live ${t2 - t1} ms code ${l.code}`, l.stdout, 'STATUS', st.stdout, st.stderr, 'STATUS2', st2.stdout, st2.stderr, 'COLLECT', col.stdout, col.stderr, `batches ${api.batches.size}`, `batch-run chats ${api.chat.requests.filter((r) => r.headers['x-fake-batch']).length}`].join('\n'));
  await api.close();
}, 900_000);
