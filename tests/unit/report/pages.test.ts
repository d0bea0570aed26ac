// One page per benchmark: runs of several benchmarks give an index at --out and a page per
// benchmark beside it, each carrying only its own runs' data; one benchmark keeps one page.
import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeReport } from '../../../src/report/index.js';
import { reportLines } from '../../../src/cli/commands/report.js';
import { pagePath } from '../../../src/report/pages.js';
import { tempDir } from '../../helpers/cli.js';

/** An external system's minimal run folder: manifest (system, benchmark, setting) + items of {id, score, judge}. */
function externalRun(root: string, name: string, benchmark: string, system: string, n: number, label?: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify({ system, benchmark, setting: `${benchmark}/gpt-4o-mini`, ...(label ? { name: label } : {}) }),
  );
  const lines = Array.from({ length: n }, (_, i) =>
    JSON.stringify({ id: `${benchmark}-q${i}`, score: i % 2, judge: [i % 2, i % 2, i % 2] }),
  );
  writeFileSync(join(dir, 'items.jsonl'), lines.join('\n') + '\n');
  return dir;
}

const blobOf = (html: string) => JSON.parse(/<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(html)![1]!);

describe('rawrag report pages', () => {
  it('writes an index and one page per benchmark, each holding only its own runs', async () => {
    const root = tempDir('rawrag-pages-');
    externalRun(join(root, 'results'), 'a', 'locomo', 'Mem0', 20, 'mem0 v1');
    externalRun(join(root, 'results'), 'b', 'locomo', 'Zep', 20);
    externalRun(join(root, 'results'), 'c', 'longmemeval', 'Mem0', 30);
    const out = join(root, 'site', 'report.html');
    const r = await writeReport([join(root, 'results')], out);
    expect(readdirSync(join(root, 'site')).sort()).toEqual(['report.html', 'report.locomo.html', 'report.longmemeval.html']);
    expect(r.pages.map((p) => [p.benchmark, p.runs])).toEqual([
      ['locomo', 2],
      ['longmemeval', 1],
    ]);
    const locomo = blobOf(readFileSync(pagePath(out, 'locomo'), 'utf8'));
    expect(locomo.runs.map((x: { system: string }) => x.system)).toEqual(['Mem0 [mem0 v1]', 'Zep']);
    expect(locomo.s).not.toContain('longmemeval-q0');
    const lme = blobOf(readFileSync(pagePath(out, 'longmemeval'), 'utf8'));
    expect(lme.runs).toHaveLength(1);
    const index = readFileSync(out, 'utf8');
    expect(index).toContain('<a href="report.locomo.html">locomo</a>');
    expect(index).toContain('<a href="report.longmemeval.html">longmemeval</a>');
    expect(index).toMatch(/Mem0 \[mem0 v1\].*locomo\/gpt-4o-mini<\/td><td>20<\/td>/);
    expect(index).not.toContain('<script');
    expect(reportLines(r)).toEqual([
      expect.stringMatching(/^report: .*report\.html \(index of 2 pages, one per benchmark; 3 runs, 2 benchmark-settings, 0 ablations\)$/),
      expect.stringMatching(/^ {2}locomo: .*report\.locomo\.html \(\d+ KiB; 2 runs\)$/),
      expect.stringMatching(/^ {2}longmemeval: .*report\.longmemeval\.html \(\d+ KiB; 1 run\)$/),
    ]);
  });

  it('keeps one page at --out for one benchmark', async () => {
    const root = tempDir('rawrag-pages-');
    externalRun(root, 'a', 'locomo', 'Mem0', 5);
    const out = join(root, 'report.html');
    const r = await writeReport([root], out);
    expect(r.pages).toHaveLength(1);
    expect(r.pages[0]!.path).toBe(out);
    expect(existsSync(pagePath(out, 'locomo'))).toBe(false);
    expect(blobOf(readFileSync(out, 'utf8')).runs).toHaveLength(1);
  });
});
