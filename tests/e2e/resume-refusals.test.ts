/**
 * `rawrag run` resumes only an items.jsonl that stats, export and report would read (issue 42,
 * item 10): a byte that is not UTF-8, or an item whose id is no question of the benchmark, stops
 * the resume (exit 2, the file and line named, the lock released) instead of being called complete.
 */
import { describe, expect, it } from 'vitest';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { cacheWithWordVectors } from '../helpers/test-cache.js';

const work = tempDir('rawrag-resume-refusals-');
const env = { RAWRAG_CACHE_DIR: cacheWithWordVectors(join(work, 'cache')) };
const args = (out: string) => ['run', 'locomo', '--limit', '6', '--no-progress', '--out', out];

describe('run refuses to resume what stats refuses to read', () => {
  it('an invalid UTF-8 byte or a foreign id in items.jsonl: exit 2 naming the file, nothing changed', async () => {
    const clean = join(work, 'clean');
    expect((await rawragInProcess(args(clean), env)).code).toBe(0);

    const bad = join(work, 'utf8');
    cpSync(clean, bad, { recursive: true });
    const lines = readFileSync(join(bad, 'items.jsonl')).toString('latin1').split('\n');
    lines.splice(5, 1); // one question to do, so a resume would write
    lines[2] = lines[2]!.replace('"question":"', '"question":"\u00ff'); // latin1 0xff: not UTF-8
    writeFileSync(join(bad, 'items.jsonl'), Buffer.from(lines.join('\n'), 'latin1'));
    const before = readFileSync(join(bad, 'items.jsonl'));
    const r = await rawragInProcess(args(bad), env);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/utf8\/items\.jsonl: line 3: not valid UTF-8: byte \d+ \(0xff\)/);
    const stats = await rawragInProcess(['stats', bad, '--out', join(work, 'stats'), '--no-report'], env);
    expect(stats.code).toBe(2);
    expect(readFileSync(join(bad, 'items.jsonl'))).toEqual(before);
    expect(existsSync(join(bad, '.rawrag.lock'))).toBe(false);

    const foreign = join(work, 'foreign');
    cpSync(clean, foreign, { recursive: true });
    const text = readFileSync(join(foreign, 'items.jsonl'), 'utf8').split('\n');
    text[5] = text[0]!.replace('"id":"conv-26:q0"', '"id":"conv-99:q7"');
    writeFileSync(join(foreign, 'items.jsonl'), text.join('\n'));
    const f = await rawragInProcess(args(foreign), env);
    expect(f.code, f.stderr).toBe(2);
    expect(f.stderr).toContain(`${join(foreign, 'items.jsonl')}: 1 item is no question of this run's benchmark data ('conv-99:q7')`);
    expect(JSON.parse(readFileSync(join(foreign, 'manifest.json'), 'utf8')).status).toBe('complete'); // untouched, not re-written
    expect(existsSync(join(foreign, '.rawrag.lock'))).toBe(false);
  }, 120_000);
});
