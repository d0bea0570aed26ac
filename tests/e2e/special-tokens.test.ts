/**
 * Special-token text in the data (issue 20, item 1): the real LongMemEval-S release has
 * `<|endoftext|>` in a haystack (question gpt4_78cf46a3). A LongMemEval-S-shaped file with that
 * text in a turn runs end to end offline, and `--dry-run` with a reader estimates it.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { cacheWithWordVectors } from '../helpers/test-cache.js';

const work = tempDir();
const data = join(work, 'longmemeval_s_special.json');
const instances = JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/longmemeval/longmemeval_s_cleaned.sample.json'), 'utf8'));
// Special-token strings inside real turns, in the first session of each instance (and one turn that is only the token).
for (const inst of instances) {
  const turn = inst.haystack_sessions[0][0];
  turn.content = `${turn.content} <|endoftext|> and <|fim_prefix|><|endofprompt|>`;
  inst.haystack_sessions[1].push({ role: 'user', content: '<|endoftext|>' });
}
writeFileSync(data, JSON.stringify(instances));
const env = { RAWRAG_CACHE_DIR: cacheWithWordVectors(join(work, 'cache')) };

describe('special-token text in a LongMemEval-S haystack', () => {
  it('runs end to end offline: every question has an item, no errors', async () => {
    const out = join(work, 'run');
    const r = await rawragInProcess(
      ['run', 'longmemeval', '--data', data, '--retriever', 'local-lexical', '--out', out, '--no-progress'],
      env,
    );
    expect(r.stderr).not.toMatch(/internal error|special token/);
    expect(r.code).toBe(0);
    const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(m.status).toBe('complete');
    expect(m.questions).toEqual({ selected: instances.length, done: instances.length, errors: 0 });
    const items = readFileSync(join(out, 'items.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(items.map((i) => i.id).sort()).toEqual(instances.map((i: { question_id: string }) => i.question_id).sort());
  }, 120_000);

  it('--dry-run with a reader estimates it (exit 0, nothing spent)', async () => {
    const r = await rawragInProcess(
      [
        'run',
        'longmemeval',
        '--data',
        data,
        '--retriever',
        'local-lexical',
        '--reader',
        'gpt-4o-mini',
        '--dry-run',
        '--out',
        join(work, 'dry'),
      ],
      { ...env, OPENAI_API_KEY: 'sk-dry-run-0123456789' },
    );
    expect(r.stderr).not.toMatch(/internal error|special token/);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/reader/);
  }, 120_000);
});
