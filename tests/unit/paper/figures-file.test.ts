import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PAPER_FIGURES_FILE, paperFigures, parsePaperFigures } from '../../../src/benchmarks/paper-figures.js';
import { PAPER_ROWS, PAPER_BREAKDOWNS } from '../../../src/benchmarks/paper-rows.js';
import { PAPER_AUDITS } from '../../../src/memory-audit/write-audit.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const raw = () => JSON.parse(readFileSync(join(ROOT, PAPER_FIGURES_FILE), 'utf8')) as Record<string, any>;

describe('configs/paper/figures.json', () => {
  it('is what the code reads: rows, weak spots and audits come from the one file', () => {
    expect(PAPER_ROWS).toBe(paperFigures().rows);
    expect(PAPER_BREAKDOWNS).toBe(paperFigures().breakdowns);
    expect(PAPER_AUDITS).toBe(paperFigures().audits);
    const locomo = PAPER_ROWS.find((r) => r.benchmark === 'locomo' && r.reader === 'gpt-4o-mini' && r.retriever === 'openai')!;
    expect(locomo.accuracy).toBe(89.07);
    expect(locomo.strongestOther).toEqual({ system: 'MemMachine', accuracy: 88.12 });
    expect(PAPER_AUDITS.locomo!.decisions).toBe(33_902);
  });

  it('names where in the paper every figure comes from', () => {
    const f = paperFigures();
    for (const x of [...f.rows, ...f.breakdowns, ...Object.values(f.audits)]) expect(x.source).toMatch(/\S/);
  });

  it('holds each row once (benchmark, reader, retriever)', () => {
    const keys = PAPER_ROWS.map((r) => `${r.benchmark}|${r.reader}|${r.retriever}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('refuses a wrong entry, naming the file and the place', () => {
    const bad = raw();
    bad.rows[3].accuracy = '94.55';
    expect(() => parsePaperFigures(bad, 'figures.json')).toThrow(/^figures\.json: rows\[3\]\.accuracy: .*number/);
    const extra = raw();
    extra.audits.locomo.operations.MERGE = 0.1;
    expect(() => parsePaperFigures(extra, 'figures.json')).toThrow(/^figures\.json: audits\.locomo\.operations/);
    const unsourced = raw();
    delete unsourced.breakdowns[0].source;
    expect(() => parsePaperFigures(unsourced, 'figures.json')).toThrow(/^figures\.json: breakdowns\[0\]\.source/);
  });
});
