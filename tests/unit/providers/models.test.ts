import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadRegistry, resolveModel } from '../../../src/providers/models.js';
import { ProviderSession } from '../../../src/providers/session.js';
import { Secrets } from '../../../src/providers/secrets.js';
import { InputError } from '../../../src/util/errors.js';
import { tempDir } from '../../helpers/cli.js';

describe('model registry (configs/models.yaml)', () => {
  const reg = loadRegistry();
  it('knows the paper models with their protocols, key variables and prices', () => {
    expect(reg.models['text-embedding-3-small']).toMatchObject({
      kind: 'embed',
      protocol: 'openai',
      keyEnv: 'OPENAI_API_KEY',
      prices: { input: 0.02 },
    });
    expect(reg.models['rerank-v3.5']).toMatchObject({
      kind: 'rerank',
      protocol: 'cohere',
      keyEnv: 'COHERE_API_KEY',
      baseUrlEnv: 'COHERE_BASE_URL',
    });
    expect(reg.models['gpt-4o-mini']!.prices).toEqual({ input: 0.15, output: 0.6 });
    expect(reg.models['deepseek-chat']).toMatchObject({ keyEnv: 'DEEPSEEK_API_KEY', baseUrl: 'https://api.deepseek.com/v1' });
    expect(reg.models['qwen3-embedding-4b']!.queryTemplate).toBe(
      'Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery:{query}',
    );
    expect(reg.retrievers).toEqual({
      openai: { embed: 'text-embedding-3-small', rerank: 'rerank-v3.5' },
      qwen3: { embed: 'qwen3-embedding-4b', rerank: 'qwen3-reranker-4b' },
    });
  });
  it('treats an unknown chat model as OpenAI-compatible with unknown prices, and refuses unknown embedders', () => {
    expect(resolveModel(reg, 'llama3.1:8b', 'chat')).toMatchObject({ name: 'llama3.1:8b', protocol: 'openai', prices: {} });
    expect(() => resolveModel(reg, 'nope', 'embed')).toThrow(InputError);
    expect(() => resolveModel(reg, 'rerank-v3.5', 'chat')).toThrow(/is a rerank model/);
  });
  it('rejects a malformed registry, naming the file and the place', () => {
    const f = join(tempDir(), 'models.yaml');
    writeFileSync(f, 'models:\n  x:\n    kind: chat\n    protocol: grpc\n    provider: p\n');
    expect(() => loadRegistry(f)).toThrow(/models\.yaml: models\.x\.protocol: /);
  });
});

describe('endpoints and keys', () => {
  it('a public endpoint needs its key; a user-given endpoint may be keyless', () => {
    const s = new ProviderSession({ noCache: true, env: {} });
    const m = s.model('gpt-4o-mini', 'reader');
    const a = s.availability(m, 'reader');
    expect(a.ok).toBe(false);
    const local = new ProviderSession({ noCache: true, env: {}, baseUrls: { reader: 'http://127.0.0.1:9/v1/' } });
    const b = local.availability(m, 'reader');
    expect(b).toEqual({ ok: true, endpoint: { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'EMPTY' } });
    const env = new ProviderSession({ noCache: true, env: { DEEPSEEK_API_KEY: 'ds-key-0123456' } });
    expect(env.availability(env.model('deepseek-chat', 'reader'), 'reader')).toEqual({
      ok: true,
      endpoint: { baseUrl: 'https://api.deepseek.com/v1', apiKey: 'ds-key-0123456' },
    });
    expect(env.secrets.scrub('oops ds-key-0123456 leaked')).toBe('oops [key] leaked');
  });
  it('scrubs known keys and key-shaped strings', () => {
    const s = new Secrets();
    s.add('co-abcdef123456');
    s.add('EMPTY');
    expect(s.scrub('a co-abcdef123456 b sk-proj-ABCDEFGH12345 c Bearer abcdefghijkl EMPTY')).toBe('a [key] b [key] c [key] EMPTY');
  });
});

