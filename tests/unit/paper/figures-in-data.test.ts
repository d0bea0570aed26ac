/**
 * The paper's figures live in one data file, configs/paper/figures.json (issue 44): the
 * reproduction map (src/paper/) and the systems' paper rows (src/systems/<name>/ `paperRows`) hold
 * no figure of their own. Read with the TypeScript parser: no `paperValue` written as a number, no
 * number literal or string that spells one of the file's figures; and every number the map shows
 * as the paper's (its `paper` text, its note, its `paperValue`) is one of the file's figures.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PAPER_FIGURES_FILE, figureEntry, paperFigures, parsePaperFigures } from '../../../src/benchmarks/paper-figures.js';
import { paperItems } from '../../../src/paper/items.js';
import { REPO, SRC } from '../../helpers/code-shape.js';

const raw = () => JSON.parse(readFileSync(join(REPO, PAPER_FIGURES_FILE), 'utf8')) as Record<string, any>;

/** Every number in the figures file, wherever it sits. */
function numbersIn(x: unknown): number[] {
  if (typeof x === 'number') return [x];
  if (Array.isArray(x)) return x.flatMap(numbersIn);
  if (x !== null && typeof x === 'object') return Object.values(x).flatMap(numbersIn);
  return [];
}

const FIGURES = numbersIn(raw());
/** The audits' fractions print as percents (0.0439 -> 4.39). */
const PERCENTS = numbersIn(raw().audits).map((x) => Number((100 * x).toFixed(2)));
/** An audit share's count where the paper gives none: `about N of M`, the share times the decisions. */
const DERIVED_COUNTS = Object.values(paperFigures().audits).flatMap((a) =>
  Object.values(a.operations).map((s) => Math.round(s * a.decisions)),
);
/** A figure the paper gives in hours is compared in seconds. */
const SECONDS = Object.values(paperFigures().efficiency).flatMap((e) => (e.unit === 'h' ? [e.value * 3600] : []));

const near = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
/** Figures distinctive enough to spot in code: a fraction, or a count of 1,000 and more (not `0`, `12`, `80`). */
const DISTINCT = [...FIGURES, ...PERCENTS].filter((x) => !Number.isInteger(x) || Math.abs(x) >= 1000);
const isFigure = (x: number) => DISTINCT.some((f) => near(Math.abs(x), Math.abs(f)));

/** The numbers a text spells (`1,561.97`, `-3.92`, `19.07-45.29` as two), signs kept where they are signs; not the digits of a name (`Qwen3`, `GPT-4o-mini`). */
function numbersOf(text: string): number[] {
  return [...text.matchAll(/(?<![\w.,])([-+]?)(\d[\d,]*(?:\.\d+)?)(?![\w.])/g)].map((m) => {
    const sign = m[1] === '-' && !/\d$/.test(text.slice(0, m.index)) ? -1 : 1;
    return sign * Number(m[2]!.replace(/,/g, ''));
  });
}

/** String pieces and numeric literals of a node's subtree, with their line. */
function literals(node: ts.Node, sf: ts.SourceFile): Array<{ line: number; text: string; numeric: boolean }> {
  const out: Array<{ line: number; text: string; numeric: boolean }> = [];
  const visit = (n: ts.Node) => {
    const line = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
    if (ts.isNumericLiteral(n)) out.push({ line, text: n.text, numeric: true });
    else if (ts.isStringLiteralLike(n) || ts.isTemplateHead(n) || ts.isTemplateMiddle(n) || ts.isTemplateTail(n)) {
      out.push({ line, text: n.text, numeric: false });
    }
    ts.forEachChild(n, visit);
  };
  visit(node);
  return out;
}

