/**
 * An error caused by the user's input (data file, config, flag). It names the file and the
 * place inside it so the message can be acted on; the CLI prints it without a stack trace and
 * exits non-zero.
 */
export class InputError extends Error {
  readonly file?: string;
  readonly place?: string;
  constructor(message: string, where: { file?: string; place?: string } = {}) {
    const prefix = [where.file, where.place].filter(Boolean).join(': ');
    super(prefix ? `${prefix}: ${message}` : message);
    this.name = 'InputError';
    this.file = where.file;
    this.place = where.place;
  }
}

/** Formats a zod issue path as `qa[3].evidence[0]` for error messages. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || '(top level)';
}

/**
 * A bad flag or argument on the command line (exit 1, like commander's own usage errors). The
 * same bad value read from a config file is an InputError naming the file and key (exit 2).
 */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * A setting that cannot work, found while running (an embedding model answering vectors of another
 * dimension than its registry entry or the index declares): every item would fail alike, so it is
 * not retried, not an item error, and it stops the run (exit 2) naming what to fix.
 */
export class ConfigurationError extends InputError {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigurationError';
  }
}