describe('--models FILE / RAWRAG_MODELS over the built-in table', () => {
  it('merges the user file: new models, a replaced entry, retrievers checked against the merge', () => {
    const dir = tempDir();
    const f = join(dir, 'mine.yaml');
    writeFileSync(
      f,
      'models:\n  gpt-4o-mini:\n    kind: chat\n    protocol: openai\n    provider: proxy\n    baseUrl: http://127.0.0.1:9/v1\n    prices: { input: 1, output: 2 }\n  my-embed:\n    kind: embed\n    protocol: openai\n    provider: me\n    baseUrl: http://127.0.0.1:9/v1\nretrievers:\n  mine: { embed: my-embed, rerank: rerank-v3.5 }\n',
    );
    const reg = loadRegistry(undefined, f);
    expect(reg.models['gpt-4o-mini']).toMatchObject({ provider: 'proxy', keyEnv: null, prices: { input: 1, output: 2 } });
    expect(reg.models['gpt-4.1']!.provider).toBe('openai');
    expect(reg.retrievers.mine).toEqual({ embed: 'my-embed', rerank: 'rerank-v3.5' });
    expect(reg.retrievers.openai).toBeDefined();
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'retrievers:\n  broken: { embed: gpt-4o-mini, rerank: rerank-v3.5 }\n');
    expect(() => loadRegistry(undefined, bad)).toThrow(
      `${bad}: retrievers.broken.embed: retriever 'broken' names embed model 'gpt-4o-mini', which is not a embed model in the merged registry`,
    );
    const typo = join(dir, 'typo.yaml');
    writeFileSync(typo, 'models:\n  x:\n    kind: chat\n    protocol: openai\n    provider: p\n    prices: { inptu: 1 }\n');
    expect(() => loadRegistry(undefined, typo)).toThrow(new RegExp(`typo\\.yaml: models\\.x\\.prices\\.inptu: unknown key 'inptu'`));
  });

  it('every YAML example in docs/models.md loads, and a keyless local model needs no key', async () => {
    const { readFileSync } = await import('node:fs');
    const { ROOT } = await import('../../helpers/cli.js');
    const doc = readFileSync(join(ROOT, 'docs/models.md'), 'utf8');
    const blocks = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    const names: string[] = [];
    for (const [i, b] of blocks.entries()) {
      const f = join(tempDir(), `example-${i}.yaml`);
      writeFileSync(f, b);
      const reg = loadRegistry(undefined, f);
      names.push(...Object.keys(reg.models).filter((n) => b.includes(`  ${n}:`)));
    }
    expect(names).toEqual(expect.arrayContaining(['claude-sonnet-4-6', 'llama3.1-8b-ollama', 'qwen2.5-7b-vllm', 'deepseek-v4-flash']));
    const f = join(tempDir(), 'local.yaml');
    writeFileSync(
      f,
      blocks.find((b) => b.includes('ollama'))!,
    );
    const s = new ProviderSession({ noCache: true, env: { RAWRAG_MODELS: f } });
    expect(s.availability(s.model('qwen2.5-7b-vllm', 'reader'), 'reader')).toEqual({
      ok: true,
      endpoint: { baseUrl: 'http://localhost:8000/v1', apiKey: 'EMPTY' },
    });
    const anthropic = join(tempDir(), 'a.yaml');
    writeFileSync(
      anthropic,
      blocks.find((b) => b.includes('anthropic'))!,
    );
    const sa = new ProviderSession({ noCache: true, env: {}, modelsFile: anthropic });
    const a = sa.availability(sa.model('claude-sonnet-4-6', 'reader'), 'reader');
    expect(a).toEqual({
      ok: false,
      reason: "reader model 'claude-sonnet-4-6' needs ANTHROPIC_API_KEY (or a local endpoint via --reader-base-url)",
    });
  });
});
