/**
 * The exit codes, one table: docs/runs.md ("Exit codes and errors") prints the same rows (a test
 * keeps them equal) and `rawrag --help` ends with it. A new outcome adds a row here and there.
 */
export const EXIT_CODES: ReadonlyArray<{ code: string; meaning: string; commands: string }> = [
  { code: '0', meaning: 'success', commands: 'every command' },
  {
    code: '1',
    meaning: 'usage error: an unknown command or flag, a bad flag value (the flag or `-S`/`-B` key named)',
    commands: 'every command',
  },
  {
    code: '2',
    meaning:
      "bad input: a missing or invalid data or config file (file and place named), filesystem trouble (a full disk, also under a redirected stdout; a read-only folder: the path named), a service that does not answer, an embedding model answering another dimension than the index's",
    commands: 'every command',
  },
  { code: '3', meaning: 'internal error (a bug: please report it with the stack printed)', commands: 'every command' },
  {
    code: '4',
    meaning:
      'the run finished, but more items failed than `--max-error-rate` allows, or the same error failed `--max-failures` items in a row (the retry command printed)',
    commands: '`run` (also a grid), `resume`, `judge`, `calibrate-judge`',
  },
  {
    code: '5',
    meaning: "a provider's batch API failed (`--batch`; the batch state is kept)",
    commands: 'the `--batch` forms of `run`, `ablate`, `calibrate-judge`, `resume` of a `--batch` run, and `batch`',
  },
  {
    code: '6',
    meaning: 'the `--max-cost` cap refused the run or stopped it before crossing it (a higher cap resumes)',
    commands: '`run` (also a grid), `resume`, `ablate`, `judge`, `calibrate-judge`, `paper --run`',
  },
  {
    code: '7',
    meaning: 'a grid finished with cells that failed as a whole (the others ran; the table names them)',
    commands: '`run` with comma lists or several `--config` files, `resume` of such a grid',
  },
  { code: '130/143', meaning: 'interrupted (SIGINT / SIGTERM); what was kept is said', commands: 'every command' },
];

/** The table as `rawrag --help` ends with it. */
export function exitCodesHelp(): string {
  const width = Math.max(...EXIT_CODES.map((e) => e.code.length));
  return ['Exit codes:', ...EXIT_CODES.map((e) => `  ${e.code.padEnd(width)}  ${e.meaning}`)].join('\n');
}
