/** Which provider serves a model name: the registry, a known `provider/` prefix, a name prefix, else OpenAI-compatible. */
import { describe, expect, it } from 'vitest';
import { loadRegistry, resolveModel } from '../../../src/providers/models.js';
import { didYouMean } from '../../../src/preflight/suggest.js';
import { checkName } from '../../../src/preflight/models.js';

const reg = loadRegistry();

describe('resolveModel', () => {
  it('names the registry lists are themselves, priced', () => {
    const m = resolveModel(reg, 'claude-haiku-4-5', 'chat');
    expect(m).toMatchObject({ protocol: 'anthropic', provider: 'anthropic', keyEnv: 'ANTHROPIC_API_KEY', prices: { input: 1, output: 5 } });
    expect(m.unlisted).toBeUndefined();
  });

  it('a known provider prefix is split off: the listed model, or the provider defaults with the bare id on the wire', () => {
    expect(resolveModel(reg, 'anthropic/claude-haiku-4-5', 'chat')).toMatchObject({ provider: 'anthropic', prices: { input: 1 } });
    const r = resolveModel(reg, 'openrouter/meta-llama/llama-3.1-8b-instruct', 'chat');
    expect(r).toMatchObject({
      provider: 'openrouter',
      apiModel: 'meta-llama/llama-3.1-8b-instruct',
      keyEnv: 'OPENROUTER_API_KEY',
      baseUrl: 'https://openrouter.ai/api/v1',
      unlisted: true,
    });
    expect(resolveModel(reg, 'together/Qwen/Qwen3-235B', 'chat')).toMatchObject({
      provider: 'together',
      apiModel: 'Qwen/Qwen3-235B',
      keyEnv: 'TOGETHER_API_KEY',
    });
    expect(resolveModel(reg, 'deepseek/deepseek-chat', 'chat')).toMatchObject({ provider: 'deepseek', prices: { input: 0.27 } });
    expect(resolveModel(reg, 'gemini/gemini-2.5-pro', 'chat')).toMatchObject({ provider: 'gemini', keyEnv: 'GEMINI_API_KEY' });
  });

  it('an id whose first part is not a provider passes whole (OpenAI-compatible)', () => {
    const q = resolveModel(reg, 'Qwen/Qwen3-Embedding-4B', 'chat');
    expect(q).toMatchObject({ provider: 'openai-compatible', keyEnv: 'OPENAI_API_KEY', unlisted: true });
    expect(q.apiModel).toBeUndefined();
  });

  it('name prefixes: claude- is Anthropic, gemini- Google, deepseek- DeepSeek', () => {
    expect(resolveModel(reg, 'claude-3-7-sonnet-latest', 'chat')).toMatchObject({
      protocol: 'anthropic',
      keyEnv: 'ANTHROPIC_API_KEY',
      unlisted: true,
    });
    expect(resolveModel(reg, 'gemini-3-pro', 'chat')).toMatchObject({
      protocol: 'openai',
      baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai',
    });
    expect(resolveModel(reg, 'deepseek-v9', 'chat')).toMatchObject({ keyEnv: 'DEEPSEEK_API_KEY' });
  });
});

describe('model names: did you mean', () => {
  it('a near miss of a known name is a typo', () => {
    expect(didYouMean('gpt-4o-mni', ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1-mini'])).toBe('gpt-4o-mini');
    expect(didYouMean('qwen2.5:7b', ['gpt-4o', 'gpt-4o-mini'])).toBeNull();
    expect(checkName(reg, 'reader', resolveModel(reg, 'gpt-4o-mni', 'chat'), null).problem).toBe(
      "reader model 'gpt-4o-mni' is not a model rawrag knows: did you mean gpt-4o-mini?",
    );
    expect(checkName(reg, 'reader', resolveModel(reg, 'claude-haiku-4.5', 'chat'), null).problem).toMatch(
      /did you mean claude-haiku-4-5\?/,
    );
  });

  it('a name the endpoint lists is served there; OpenRouter names are not checked against the table', () => {
    expect(checkName(reg, 'reader', resolveModel(reg, 'gpt-4o-mni', 'chat'), ['gpt-4o-mni']).problem).toBeNull();
    const any = checkName(reg, 'reader', resolveModel(reg, 'openrouter/gpt-4o-mni', 'chat'), null);
    expect(any.problem).toBeNull();
    expect(any.note).toMatch(/cost is unknown/);
  });
});
