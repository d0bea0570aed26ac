import { describe, expect, it } from 'vitest';
import { parsePyLiteral, PyLiteralError } from '../../../src/benchmarks/personamem/pyliteral.js';

describe('Python-literal parser (no eval)', () => {
  it("reads str(dict) as PersonaMem-v2 writes user_query: single quotes, or double when the text has '", () => {
    expect(parsePyLiteral("{'role': 'user', 'content': 'Hi there'}")).toEqual({ role: 'user', content: 'Hi there' });
    expect(parsePyLiteral(`{'role': 'user', 'content': "I'm writing to my manager"}`)).toEqual({
      role: 'user',
      content: "I'm writing to my manager",
    });
    expect(parsePyLiteral(`{'content': 'both \\' and " quotes'}`)).toEqual({ content: `both ' and " quotes` });
  });

  it('decodes escapes as Python does', () => {
    expect(parsePyLiteral(String.raw`'a\nb\tc\\d\x41\u00e9\U0001F600\101'`)).toBe('a\nb\tc\\dAé😀A');
    expect(parsePyLiteral(String.raw`'keep \q as is'`)).toBe('keep \\q as is');
    expect(parsePyLiteral(String.raw`r'raw \n stays'`)).toBe('raw \\n stays');
    expect(parsePyLiteral("'''tri\nple''' \"x\"")).toBe('tri\nplex'); // implicit concatenation
    expect(parsePyLiteral("'é — unicode ✓'")).toBe('é — unicode ✓');
  });

  it('reads lists, tuples, numbers, booleans and None, nested', () => {
    expect(parsePyLiteral("[1, -2.5, 1e3, 0x1F, 1_000, True, False, None, ('a',), (), [], {}]")).toEqual([
      1,
      -2.5,
      1000,
      31,
      1000,
      true,
      false,
      null,
      ['a'],
      [],
      [],
      {},
    ]);
    expect(parsePyLiteral("{'a': [{'b': (1, 2)}], 3: 'int key',}")).toEqual({ a: [{ b: [1, 2] }], '3': 'int key' });
    expect(parsePyLiteral('  ( 5 )  ')).toBe(5);
  });

  it('rejects what is not a literal, with the offset', () => {
    for (const bad of [
      "{'a': 1",
      "__import__('os')",
      "'unterminated",
      '[1 2]',
      "{'a', 'b'}",
      '1j',
      "b'bytes'",
      "f'x{y}'",
      "'a' + 'b'",
      '012',
      "'line\nbreak'",
    ]) {
      expect(() => parsePyLiteral(bad), bad).toThrow(PyLiteralError);
    }
    expect(() => parsePyLiteral('[1, 2] x')).toThrow(/after the value at offset 7/);
  });
});
