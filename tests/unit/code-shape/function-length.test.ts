/**
 * Code shape: no function in src/ over 120 lines and no file over 600 (issue 44: long functions are
 * split into named steps, long files into modules named for what they hold). Measured with the
 * TypeScript parser: every function, method, constructor, accessor and arrow function with a body,
 * from its first token to its last.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { fileLines, functionSpans, sourceFiles, REPO } from '../../helpers/code-shape.js';

const MAX_FUNCTION_LINES = 120;
const MAX_FILE_LINES = 600;

describe('code shape of src/', () => {
  test('the measure sees every kind of function, and counts lines from first token to last', () => {
    const file = join(REPO, 'tests', 'fixtures', 'code-shape', 'shapes.ts');
    const spans = functionSpans([file]).map((s) => `${s.name}:${s.line}:${s.lines}`);
    expect(spans).toEqual([
      'declared:2:4',
      'arrow:7:3',
      'constructor:12:2',
      'method:14:5',
      'size:19:3',
      '(anonymous):20:1',
      'nested:24:8',
      'inner:25:3',
    ]);
    expect(readFileSync(file, 'utf8').split('\n').length).toBeGreaterThan(30);
  });

  test(`no function is over ${MAX_FUNCTION_LINES} lines`, () => {
    const files = sourceFiles();
    expect(files.length).toBeGreaterThan(200);
    const long = functionSpans(files)
      .filter((s) => s.lines > MAX_FUNCTION_LINES)
      .map((s) => `${s.file}:${s.line} ${s.name} (${s.lines} lines)`);
    expect(long, `split these into named steps:\n${long.join('\n')}`).toEqual([]);
  });

  test(`no file is over ${MAX_FILE_LINES} lines`, () => {
    const long = fileLines()
      .filter((f) => f.lines > MAX_FILE_LINES)
      .map((f) => `${f.file} (${f.lines} lines)`);
    expect(long, `split these into modules named for what they hold:\n${long.join('\n')}`).toEqual([]);
  });
});
