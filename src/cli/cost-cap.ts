/**
 * `--max-cost USD` for run, ablate, judge, calibrate-judge and grids: the estimate of what is left
 * to do is checked before anything starts, and a CostCap (src/providers/budget.ts) in the transport
 * holds back every request that could cross the cap while the command runs. The cap counts what the
 * run directories already recorded as spent (manifest `spent_usd`), so a stopped run is resumed by
 * the same command with a higher cap.
 */
import { MANIFEST_FILE, readRunManifest } from '../run-files/record.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { CostCap } from '../providers/budget.js';
import { paidOf } from '../run-files/cost.js';
import type { TransportOptions } from '../providers/transport.js';
import { RunDir } from '../run-files/run-dir.js';
import { InputError, UsageError } from '../util/errors.js';
import { CostCapExceeded } from './exit.js';
import type { RunConfig } from '../config/schema.js';
import { estimateRun } from '../pipeline/estimate.js';
import { runDirFor } from '../pipeline/plan.js';
import { judgeEstimate, type AnswersFile } from '../pipeline/judge-answers.js';
import type { Question } from '../core/schema.js';

const usd = (x: number) => `$${x.toFixed(4)}`;

/** The cap given with --max-cost (null: none); refused with --batch, whose spend is known only when its jobs end. */
export function maxCostOf(cmd: Command): number | null {
  const o = cmd.opts();
  if (o.maxCost === undefined) return null;
  if (o.batch || o.batchEmbeddings)
    throw new UsageError('--max-cost cannot bound --batch (a batch job is paid when it completes): drop one');
  return o.maxCost as number;
}

/** What the run directories recorded as paid by earlier processes (manifest `spent_usd`, src/run-files/cost.ts; 0 where absent). */
export function recordedSpend(dirs: readonly string[]): number {
  let sum = 0;
  for (const dir of dirs) {
    if (!existsSync(join(dir, MANIFEST_FILE))) continue;
    sum += paidOf(readRunManifest(dir).manifest as Record<string, unknown>) ?? 0;
  }
  return sum;
}

/** Question ids a run directory already holds (failed ones too, unless they are to be redone): not estimated again. */
export function doneIds(dir: string, retryErrors: boolean): Set<string> {
  if (!existsSync(join(dir, 'manifest.json'))) return new Set();
  return new Set(
    new RunDir(dir)
      .readItems()
      .filter((i) => !(retryErrors && i.error))
      .map((i) => i.id),
  );
}

/**
 * Refuses before anything is sent when the estimate of what is left does not fit under the cap
 * (exit 6); else the transport with the cap every request is checked against.
 */
export function capTransport(
  transport: Partial<TransportOptions>,
  cap: { usd: number; spentBefore: number; estimateUsd: number | null; what: string },
): Partial<TransportOptions> {
  if (cap.estimateUsd === null)
    throw new InputError(
      `the cost of ${cap.what} is unknown (a model without a price in the registry; --dry-run names it): a cap cannot be kept; give its prices with --models`,
      { place: '--max-cost' },
    );
  const left = cap.usd - cap.spentBefore;
  if (cap.spentBefore + cap.estimateUsd > cap.usd) {
    throw new CostCapExceeded(
      `--max-cost ${usd(cap.usd)}: the estimate for ${cap.what} is ${usd(cap.estimateUsd)} (before cache hits), above what is left of the cap ` +
        `(${usd(Math.max(0, left))}; paid so far ${usd(cap.spentBefore)}, over every earlier process of the run directory); nothing was sent. Raise --max-cost, or narrow the run (--dry-run shows the estimate)`,
    );
  }
  return { ...transport, costCap: new CostCap(cap.usd, cap.spentBefore) };
}

/** Exit 6 when the cap stopped the run (its manifest says `stopped-cost-cap`); the items so far are kept. */
export function checkCostCap(status: string | undefined, transport: Partial<TransportOptions>, dir: string): void {
  const cap = transport.costCap;
  if (!cap || status !== 'stopped-cost-cap') return;
  throw new CostCapExceeded(
    `stopped before crossing --max-cost ${usd(cap.capUsd)}: paid ${usd(cap.spent)} in all (held back: ${cap.stoppedAt ?? 'a request'}); ` +
      `the questions done so far are kept in ${dir}; the same command with a higher --max-cost resumes`,
  );
}

/** `rawrag run --max-cost`: the estimate of the questions its run directory does not hold yet, checked; the transport with the cap. */
export async function capRun(
  cfg: RunConfig,
  transport: Partial<TransportOptions>,
  o: { usd: number; out: string | null; retryErrors: boolean },
): Promise<Partial<TransportOptions>> {
  const dir = runDirFor(cfg, o.out);
  const skip = doneIds(dir, o.retryErrors);
  const e = await estimateRun(cfg, transport, { skip });
  const what = `the ${e.questions} question${e.questions === 1 ? '' : 's'} still to do`;
  return capTransport(transport, { usd: o.usd, spentBefore: recordedSpend([dir]), estimateUsd: e.cost_usd, what });
}

/** The dry run's line about the cap: would a real run start? */
export function capLine(usd: number, estimateUsd: number | null): string {
  if (estimateUsd === null) return `NOTE: --max-cost ${usd_(usd)}: the estimate is unknown, so a real run would be refused`;
  return estimateUsd > usd
    ? `NOTE: --max-cost ${usd_(usd)}: the estimate is above the cap: a real run would be refused (exit 6)`
    : `NOTE: --max-cost ${usd_(usd)}: the estimate is within the cap; a real run stops before a request could cross it`;
}
const usd_ = (x: number) => `$${x.toFixed(4)}`;

/** `rawrag judge` / `calibrate-judge --max-cost`: the judge estimate of the answers its run directory has not judged yet. */
export async function capJudge(
  cfg: RunConfig,
  answers: AnswersFile,
  transport: Partial<TransportOptions>,
  o: { usd: number; out: string; retryErrors: boolean; questions?: (qs: Question[]) => Question[] },
): Promise<Partial<TransportOptions>> {
  const skip = doneIds(o.out, o.retryErrors);
  const left = (qs: Question[]) => (o.questions?.(qs) ?? qs).filter((q) => !skip.has(q.id));
  const e = await judgeEstimate(cfg, answers, transport, { questions: left });
  return capTransport(transport, {
    usd: o.usd,
    spentBefore: recordedSpend([o.out]),
    estimateUsd: e.costUsd,
    what: 'the answers still to judge',
  });
}
