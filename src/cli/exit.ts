import { renderFailures, type FailureGroup } from '../run-files/failures.js';
/** Outcomes that end a command with a non-zero exit code although nothing crashed. */

/** A run finished, but more of its items failed than `--max-error-rate` allows: exit 4. */
export class ItemFailures extends Error {
  readonly exitCode = 4;
  constructor(
    readonly errors: number,
    readonly total: number,
    readonly maxRate: number,
    readonly retry: string,
    /** Why they failed, grouped (src/run-files/failures.ts): a retry that fails again says why, not only how many. */
    reasons: readonly FailureGroup[] = [],
    where = '',
  ) {
    super(
      `${errors} of ${total} items failed (${((100 * errors) / Math.max(1, total)).toFixed(1)}%, allowed ${(100 * maxRate).toFixed(1)}%)` +
        (reasons.length
          ? `, for ${reasons.length} reason${reasons.length === 1 ? '' : 's'}:\n${renderFailures(reasons).join('\n')}\n` +
            (where ? `every failed item: rawrag show ${where} --failures\n` : '')
          : '; ') +
        `redo them with:\n  ${retry}`,
    );
    this.name = 'ItemFailures';
  }
}

/** Exit 4 (ItemFailures) when more items failed than `--max-error-rate` allows (default 0), naming the retry command. */
export function checkErrorRate(summary: { errors: number; n: number; failures?: unknown }, dir: string, maxRate = 0): void {
  if (summary.errors > 0 && summary.errors / Math.max(1, summary.n) > maxRate) {
    const reasons = Array.isArray(summary.failures) ? (summary.failures as FailureGroup[]) : [];
    throw new ItemFailures(summary.errors, summary.n, maxRate, `${retryCommand(process.argv)} --retry-errors --out ${dir}`, reasons, dir);
  }
}

/** The command the user typed, without --retry-errors/--out (added back explicitly). */
export function retryCommand(argv: string[]): string {
  const args = argv.slice(2);
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--retry-errors') continue;
    if (args[i] === '--out') {
      i++;
      continue;
    }
    if (args[i]!.startsWith('--out=')) continue;
    kept.push(/^[\w./:=,@-]+$/.test(args[i]!) ? args[i]! : `'${args[i]!.replace(/'/g, "'\\''")}'`);
  }
  return ['rawrag', ...kept].join(' ');
}

/**
 * `--max-cost`: the run was refused before starting (its estimate is above what is left of the cap)
 * or stopped before a request could cross the cap (it kept what it had; the same command with a
 * higher cap resumes): exit 6.
 */
export class CostCapExceeded extends Error {
  readonly exitCode = 6;
  constructor(message: string) {
    super(message);
    this.name = 'CostCapExceeded';
  }
}

/** A grid finished, but some of its cells failed as a whole (bad data, a missing key, a crash): exit 7. */
export class GridFailures extends Error {
  readonly exitCode = 7;
  constructor(message: string) {
    super(message);
    this.name = 'GridFailures';
  }
}
