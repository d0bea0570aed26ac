import { describe, expect, it } from 'vitest';
import { jsonErrorOffset } from '../../src/util/json-position.js';
import { parseJsonText } from '../../src/util/fsx.js';

describe('jsonErrorOffset', () => {
  it('returns -1 for valid JSON', () => {
    for (const t of ['{}', '[1, 2.5e3, "a\\"b", true, null, {"x": []}]', ' "\\u00e9" ']) expect(jsonErrorOffset(t)).toBe(-1);
  });
  it('points at the first invalid character', () => {
    expect(jsonErrorOffset('[1, }')).toBe(4);
    expect(jsonErrorOffset('{"a": tru}')).toBe(9);
    expect(jsonErrorOffset('{"a" 1}')).toBe(5);
    expect(jsonErrorOffset('[1] x')).toBe(4);
    expect(jsonErrorOffset('"abc')).toBe(4);
  });
  it('parseJsonText names line and column', () => {
    expect(() => parseJsonText('[\n  1,\n  }', 'f.json')).toThrow(/f\.json: line 3, column 3: invalid JSON/);
  });
});
