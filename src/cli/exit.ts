/** Outcomes that end a command with a non-zero exit code although nothing crashed. */

/** A run finished, but more of its items failed than `--max-error-rate` allows: exit 4. */
export class ItemFailures extends Error {
  readonly exitCode = 4;
  constructor(
    readonly errors: number,
    readonly total: number,
    readonly maxRate: number,
    readonly retry: string,
  ) {
    super(
      `${errors} of ${total} items failed (${((100 * errors) / Math.max(1, total)).toFixed(1)}%, allowed ${(100 * maxRate).toFixed(1)}%); ` +
        `redo them with:\n  ${retry}`,
    );
    this.name = 'ItemFailures';
  }
}
