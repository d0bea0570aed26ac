/**
 * What an ablation leaves in its folder besides the variants' run directories:
 * ablation.json (the sweep, the work shared, the table), ablation.md, ablation.csv,
 * ablation.svg and ablation.png.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative } from 'node:path';
import { writeFileAtomic, writeJsonAtomic } from '../util/fsx.js';
import type { AblationOutcome } from './types.js';
import type { AblationTable } from './paired-table.js';
import { ablationCsv, ablationMarkdown } from './report.js';
import { ablationSvg } from './plot.js';

export interface AblationFiles {
  json: string;
  markdown: string;
  csv: string;
  svg: string;
  /** null when no renderer was found (or PNG was not wanted); `pngNote` says why. */
  png: string | null;
  pngNote: string | null;
}

export function writeAblation(outcome: AblationOutcome, table: AblationTable, opts: { png: boolean }): AblationFiles {
  mkdirSync(outcome.dir, { recursive: true });
  const files = {
    json: join(outcome.dir, 'ablation.json'),
    markdown: join(outcome.dir, 'ablation.md'),
    csv: join(outcome.dir, 'ablation.csv'),
    svg: join(outcome.dir, 'ablation.svg'),
  };
  const title = plotTitle(outcome, table);
  writeJsonAtomic(files.json, {
    format: 'rawrag.ablation/1',
    benchmark: outcome.benchmark,
    retriever: outcome.retriever,
    system: outcome.system,
    ...(outcome.name ? { name: outcome.name } : {}),
    metric: table.metric,
    // Unchanged evidence re-read and re-judged (--rejudge-unchanged): its share of each delta is measured, not 0 by reuse.
    rejudged_unchanged: outcome.rejudgedUnchanged === true,
    resamples: table.resamples,
    seed: table.seed,
    variants: outcome.variants.map((v) => ({
      name: v.variant.name,
      dir: relative(outcome.dir, v.dir),
      system: v.manifest.system,
      config_hash: v.manifest.config_hash,
      adds: v.adds,
    })),
    work: outcome.work,
    retrieval: outcome.retrievalReport,
    wall_ms: Math.round(outcome.wallMs),
    table: table.rows.map((r) => ({ ...r, dir: relative(outcome.dir, r.dir) })),
    written_at: new Date().toISOString(),
  });
  writeFileAtomic(files.markdown, `# ${title}\n\n${ablationMarkdown(table)}\n`);
  writeFileAtomic(files.csv, ablationCsv({ ...table, rows: table.rows.map((r) => ({ ...r, dir: relative(outcome.dir, r.dir) })) }));
  writeFileAtomic(files.svg, ablationSvg(table, title));
  const png = opts.png ? renderPng(files.svg, join(outcome.dir, 'ablation.png')) : { path: null, note: 'PNG not requested (--no-png)' };
  return { ...files, png: png.path, pngNote: png.note };
}

export function plotTitle(outcome: AblationOutcome, table: AblationTable): string {
  const n = outcome.variants[0]?.summary.n ?? 0;
  const what = table.metric === 'accuracy' ? 'coverage and accuracy' : 'coverage';
  const axis = outcome.variants.some((v) => v.variant.k !== outcome.variants[0]!.variant.k) ? 'against k' : 'per variant';
  return `${outcome.system} on ${outcome.benchmark} (${n} questions): ${what} ${axis}`;
}

/**
 * SVG -> PNG: in-process with @resvg/resvg-js (ships its renderer, nothing to install), else the
 * first external renderer found (rsvg-convert, then ImageMagick); optional by design.
 */
export function renderPng(svg: string, png: string): { path: string | null; note: string | null } {
  const own = renderPngResvg(svg, png);
  if (own) return own;
  const tries: Array<[string, string[]]> = [
    ['rsvg-convert', ['--zoom', '2', '--background-color', 'white', '-o', png, svg]],
    ['magick', ['-density', '192', svg, png]],
    ['convert', ['-density', '192', svg, png]],
  ];
  for (const [cmd, args] of tries) {
    const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 60_000 });
    if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') continue;
    if (r.status === 0 && existsSync(png)) return { path: png, note: null };
    return {
      path: null,
      note: `${cmd} failed to render the PNG: ${
        String(r.stderr ?? r.error ?? '')
          .trim()
          .split('\n')[0]
      }`,
    };
  }
  return { path: null, note: 'no SVG renderer found (install librsvg2-bin or imagemagick for a PNG); the SVG is written' };
}

/** null when the package's native renderer is not available on this platform (then the external tools are tried). */
function renderPngResvg(svg: string, png: string): { path: string; note: null } | null {
  let Resvg: typeof import('@resvg/resvg-js').Resvg;
  try {
    ({ Resvg } = createRequire(import.meta.url)('@resvg/resvg-js') as typeof import('@resvg/resvg-js'));
  } catch {
    return null;
  }
  const image = new Resvg(readFileSync(svg, 'utf8'), {
    background: 'white',
    fitTo: { mode: 'zoom', value: 2 },
    font: { loadSystemFonts: true },
  }).render();
  writeFileAtomicBytes(png, image.asPng());
  return { path: png, note: null };
}

function writeFileAtomicBytes(path: string, data: Uint8Array): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}
