import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../src/util/fsx.js';

/** The place and message parseJsonText gives for an invalid text. */
function failure(text: string): string {
  try {
    parseJsonText(text, 'f.json');
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error(`parsed: ${text}`);
}

describe('parseJsonText', () => {
  it('parses valid JSON as JSON.parse does', () => {
    for (const t of ['{}', '[1, 2.5e3, "a\\"b", true, null, {"x": []}]', ' "\\u00e9" '])
      expect(parseJsonText(t, 'f.json')).toEqual(JSON.parse(t));
  });

  it('names file, line and column of the first invalid token', () => {
    expect(failure('[\n  1,\n  }')).toMatch(/^f\.json: line 3, column 3: invalid JSON \(.*; ValueExpected\)$/);
    expect(failure('[1, }')).toMatch(/^f\.json: line 1, column 5: invalid JSON/);
    expect(failure('{"a": tru}')).toMatch(/^f\.json: line 1, column 7: invalid JSON \(.*; InvalidSymbol\)$/);
    expect(failure('{"a" 1}')).toMatch(/^f\.json: line 1, column 6: invalid JSON \(.*; ColonExpected\)$/);
    expect(failure('[1] x')).toMatch(/^f\.json: line 1, column 5: invalid JSON/);
    expect(failure('"abc')).toMatch(/^f\.json: line 1, column 5: invalid JSON \(.*; UnexpectedEndOfString\)$/);
  });

  it('refuses what strict JSON refuses: trailing commas, comments, an empty file', () => {
    expect(failure('[1,\n]')).toMatch(/^f\.json: line 2, column 1: invalid JSON \(.*; ValueExpected\)$/);
    expect(failure('{"a": 1 // note\n}')).toMatch(/^f\.json: line 1, column 9: invalid JSON/);
    expect(failure('')).toMatch(/^f\.json: line 1, column 1: invalid JSON \(.*; ValueExpected\)$/);
  });
});
