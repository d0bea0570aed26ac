/**
 * Issue 43 item 7: noise. The embedded retriever's long note once per command (a grid's cells and
 * an ablation's variants share it), `rawrag stats` prose within 160 columns, `rawrag report` beside
 * the runs (never into the working folder unasked), and one exit-code table (docs/runs.md, the code,
 * `rawrag --help`).
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rawragInProcess } from '../helpers/in-process.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { EXIT_CODES, exitCodesHelp } from '../../src/cli/exit-codes.js';
import { buildProgram } from '../../src/cli/main.js';
import type { Command } from 'commander';

const NOTE = /offline lexical stand-in/g;
const count = (text: string) => (text.match(NOTE) ?? []).length;

describe('noise', () => {
  it("a grid's cells and an ablation's variants print the retriever's note once; stats prose within 160 columns", async () => {
    const root = tempDir('rawrag-noise-');
    const a = join(root, 'a.yaml');
    const b = join(root, 'b.yaml');
    writeFileSync(a, 'retrieval: { k: 5 }\n');
    writeFileSync(b, 'retrieval: { k: 10 }\n');
    const grid = await rawragInProcess(['run', 'locomo', '-c', `${a},${b}`, '--limit', '4', '--out', join(root, 'grid'), '--no-progress']);
    expect(grid.code).toBe(0);
    expect(count(grid.stdout + grid.stderr)).toBe(1);
    const ablate = await rawragInProcess([
      'ablate',
      'locomo',
      '--k',
      '5,10',
      '--limit',
      '4',
      '--out',
      join(root, 'ablate'),
      '--no-progress',
      '--no-png',
      '--no-report',
      '--resamples',
      '100',
    ]);
    expect(ablate.code).toBe(0);
    expect(count(ablate.stdout + ablate.stderr)).toBe(1);
    const stats = await rawragInProcess(['stats', join(root, 'grid'), '--no-report', '--resamples', '100']);
    expect(stats.code).toBe(0);
    const prose = stats.stdout.split('\n').filter((l) => !l.startsWith('|'));
    expect(prose.length).toBeGreaterThan(3);
    for (const line of prose) expect(line.length, line).toBeLessThanOrEqual(160);
  });

  it('rawrag report writes <first DIR>/report/report.html by default, nothing in the working folder', async () => {
    const root = tempDir('rawrag-noise-report-');
    const run = join(root, 'runs', 'one');
    expect((await rawragInProcess(['run', 'locomo', '--limit', '3', '--out', run, '--no-progress'])).code).toBe(0);
    const cwd = tempDir('rawrag-noise-cwd-');
    const r = await rawragInProcess(['report', join(root, 'runs')], {}, { cwd });
    expect(r.code).toBe(0);
    expect(existsSync(join(root, 'runs', 'report', 'report.html'))).toBe(true);
    expect(readdirSync(cwd)).toEqual([]);
    expect(r.stdout).toContain(join('runs', 'report', 'report.html'));
  });

  it('one exit-code table: docs/runs.md, src/cli/exit-codes.ts and rawrag --help agree, and every exit code thrown has a row', async () => {
    const docs = readFileSync(join(ROOT, 'docs/runs.md'), 'utf8');
    const section = docs.slice(docs.indexOf('## Exit codes and errors'));
    const rows = [...section.matchAll(/^\| ([0-9/]+) \| (.+) \| (.+) \|$/gm)].map((m) => ({
      code: m[1]!,
      meaning: m[2]!,
      commands: m[3]!,
    }));
    expect(rows).toEqual(EXIT_CODES.map((e) => ({ code: e.code, meaning: e.meaning, commands: e.commands })));
    const help = await rawragInProcess(['--help']);
    expect(help.stdout).toMatch(/^Exit codes:$/m);
    // Every row whole (a code alone, "4", is in any help text).
    for (const line of exitCodesHelp().split('\n')) expect(help.stdout).toContain(line);
    // Each `readonly exitCode = N` in the source is a row.
    const thrown = new Set<string>();
    const walk = (dir: string): void => {
      for (const f of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, f.name);
        if (f.isDirectory()) walk(p);
        else if (p.endsWith('.ts')) for (const m of readFileSync(p, 'utf8').matchAll(/readonly exitCode = (\d+)/g)) thrown.add(m[1]!);
      }
    };
    walk(join(ROOT, 'src'));
    const codes = new Set(EXIT_CODES.flatMap((e) => e.code.split('/')));
    for (const c of thrown) expect(codes.has(c), `exit code ${c} has no row`).toBe(true);
  });

  it("the exit-code table's commands column names every command whose options give the code, and only those (issue 42)", async () => {
    // The option that makes a command able to end with each code.
    const BY_OPTION: Record<string, string[]> = { '4': ['--max-error-rate', '--max-failures'], '5': ['--batch'], '6': ['--max-cost'] };
    const program = await buildProgram(['node', 'rawrag']);
    const optionsOf = new Map<string, Set<string>>();
    const walk = (c: Command, name: string): void => {
      optionsOf.set(name, new Set(c.options.map((o) => o.long ?? '')));
      for (const sub of c.commands) walk(sub, `${name} ${sub.name()}`.trim());
    };
    for (const c of program.commands) walk(c, c.name());
    const named = (code: string) =>
      new Set([...EXIT_CODES.find((e) => e.code === code)!.commands.matchAll(/`([a-z][a-z-]*)/g)].map((m) => m[1]!));
    for (const [code, flags] of Object.entries(BY_OPTION)) {
      const row = named(code);
      for (const [name, options] of optionsOf) {
        if (!flags.some((f) => options.has(f))) continue;
        expect(row.has(name.split(' ')[0]!), `${name} has ${flags.join('/')}: exit ${code}'s row must name it`).toBe(true);
      }
      // The other way: a command the row names has the option (`batch`: its subcommands are the batch API itself).
      for (const name of row) {
        if (name === 'resume' || (code === '5' && name === 'batch')) continue;
        const has = [...optionsOf].some(([n, o]) => n.split(' ')[0] === name && flags.some((f) => o.has(f)));
        expect(has, `exit ${code}'s row names ${name}, which has no ${flags.join('/')}`).toBe(true);
      }
    }
    // `rawrag resume DIR` is `rawrag run --out DIR` with what the run recorded (its --batch, its grid):
    // every code `run` gives, `resume` gives.
    for (const e of EXIT_CODES) {
      const row = new Set([...e.commands.matchAll(/`([a-z][a-z-]*)/g)].map((m) => m[1]!));
      if (row.has('run')) expect(row.has('resume'), `exit ${e.code}: run is named, resume is not`).toBe(true);
    }
  });
});
