/** The streaming top-level-array splitter: every chunking of a tricky file yields the same elements. */
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { JsonArraySplitter, streamJsonArray } from '../../../src/benchmarks/longmemeval/json-stream.js';
import { tempDir } from '../../helpers/cli.js';

/** Feeds `bytes` in pieces of `size` and returns the parsed elements plus their byte ranges. */
function split(bytes: Buffer, size: number) {
  const s = new JsonArraySplitter('test.json');
  const out = [];
  for (let i = 0; i < bytes.length; i += size) out.push(...s.push(bytes.subarray(i, i + size)));
  out.push(...s.end());
  return out;
}

const TRICKY = [
  { q: 'brackets ] [ } { inside a string', n: [1, [2, [3]]] },
  { q: 'escaped quote \\" and backslash at end \\\\', e: '' },
  'top-level string with \\"quotes\\" and ]',
  { q: 'unicode: café 日本 😀 — split across chunks', deep: { a: { b: { c: [] } } } },
  1300,
  -2.5e3,
  true,
  null,
  { backslashes: '\\\\\\\\', quote_after_run: 'x\\\\"' },
  [],
  {},
];

describe('JsonArraySplitter', () => {
  const text = '\n  [\n' + TRICKY.map((v) => JSON.stringify(v, null, 1)).join(' ,\n') + '\n]\n';
  const bytes = Buffer.from(text, 'utf8');

  it.each([1, 2, 3, 5, 7, 64, 1 << 20])('yields every element intact with chunks of %i bytes', (size) => {
    const els = split(bytes, size);
    expect(els.map((e) => JSON.parse(e.text))).toEqual(TRICKY);
    expect(els.map((e) => e.index)).toEqual(TRICKY.map((_, i) => i));
    // Byte ranges point at exactly the element's text (they are used to re-read episodes).
    for (const e of els) expect(bytes.subarray(e.start, e.end).toString('utf8')).toBe(e.text);
  });

  it('reads a sequence of values (JSONL), with a BOM', () => {
    const jsonl = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":"]"}\n{"b":[1,2]}\n7\n"s"\n', 'utf8')]);
    for (const size of [1, 4, 100]) {
      expect(split(jsonl, size).map((e) => JSON.parse(e.text))).toEqual([{ a: ']' }, { b: [1, 2] }, 7, 's']);
    }
  });

  it('accepts an empty array', () => {
    expect(split(Buffer.from(' [ ] '), 1)).toEqual([]);
  });

  it.each([
    ['[{"a":1}', /ends before the closing \]/],
    ['[{"a":"unterminated', /ends inside an element/],
    ['[{"a":1} {"b":2}]', /expected ',' or '\]'/],
    ['[{"a":1},]', /trailing comma/],
    ['[,{"a":1}]', /unexpected comma/],
    ['[{"a":1}] x', /after the end of the top-level array/],
    ['   ', /holds no JSON value/],
  ])('rejects malformed structure %j, naming the byte', (src, msg) => {
    expect(() => split(Buffer.from(src), 3)).toThrow(msg);
    expect(() => split(Buffer.from(src), 3)).toThrow(/test\.json: byte \d+/);
  });
});

describe('streamJsonArray', () => {
  it('streams a file element by element, reporting every byte read', async () => {
    const file = join(tempDir(), 'a.json');
    const text = JSON.stringify(TRICKY);
    writeFileSync(file, text);
    let seen = 0;
    const got = [];
    for await (const el of streamJsonArray(file, 5, (c) => (seen += c.length))) got.push(JSON.parse(el.text));
    expect(got).toEqual(TRICKY);
    expect(seen).toBe(Buffer.byteLength(text));
  });

  it('names the file when it cannot be read', async () => {
    const it = streamJsonArray(join(tempDir(), 'missing.json'));
    await expect(it.next()).rejects.toThrow(/missing\.json: cannot read file \(ENOENT\)/);
  });
});
