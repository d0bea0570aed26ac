/**
 * What an ablation leaves in its folder besides the variants' run directories:
 * ablation.json (the sweep, the work shared, the table), ablation.md, ablation.csv,
 * ablation.svg and ablation.png.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { OutputSet } from '../util/output-set.js';
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

/**
 * Stages the ablation's files into `set` (the caller commits them, with its report: they land
 * together or not at all); without a set they are written together at once.
 */
export function writeAblation(outcome: AblationOutcome, table: AblationTable, opts: { png: boolean; set?: OutputSet }): AblationFiles {
  mkdirSync(outcome.dir, { recursive: true });
  const set = opts.set ?? new OutputSet();
  try {
    const files = stageAblation(outcome, table, opts.png, set);
    if (!opts.set) set.commit();
    return files;
  } finally {
    if (!opts.set) set.discard();
  }
}

/** What ablation.json holds (the report reads it from memory while the file is still staged). */
export function ablationJson(outcome: AblationOutcome, table: AblationTable): Record<string, unknown> {
  return {
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
  };
}

function stageAblation(outcome: AblationOutcome, table: AblationTable, png: boolean, set: OutputSet): AblationFiles {
  const files = {
    json: join(outcome.dir, 'ablation.json'),
    markdown: join(outcome.dir, 'ablation.md'),
    csv: join(outcome.dir, 'ablation.csv'),
    svg: join(outcome.dir, 'ablation.svg'),
  };
  const title = plotTitle(outcome, table);
  set.stage(files.json, JSON.stringify(ablationJson(outcome, table), null, 2) + '\n');
  set.stage(files.markdown, `# ${title}\n\n${ablationMarkdown(table)}\n`);
  set.stage(files.csv, ablationCsv({ ...table, rows: table.rows.map((r) => ({ ...r, dir: relative(outcome.dir, r.dir) })) }));
  const svg = ablationSvg(table, title);
  set.stage(files.svg, svg);
  const pngPath = join(outcome.dir, 'ablation.png');
  const image = png ? renderPng(svg, set.stagedFile(files.svg)!) : { bytes: null, note: 'PNG not requested (--no-png)' };
  if (image.bytes) set.stage(pngPath, image.bytes);
  return { ...files, png: image.bytes ? pngPath : null, pngNote: image.note };
}

export function plotTitle(outcome: AblationOutcome, table: AblationTable): string {
  const n = outcome.variants[0]?.summary.n ?? 0;
  const what = table.metric === 'accuracy' ? 'coverage and accuracy' : 'coverage';
  const axis = outcome.variants.some((v) => v.variant.k !== outcome.variants[0]!.variant.k) ? 'against k' : 'per variant';
  return `${outcome.system} on ${outcome.benchmark} (${n} questions): ${what} ${axis}`;
}

/**
 * SVG -> PNG bytes: in-process with @resvg/resvg-js (ships its renderer, nothing to install), else
 * the first external renderer found (rsvg-convert, then ImageMagick) reading `svgFile`; optional by design.
 */
export function renderPng(svg: string, svgFile: string): { bytes: Uint8Array | null; note: string | null } {
  const own = renderPngResvg(svg);
  if (own) return { bytes: own, note: null };
  // The external renderers write a file: a temporary one beside the SVG, read back and removed.
  const out = join(dirname(svgFile), `.ablation.png.${process.pid}.render.png`);
  try {
    const tries: Array<[string, string[]]> = [
      ['rsvg-convert', ['--zoom', '2', '--background-color', 'white', '-o', out, svgFile]],
      ['magick', ['-density', '192', `svg:${svgFile}`, out]],
      ['convert', ['-density', '192', `svg:${svgFile}`, out]],
    ];
    for (const [cmd, args] of tries) {
      const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 60_000 });
      if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      if (r.status === 0 && existsSync(out)) return { bytes: readFileSync(out), note: null };
      return {
        bytes: null,
        note: `${cmd} failed to render the PNG: ${
          String(r.stderr ?? r.error ?? '')
            .trim()
            .split('\n')[0]
        }`,
      };
    }
    return { bytes: null, note: 'no SVG renderer found (install librsvg2-bin or imagemagick for a PNG); the SVG is written' };
  } finally {
    rmSync(out, { force: true });
  }
}

/** null when the package's native renderer is not available on this platform (then the external tools are tried). */
function renderPngResvg(svg: string): Uint8Array | null {
  let Resvg: typeof import('@resvg/resvg-js').Resvg;
  try {
    ({ Resvg } = createRequire(import.meta.url)('@resvg/resvg-js') as typeof import('@resvg/resvg-js'));
  } catch {
    return null;
  }
  return new Resvg(svg, {
    background: 'white',
    fitTo: { mode: 'zoom', value: 2 },
    font: { loadSystemFonts: true },
  })
    .render()
    .asPng();
}
