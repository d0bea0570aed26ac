/**
 * `--max-failures`: the same error on N items in a row stops the run (a wrong model name, a dead
 * endpoint, an exhausted quota fail every question alike; sporadic failures break the streak and
 * are left to `--retry-errors`). The run then ends `incomplete`, keeping what it has.
 */
import type { TransportOptions } from '../providers/transport.js';

/** The abort reason that marks a run stopped by its failure streak (not a signal, not the cost cap). */
export const FAILURE_LIMIT_REASON = 'failure-limit';

/** The run stopped after the same error on `count` items in a row: exit 4, with the error named. */
export class RepeatedFailures extends Error {
  readonly exitCode = 4;
  constructor(
    readonly count: number,
    readonly error: string,
    readonly dir: string,
  ) {
    super(
      `stopped after the same error on ${count} items in a row (--max-failures): ${error}\n` +
        `the run directory keeps what was done; fix the cause, then: rawrag resume ${dir} --retry-errors`,
    );
    this.name = 'RepeatedFailures';
  }
}

/** Counts the current run of identical errors; `limit` is reached once it is that long. */
export class FailureStreak {
  private last: string | null = null;
  private length = 0;
  readonly limit: number | null;

  constructor(setting: TransportOptions['maxFailures'], questions: number) {
    this.limit = !setting ? null : 'count' in setting ? setting.count : Math.max(1, Math.ceil((setting.percent / 100) * questions));
  }

  /** Records an item's error (null: it succeeded); true when the streak has reached the limit. */
  add(error: string | null | undefined): boolean {
    if (!error) {
      this.last = null;
      this.length = 0;
      return false;
    }
    const key = sameError(error);
    this.length = key === this.last ? this.length + 1 : 1;
    this.last = key;
    return this.limit !== null && this.length >= this.limit;
  }

  get error(): string | null {
    return this.last;
  }
}

/** What makes two item errors "the same": the message with whitespace collapsed. */
function sameError(message: string): string {
  return message.replace(/\s+/g, ' ').trim().slice(0, 500);
}
