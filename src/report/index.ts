/**
 * `rawrag report`: one self-contained HTML page from run directories, `rawrag stats` outputs and
 * `rawrag ablate` outputs. Also called by `rawrag stats` and `rawrag ablate` after their outputs
 * are written.
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { StatsReport } from '../stats/compute-tables.js';
import { toolInfo } from '../run/manifest.js';
import { writeFileAtomic } from '../util/fsx.js';
import { chartLibraryVersions } from './assets.js';
import { collectInputs } from './collect.js';
import { buildReportData } from './data.js';
import { renderPage } from './html.js';
import { buildPaperMap } from '../paper/map.js';

export interface ReportResult {
  path: string;
  bytes: number;
  runs: number;
  families: number;
  ablations: number;
  notes: string[];
}

export async function writeReport(
  paths: string[],
  out: string,
  opts: { stats?: { report: StatsReport; source: string } } = {},
): Promise<ReportResult> {
  const inputs = await collectInputs(paths, opts);
  const data = { ...buildReportData(inputs, { version: toolInfo().version, libraries: chartLibraryVersions() }), paper: buildPaperMap(paths) };
  const html = renderPage(data);
  const path = resolve(out);
  mkdirSync(dirname(path), { recursive: true });
  writeFileAtomic(path, html);
  return {
    path,
    bytes: Buffer.byteLength(html),
    runs: data.runs.length,
    families: data.families.length,
    ablations: data.ablations.length,
    notes: inputs.notes,
  };
}
