/**
 * The exit codes, one table: docs/runs.md ("Exit codes and errors") prints the same rows (a test
 * keeps them equal) and `rawrag --help` ends with it. A new outcome adds a row here and there.
 */
export const EXIT_CODES: ReadonlyArray<{ code: string; meaning: string }> = [
  { code: '0', meaning: 'success' },
  { code: '1', meaning: 'usage error: an unknown command or flag, a bad flag value (the flag or `-S`/`-B` key named)' },
  { code: '2', meaning: 'bad input: a missing or invalid data or config file (file and place named), filesystem trouble' },
  { code: '3', meaning: 'internal error (a bug: please report it with the stack printed)' },
  { code: '4', meaning: 'the run finished, but more items failed than `--max-error-rate` allows (the retry command printed)' },
  { code: '5', meaning: "a provider's batch API failed (`--batch`; the batch state is kept)" },
  { code: '6', meaning: 'the `--max-cost` cap refused the run or stopped it before crossing it (a higher cap resumes)' },
  { code: '7', meaning: 'a grid finished with cells that failed as a whole (the others ran; the table names them)' },
  { code: '130/143', meaning: 'interrupted (SIGINT / SIGTERM); what was kept is said' },
];

/** The table as `rawrag --help` ends with it. */
export function exitCodesHelp(): string {
  const width = Math.max(...EXIT_CODES.map((e) => e.code.length));
  return ['Exit codes:', ...EXIT_CODES.map((e) => `  ${e.code.padEnd(width)}  ${e.meaning}`)].join('\n');
}
