/** The command-line side of the pre-flight (src/preflight/) and of `--max-failures`: options, and the run before a run. */
import { InvalidArgumentError, type Command } from 'commander';
import { preflight, preflightModels, type PreflightCell } from '../preflight/index.js';
import type { Role } from '../providers/usage.js';
import type { ReachedEndpoints } from '../preflight/reach.js';
import type { TransportOptions } from '../providers/transport.js';

/** Items in a row failing with the same error that stop a run, unless `--max-failures` says otherwise. */
export const DEFAULT_MAX_FAILURES = 10;

export function addPreflightOptions(cmd: Command): Command {
  return addFallbackOption(cmd)
    .option('--no-reach', 'do not reach each endpoint once before the run (the pre-flight still checks names, keys and data)')
    .option(
      '--max-failures <n|p%>',
      `stop the run once N items in a row (or P % of the questions) failed with the same error, naming it (default ${DEFAULT_MAX_FAILURES}; 0 = never)`,
      maxFailuresValue,
    );
}

/** `--fallback local`: for the commands that run a retriever (run, ablate). */
export function addFallbackOption(cmd: Command): Command {
  return cmd.option(
    '--fallback <retriever>',
    'local: a remote retriever without its keys or endpoint runs the local retriever instead (default: that is an error before anything is sent)',
    fallbackValue,
  );
}

/** The transport with `--fallback` applied. */
export function withFallback(cmd: Command, transport: Partial<TransportOptions>): Partial<TransportOptions> {
  return { ...transport, fallback: (cmd.opts().fallback as 'local' | undefined) ?? null };
}

function fallbackValue(value: string): 'local' {
  if (value !== 'local') throw new InvalidArgumentError(`'${value}': the only fallback is 'local' (the embedded retriever).`);
  return 'local';
}

export function maxFailuresValue(value: string): TransportOptions['maxFailures'] {
  const m = /^(\d+(?:\.\d+)?)(%?)$/.exec(value.trim());
  if (!m || (m[2] === '' && !Number.isInteger(Number(m[1]))) || (m[2] === '%' && Number(m[1]) > 100))
    throw new InvalidArgumentError(`'${value}' is not a count (e.g. 10) or a share of the questions (e.g. 5%).`);
  const n = Number(m[1]);
  if (n === 0) return null;
  return m[2] === '%' ? { percent: n } : { count: n };
}

/** The transport with what these options set. */
export function withPreflightFlags(cmd: Command, transport: Partial<TransportOptions>): Partial<TransportOptions> {
  const o = cmd.opts();
  // `--max-failures 0` (never): its parser returns null, which commander stores as '' (a parser's null is "no value").
  const given = o.maxFailures as TransportOptions['maxFailures'] | '' | undefined;
  const maxFailures = given === undefined ? { count: DEFAULT_MAX_FAILURES } : given === '' ? null : given;
  return { ...transport, fallback: (o.fallback as 'local' | undefined) ?? null, maxFailures };
}

/**
 * The pre-flight of a command's run(s); its notes go to `log`. Throws (exit 2) with every problem
 * found; else returns the transport for the run, carrying the memory-service URLs the pre-flight's
 * probe found answering (the run does not probe them again).
 */
export async function runPreflight(
  cmd: Command,
  cells: PreflightCell[],
  transport: Partial<TransportOptions>,
  log: (line: string) => void,
): Promise<Partial<TransportOptions>> {
  const { notes, reachedServices } = await preflight(cells, transport, { reach: cmd.opts().reach !== false });
  for (const n of notes) log(`note: ${n}`);
  return reachedServices.length ? { ...transport, reachedServices } : transport;
}

/**
 * The pre-flight of named models alone (`rawrag judge`: its judge), names, keys and endpoints; notes
 * go to `log`. `reached`: the endpoints this command already reached (each is reached once per command).
 */
export async function runModelPreflight(
  cmd: Command,
  models: ReadonlyArray<{ role: Role; name: string }>,
  transport: Partial<TransportOptions>,
  log: (line: string) => void,
  reached?: ReachedEndpoints,
): Promise<void> {
  const { notes } = await preflightModels(models, transport, { reach: cmd.opts().reach !== false, ...(reached ? { reached } : {}) });
  for (const n of notes) log(`note: ${n}`);
}
