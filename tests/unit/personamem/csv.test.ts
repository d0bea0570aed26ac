import { describe, expect, it } from 'vitest';
import { CsvError, parseCsv, parseCsvObjects } from '../../../src/benchmarks/personamem/csv.js';

const fields = (text: string) => parseCsv(text).map((r) => r.fields);

describe('RFC 4180 CSV parser', () => {
  it('reads quoted fields with commas, doubled quotes and line breaks; CRLF and LF records', () => {
    expect(fields('a,b,c\r\n1,"x, y","say ""hi"""\r\n2,"multi\r\nline",\r\n')).toEqual([
      ['a', 'b', 'c'],
      ['1', 'x, y', 'say "hi"'],
      ['2', 'multi\r\nline', ''],
    ]);
    expect(fields('a,b\n1,2')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
    expect(fields('\ufeffa\n""\n')).toEqual([['a'], ['']]);
  });

  it('skips blank lines and keeps the line where each record starts', () => {
    const recs = parseCsv('h\n\n"x\ny"\nz\n');
    expect(recs).toEqual([
      { fields: ['h'], line: 1 },
      { fields: ['x\ny'], line: 3 },
      { fields: ['z'], line: 5 },
    ]);
  });

  it('accepts mixed line ends and counts a CRLF inside a quoted field as one line', () => {
    expect(parseCsv('a\nb\r\nc\rd\n\n\ne')).toEqual([1, 2, 3, 4, 7].map((line, i) => ({ fields: [['a', 'b', 'c', 'd', 'e'][i]!], line })));
    expect(parseCsv('a\n"x\r\ny\r\nz"\nq').map((r) => r.line)).toEqual([1, 2, 5]);
    expect(() => parseCsv('a\n"x\r\ny"\nb,"c"d')).toThrow(/line 4: text after the closing quote of field 2/);
  });

  it('fails on malformed input, naming the line', () => {
    expect(() => parseCsv('a\n"open')).toThrow(CsvError);
    expect(() => parseCsv('a\n"open')).toThrow(/line 2: unterminated quoted field/);
    expect(() => parseCsv('a,b\n"x"y,2')).toThrow(/line 2: text after the closing quote of field 1/);
    expect(() => parseCsvObjects('a,b\n1,2,3\n')).toThrow(/line 2: 3 fields, the header has 2/);
    expect(() => parseCsvObjects('a,a\n1,2\n')).toThrow(/column 'a' appears twice/);
  });

  it('maps records to the header', () => {
    expect(parseCsvObjects('k,v\r\none,"1"\r\n').rows).toEqual([{ values: { k: 'one', v: '1' }, line: 2 }]);
  });
});