/** The files and subtrees that must hold no figure: all of src/paper/, and each system's `paperRows`. */
function scanned(): Array<{ file: string; sf: ts.SourceFile; nodes: ts.Node[] }> {
  const parse = (file: string) => ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const paper = readdirSync(join(SRC, 'paper'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(SRC, 'paper', f));
  const systems = readdirSync(join(SRC, 'systems'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => join(SRC, 'systems', d.name, 'index.ts'))
    .filter((f) => {
      try {
        return readFileSync(f, 'utf8').includes('paperRows');
      } catch {
        return false;
      }
    });
  const rowsOf = (sf: ts.SourceFile): ts.Node[] => {
    const found: ts.Node[] = [];
    const visit = (n: ts.Node) => {
      if (ts.isPropertyAssignment(n) && ts.isIdentifier(n.name) && n.name.text === 'paperRows') found.push(n.initializer);
      ts.forEachChild(n, visit);
    };
    visit(sf);
    return found;
  };
  return [
    ...paper.map((file) => ({ file, sf: parse(file), nodes: [] as ts.Node[] })).map((x) => ({ ...x, nodes: [x.sf] })),
    ...systems.map((file) => {
      const sf = parse(file);
      return { file, sf, nodes: rowsOf(sf) };
    }),
  ];
}

describe('the paper’s figures are data (configs/paper/figures.json), not code', () => {
  it('src/paper/ and the systems’ paperRows write no paperValue as a number, and no literal spells a figure of the file', () => {
    const found: string[] = [];
    const files = scanned();
    expect(files.filter((f) => f.file.includes(`${join('src', 'systems')}`)).length).toBeGreaterThanOrEqual(5);
    for (const { file, sf, nodes } of files) {
      const where = (line: number) => `${relative(REPO, file)}:${line}`;
      for (const [i, text] of sf.text.split('\n').entries()) {
        if (/\b(paperValue|referenceValue)\s*:\s*[-+]?\s*[\d.][\d_]*(\.\d+)?(e[-+]?\d+)?\s*(,|\}|$)/.test(text))
          found.push(`${where(i + 1)}: ${text.trim()}`);
      }
      for (const node of nodes) {
        for (const lit of literals(node, sf)) {
          const spelled = lit.numeric ? [Number(lit.text)] : numbersOf(lit.text);
          const hits = spelled.filter(isFigure);
          if (hits.length) found.push(`${where(lit.line)}: ${JSON.stringify(lit.text)} spells ${hits.join(', ')}`);
        }
      }
    }
    expect(found, `figures written in code: move them to ${PAPER_FIGURES_FILE}`).toEqual([]);
  });

  it('the scan sees a figure written in code (the check can fail)', () => {
    const sf = ts.createSourceFile(
      'x.ts',
      "const x = { paper: '305.91 s (EMem 1,561.97 s)', paperValue: 718.4 };",
      ts.ScriptTarget.Latest,
      true,
    );
    const spelled = literals(sf, sf).flatMap((l) => (l.numeric ? [Number(l.text)] : numbersOf(l.text)));
    expect(spelled.filter(isFigure)).toEqual([305.91, 1561.97, 718.4]);
    expect(numbersOf('coverage 19.07-45.29 %, -3.92 (+0.281), GPT-4o-mini, Qwen3-retriever, 1,499 questions')).toEqual([
      19.07, 45.29, -3.92, 0.281, 1499,
    ]);
  });

  it('every number the map shows as the paper’s is a figure of the file', () => {
    const allowed = [...FIGURES, ...PERCENTS, ...DERIVED_COUNTS, ...SECONDS];
    const items = paperItems();
    expect(items.length).toBeGreaterThan(60);
    const stray: string[] = [];
    for (const item of items) {
      // A setting named in the item's id (`k = 120` of `ablation/k=120/LRU`) is not a figure.
      const own = numbersOf(item.id.replace(/[-+]/g, ' '));
      const ok = (x: number) => [...allowed, ...own].some((f) => near(x, f));
      for (const text of [item.paper, item.note ?? ''])
        for (const x of numbersOf(text)) if (!ok(x)) stray.push(`${item.id}: ${x} in ${JSON.stringify(text)}`);
      if (item.paperValue !== undefined && !ok(item.paperValue)) stray.push(`${item.id}: paperValue ${item.paperValue}`);
      if (item.range) for (const x of item.range) if (!ok(x)) stray.push(`${item.id}: range ${x}`);
    }
    expect(stray).toEqual([]);
    const withFigure = items.filter((i) => i.paperValue !== undefined);
    expect(withFigure.length).toBeGreaterThan(40);
  });

  it('every figure names where in the paper it comes from', () => {
    const unsourced: string[] = [];
    const walk = (x: unknown, path: string, sourced: boolean) => {
      if (x === null || typeof x !== 'object') return;
      const here = sourced || (!Array.isArray(x) && typeof (x as Record<string, unknown>).source === 'string');
      for (const [k, v] of Object.entries(x)) {
        if (typeof v === 'number' && !here) unsourced.push(`${path}.${k}`);
        walk(v, `${path}.${k}`, here);
      }
    };
    walk(raw(), '', false);
    expect(unsourced).toEqual([]);
  });

  it('a wrong or missing entry stops with the file and the place', () => {
    const bad = raw();
    bad.efficiency['meme-slice'].value = '305.91';
    expect(() => parsePaperFigures(bad, 'figures.json')).toThrow(/^figures\.json: efficiency\.meme-slice\.value: .*number/);
    const unsourced = raw();
    delete unsourced.storeOracle.source;
    expect(() => parsePaperFigures(unsourced, 'figures.json')).toThrow(/^figures\.json: storeOracle\.source/);
    const stray = raw();
    stray.controls['locomo-5k'].deltas = 1;
    expect(() => parsePaperFigures(stray, 'figures.json')).toThrow(/^figures\.json: controls\.locomo-5k/);
    expect(() => figureEntry(paperFigures().efficiency, 'efficiency', 'beam-10m')).toThrow(
      /^configs\/paper\/figures\.json: efficiency: no entry "beam-10m"/,
    );
  });
});
