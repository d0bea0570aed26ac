/**
 * The judge-prompt sweep's result: the same answers judged under several judge protocols, each in
 * a run folder of its own. Per protocol its accuracy (mean item score) over the questions every
 * protocol judged, with a 95 % percentile-bootstrap interval (seeded), the span between the most
 * and least lenient protocol, and the questions whose verdict (majority of the judge runs, item
 * score >= 0.5) flips between protocols.
 */
import { readRunManifest } from '../run-files/record.js';
import { join } from 'node:path';
import { RunDir } from '../run-files/run-dir.js';
import { percentileInterval, plainDesign, replicates } from '../stats/bootstrap.js';
import { markdownTable } from '../util/table.js';

export const SWEEP_RESAMPLES = 10_000;

export interface SweepProtocol {
  name: string;
  dir: string;
  /** The judge as `rawrag stats` names it (model and protocol id). */
  judge: string;
  judged: number;
  failed: number;
  /** Mean item score over the questions every protocol judged. */
  accuracy: number | null;
  ci95: { low: number; high: number } | null;
  /** Share of those questions accepted by majority vote. */
  accepted: number | null;
}

export interface SweepFlip {
  id: string;
  question: string | null;
  gold: string | null;
  answer: string | null;
  /** Protocol name -> verdict (1 accepted, 0 not) by majority of its judge runs. */
  verdicts: Record<string, number>;
}

export interface SweepResult {
  format: 'rawrag.judge-sweep/1';
  /** Questions every protocol judged (the common set the figures are over). */
  n: number;
  resamples: number;
  seed: number;
  protocols: SweepProtocol[];
  /** Highest minus lowest accuracy, and which protocols. */
  span: { points: number; highest: string; lowest: string } | null;
  flips: SweepFlip[];
}

type Item = { id: string; score: number | null; error: unknown; question?: string; gold?: string; answer?: string | null };

/** Reads each protocol's run folder and compares them on the questions all judged. */
export function summariseSweep(dirs: ReadonlyArray<{ name: string; dir: string }>, o: { seed: number; resamples?: number }): SweepResult {
  const resamples = o.resamples ?? SWEEP_RESAMPLES;
  const runs = dirs.map(({ name, dir }) => {
    const items = new RunDir(dir).readItems() as unknown as Item[];
    const manifest = readRunManifest(dir).manifest;
    const protocolId = items
      .map((i) => (i as { details?: { judge?: { protocol?: string; model?: string } } }).details?.judge)
      .find((j) => j?.protocol);
    const judge = `${protocolId?.model ?? manifest.config?.judge?.model ?? '?'} (${protocolId?.protocol ?? 'official'})`;
    const byId = new Map(items.filter((i) => !i.error && typeof i.score === 'number').map((i) => [i.id, i]));
    return { name, dir, judge, items, byId, failed: items.filter((i) => i.error).length };
  });
  const common = [...(runs[0]?.byId.keys() ?? [])].filter((id) => runs.every((r) => r.byId.has(id)));
  const protocols: SweepProtocol[] = runs.map((r) => {
    const scores = common.map((id) => r.byId.get(id)!.score!);
    const n = scores.length;
    const accuracy = n ? scores.reduce((a, b) => a + b, 0) / n : null;
    const ci95 = n ? percentileInterval(replicates(scores, plainDesign(n), resamples, `${o.seed}`)) : null;
    return {
      name: r.name,
      dir: r.dir,
      judge: r.judge,
      judged: r.byId.size,
      failed: r.failed,
      accuracy,
      ci95,
      accepted: n ? scores.filter((s) => s >= 0.5).length / n : null,
    };
  });
  const ranked = protocols.filter((p) => p.accuracy !== null).sort((a, b) => b.accuracy! - a.accuracy!);
  const span =
    ranked.length >= 2
      ? {
          points: 100 * (ranked[0]!.accuracy! - ranked[ranked.length - 1]!.accuracy!),
          highest: ranked[0]!.name,
          lowest: ranked[ranked.length - 1]!.name,
        }
      : null;
  const flips: SweepFlip[] = [];
  for (const id of common) {
    const verdicts = Object.fromEntries(runs.map((r) => [r.name, r.byId.get(id)!.score! >= 0.5 ? 1 : 0]));
    if (new Set(Object.values(verdicts)).size < 2) continue;
    const it = runs[0]!.byId.get(id)!;
    flips.push({ id, question: it.question ?? null, gold: it.gold ?? null, answer: it.answer ?? null, verdicts });
  }
  return { format: 'rawrag.judge-sweep/1', n: common.length, resamples, seed: o.seed, protocols, span, flips };
}

const pct = (x: number | null) => (x === null ? '—' : (100 * x).toFixed(2));

/** The sweep as text: the table per protocol, the span, the flipping questions (the first 20). */
export function renderSweep(s: SweepResult, dir: string, limit = 20): string {
  const table = markdownTable(
    ['protocol', 'judge', 'accuracy %', '95% CI', 'accepted (majority) %', 'judged', 'failed', 'run folder'],
    s.protocols.map((p) => [
      p.name,
      p.judge,
      pct(p.accuracy),
      p.ci95 ? `[${pct(p.ci95.low)}, ${pct(p.ci95.high)}]` : '—',
      pct(p.accepted),
      p.judged,
      p.failed,
      p.dir,
    ]),
  );
  const names = s.protocols.map((p) => p.name);
  const flipRows = s.flips
    .slice(0, limit)
    .map((f) => [f.id, ...names.map((n) => (f.verdicts[n] ? 'CORRECT' : 'WRONG')), (f.answer ?? '').slice(0, 60)]);
  return [
    `Judge-prompt sweep: the same answers under ${s.protocols.length} judge protocols, on the ${s.n} questions every protocol judged (95 % percentile bootstrap, ${s.resamples} resamples, seed ${s.seed})`,
    '',
    table,
    '',
    s.span
      ? `span: ${s.span.points.toFixed(2)} points (${s.span.highest} highest, ${s.span.lowest} lowest)`
      : 'span: — (fewer than two protocols scored)',
    `verdict flips: ${s.flips.length} of ${s.n} questions change verdict between protocols${s.flips.length > limit ? ` (the first ${limit} below; all in judge-sweep.json)` : ''}`,
    ...(flipRows.length ? ['', markdownTable(['id', ...names, 'answer'], flipRows)] : []),
    '',
    `each protocol's verdicts are a run folder of their own: \`rawrag stats ${dir}\` pairs them (judge vs judge: agreement, kappa, McNemar); the sweep is in ${join(dir, 'judge-sweep.json')}`,
  ].join('\n');
}
