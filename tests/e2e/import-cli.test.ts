/** `rawrag import` through the CLI: a file of other questions exits 2 naming the file and the place, writing nothing. */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';

describe('rawrag import (CLI)', () => {
  it('refuses a mismatching EverMemOS file with exit 2 and the first mismatch named; nothing written', async () => {
    const dir = tempDir('rawrag-import-cli-');
    const file = JSON.parse(readFileSync(join(ROOT, 'docs/examples/eval_results.json'), 'utf8'));
    file.detailed_results.locomo_exp_user_0[1].question = 'Who won the 1998 World Cup?';
    const path = join(dir, 'eval_results.json');
    writeFileSync(path, JSON.stringify(file));
    const out = join(dir, 'out');
    const r = await rawragInProcess(['import', 'evermemos', path, '--benchmark', 'locomo', '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /eval_results\.json: detailed_results\.locomo_exp_user_0\[1\]: the question "Who won the 1998 World Cup\?" is not a selected locomo question of conversation 0 \(conv-26\); nearest there: conv-26:q\d+/,
    );
    expect(existsSync(out)).toBe(false);
    const bad = await rawragInProcess(['import', 'zep', path, '--benchmark', 'locomo']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/'zep' is not one of mem0-eval, evermemos, memos, jsonl/);
  }, 120_000);
});
